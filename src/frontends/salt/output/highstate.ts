/** Salt's highstate outputter (state_output, state_verbose), with Salt's colours when they are on. */
import { type Colors, COLORS, nested, NO_COLORS } from './nested.js';
import { pyFloat, pyStr } from './pyvalue.js';
import { tagParts } from '../tag.js';

type Ret = Record<string, unknown>;

function formatChanges(changes: unknown, c: Colors = NO_COLORS): { changed: boolean; text: string } {
  if (!changes || (typeof changes === 'object' && Object.keys(changes).length === 0)) return { changed: false, text: '' };
  if (typeof changes !== 'object' || Array.isArray(changes)) return { changed: true, text: `Invalid Changes data: ${pyStr(changes)}` };
  return { changed: true, text: `\n${nested(changes, 14, false, c)}` };
}

/** Durations already written: a run's durations are few distinct values (milliseconds to 3 decimals). */
const DURATIONS = new Map<number, string>();

function durationText(v: unknown): string {
  if (typeof v !== 'number') return pyStr(v);
  // Zero is left out: the map would not tell -0 from 0.
  if (v === 0) return pyFloat(v);
  let text = DURATIONS.get(v);
  if (text === undefined) {
    text = pyFloat(v);
    if (DURATIONS.size < 4096) DURATIONS.set(v, text);
  }
  return text;
}

/** Python's str.strip(): whitespace at both ends. */
function strip(s: string): string {
  return s.replace(/^\s+|\s+$/g, '');
}

/** Whether a character is one JavaScript's `\s` matches. */
function isJsSpace(c: number): boolean {
  // Printable ASCII, most characters of a comment, is answered by the first test.
  if (c > 0x20 && c < 0x7f) return false;
  return (
    c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}

/** What /^\s|\s$/ says of a text (its first or last character is whitespace), without the regular expression. */
function spaceAtEnds(s: string): boolean {
  return s.length > 0 && (isJsSpace(s.charCodeAt(0)) || isJsSpace(s.charCodeAt(s.length - 1)));
}

/** The `_id` state outputs show the ID where the name would be. */
function idTag(tag: string): string {
  const comps = tag.split('_|-');
  if (comps.length >= 3) comps[2] = comps[1] as string;
  return comps.join('_|-');
}

const COMMENT_INDENT = `\n${' '.repeat(14)}`;

/** Whether the changes are empty (Salt prints nothing for them and does not count the state as changed). */
function noChanges(changes: unknown): boolean {
  if (!changes) return true;
  if (typeof changes !== 'object') return false;
  for (const k in changes) if (Object.hasOwn(changes, k)) return false;
  return true;
}

/**
 * A state's block, its lines joined by newlines. Made by one join: one flat string per state, where
 * appending piece by piece would keep dozens of string pieces per state alive until the text is printed.
 */
function stateBlock(tag: string, ret: Ret, t: string, c: Colors): string {
  const { state, id, name, last: fun } = tagParts(tag);
  const raw = pyStr(ret.comment ?? '');
  const stripped = spaceAtEnds(raw) ? strip(raw) : raw;
  const comment = stripped.includes('\n') ? stripped.replaceAll('\n', COMMENT_INDENT) : stripped;
  const e = c.ENDC;
  const changes = noChanges(ret.changes) ? '' : formatChanges(ret.changes, c).text;
  const started = 'start_time' in ret;
  if (t === '' && e === '') {
    // No colours: the same text with the empty colour codes left out.
    return [
      '----------\n          ID: ', id, '\n    Function: ', state, '.', fun,
      id !== name ? `\n        Name: ${name}` : '',
      '\n      Result: ', pyStr(ret.result), '\n     Comment: ', comment,
      started ? `\n     Started: ${pyStr(ret.start_time)}\n    Duration: ${durationText(ret.duration)} ms` : '',
      '\n     Changes:   ', changes,
    ].join('');
  }
  return [
    t, '----------', e, '\n    ', t, '      ID: ', id, e, '\n    ', t, 'Function: ', state, '.', fun, e,
    id !== name ? `\n    ${t}    Name: ${name}${e}` : '',
    '\n    ', t, '  Result: ', pyStr(ret.result), e, '\n    ', t, ' Comment: ', comment, e,
    started ? `\n    ${t} Started: ${pyStr(ret.start_time)}${e}\n    ${t}Duration: ${durationText(ret.duration)} ms${e}` : '',
    '\n', t, '     Changes:   ', changes, e,
  ].join('');
}

/** Salt's _format_terse: one line per state. */
function terseLine(tag: string, ret: Ret, changed: boolean, t: string, c: Colors): string {
  const comps = tag.split('_|-');
  let result = changed ? 'Changed' : 'Clean';
  if (ret.result === false) result = 'Failed';
  else if (ret.result === null) result = 'Differs';
  let line = ` ${t} Name: ${comps[2] ?? ''} - Function: ${comps[0] ?? ''}.${comps[comps.length - 1] ?? ''} - Result: ${result}`;
  if ('start_time' in ret) line += ` - Started: ${pyStr(ret.start_time)} - Duration: ${durationText(ret.duration)} ms`;
  return `${line}${c.ENDC}`;
}

export interface HighstateSettings {
  readonly stateOutput?: string;
  readonly stateVerbose?: boolean;
  /** Salt's colours (salt-call --force-color, or a terminal without --no-color). */
  readonly color?: boolean;
}

/** The entries of a running dict in its order, as the run knows them (its keys then need not be listed). */
export interface DataOrder {
  readonly tags: readonly string[];
  readonly rets: readonly unknown[];
}

export function formatHighstate(data: Record<string, unknown> | string[], host = 'local', settings: HighstateSettings = {}, order?: DataOrder): string {
  const mode = (settings.stateOutput ?? 'full').toLowerCase();
  const verbose = settings.stateVerbose ?? true;
  const c: Colors = settings.color ? COLORS : NO_COLORS;
  const fmt = (color: string, text: string) => `${color}${text}${c.ENDC}`;
  if (Array.isArray(data)) {
    const out = [fmt(c.LIGHT_RED, `${host}:`), `    ${fmt(c.LIGHT_RED, 'Data failed to compile:')}`];
    for (const err of data) out.push(fmt(c.LIGHT_RED, `----------\n    ${err}`));
    return out.join('\n');
  }
  // The states' blocks, joined by newlines once at the end (one flat string), then the summary lines.
  const blocks: string[] = [];
  const out: string[] = [];
  let hcolor = c.GREEN;
  // The states' tags and returns in two lists (no pair per state), and their order by run number: the
  // run's own lists when it hands them on and every entry is a state's return.
  let tags: readonly string[] = [];
  let rets: readonly Ret[] = [];
  let sorted = true;
  let lastNum = -Infinity;
  const ordered = (v: unknown): boolean => {
    if (typeof v !== 'object' || v === null || !('result' in v)) return false;
    const num = Number((v as Ret).__run_num__ ?? 0);
    if (!(num >= lastNum)) sorted = false;
    lastNum = num;
    return true;
  };
  let all = order !== undefined;
  if (order !== undefined) for (let i = 0; all && i < order.rets.length; i++) all = ordered(order.rets[i]);
  if (order !== undefined && all) {
    tags = order.tags;
    rets = order.rets as readonly Ret[];
  } else {
    const someTags: string[] = [];
    const someRets: Ret[] = [];
    sorted = true;
    lastNum = -Infinity;
    const take = (tag: string, v: unknown) => {
      if (!ordered(v)) return;
      someTags.push(tag);
      someRets.push(v as Ret);
    };
    if (order !== undefined) for (let i = 0; i < order.tags.length; i++) take(order.tags[i] as string, order.rets[i]);
    else for (const tag in data) take(tag, data[tag]);
    tags = someTags;
    rets = someRets;
  }
  // A run's dict is mostly in run order already: sorted (stably, by run number) only when it is not.
  let byRun: number[] | undefined;
  if (!sorted) {
    byRun = tags.map((_, i) => i);
    byRun.sort((a, b) => Number((rets[a] as Ret).__run_num__ ?? 0) - Number((rets[b] as Ret).__run_num__ ?? 0));
  }
  const idMode = mode.endsWith('_id');
  const terse = mode.startsWith('terse');
  const mixed = mode.startsWith('mixed');
  const changesMode = mode.startsWith('changes');
  let ok = 0;
  let failed = 0;
  let none = 0;
  let changed = 0;
  let total = 0;
  for (let j = 0; j < tags.length; j++) {
    const at = byRun === undefined ? j : (byRun[j] as number);
    const tag = tags[at] as string;
    const ret = rets[at] as Ret;
    if (ret.result === true) ok++;
    else if (ret.result === false) failed++;
    else none++;
    if (typeof ret.duration === 'number') total += ret.duration;
    const schanged = !noChanges(ret.changes);
    if (schanged) changed++;
    if (!verbose && ret.result && !schanged) continue;
    let tcolor = schanged ? c.CYAN : c.GREEN;
    if (ret.result === false) hcolor = tcolor = c.RED;
    if (ret.result === null) hcolor = tcolor = c.LIGHT_YELLOW;
    const shownTag = idMode ? idTag(tag) : tag;
    if (terse || (mixed && ret.result !== false) || (changesMode && ret.result && !schanged)) {
      blocks.push(terseLine(shownTag, ret, schanged, tcolor, c));
      continue;
    }
    blocks.push(stateBlock(shownTag, ret, tcolor, c));
  }
  // Salt counts only the results it saw (True, False, None), so an empty run has no digits to fit.
  const counts = [ok, failed, none].filter((n) => n > 0);
  const countLen = counts.reduce((w, n) => Math.max(w, String(n).length), 0);
  const width = 9 + countLen + 2;
  const row = (label: string, n: number) => `${label}: ${String(n).padStart(width - (label.length + 2))}`;
  const stats = [...(none > 0 ? [fmt(c.LIGHT_YELLOW, `unchanged=${none}`)] : []), ...(changed > 0 ? [fmt(c.GREEN, `changed=${changed}`)] : [])];
  out.push(fmt(c.CYAN, `\nSummary for ${host}\n${'-'.repeat(width)}`));
  out.push(fmt(c.GREEN, row('Succeeded', ok + none)) + (stats.length > 0 ? ` (${stats.join(', ')})` : ''));
  out.push(fmt(failed ? c.RED : c.CYAN, row('Failed', failed)));
  out.push(fmt(c.CYAN, `${'-'.repeat(width)}\nTotal states run: ${String(tags.length).padStart(width - 7)}`));
  let sum = total;
  let unit = 'ms';
  if (sum > 999) {
    sum /= 1000;
    unit = 's';
  }
  out.push(fmt(c.CYAN, `Total run time: ${sum.toFixed(3).padStart(width - 5)} ${unit}`));
  return `${fmt(hcolor, `${host}:`)}\n${blocks.length > 0 ? `${blocks.join('\n')}\n` : ''}${out.join('\n')}`;
}
