/** salt-call's outputters: highstate text, json (`json.dumps(indent=4)`) and yaml, all under the `local` key. */
import { type DataOrder, formatHighstate } from './highstate.js';
import { COLORS, nested, NO_COLORS } from './nested.js';
import { dumpYaml } from '../../../lang/python/yaml-emit.js';
import { PLAIN_DICTS } from './plain-dicts.js';
import { orderedHigh, orderedTop, pformat, PyOrderedDict, pyRepr, txtOutput } from './pprint.js';
import { PyFloat, pyFloat } from './pyvalue.js';

export { formatHighstate } from './highstate.js';

export type OutputFormat = 'highstate' | 'json' | 'yaml' | 'nested' | 'pprint' | 'txt' | 'quiet' | 'raw';

/** How the highstate outputter prints (salt-call's --state-output, --state-verbose, colour). */
export interface OutputSettings {
  readonly stateOutput: string;
  readonly stateVerbose: boolean;
  readonly color: boolean;
  /** `--out-indent`: the json outputter's indent (negative: one line). */
  readonly outIndent?: number;
}

/** Keys whose numbers Python holds as floats. */
const FLOAT_KEYS = new Set(['duration']);

function jsonString(s: string): string {
  // salt.utils.json.dumps turns ensure_ascii off: non-ASCII characters print as they are.
  return JSON.stringify(s);
}

/** json.dumps: `step` spaces per level (Salt's default 4), or everything on one line when null. */
function pyJson(v: unknown, indent: number, key?: string, step: number | null = 4): string {
  const pad = step === null ? '' : ' '.repeat(indent + step);
  const end = step === null ? '' : ' '.repeat(indent);
  const [open, sep, close] = step === null ? ['', ', ', ''] : ['\n', ',\n', '\n'];
  const deeper = indent + (step ?? 0);
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number') return key !== undefined && FLOAT_KEYS.has(key) ? pyFloat(v) : Number.isFinite(v) ? String(v) : 'NaN';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'string') return jsonString(v);
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return `[${open}${v.map((x) => pad + pyJson(x, deeper, undefined, step)).join(sep)}${close}${end}]`;
  }
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
    if (entries.length === 0) return '{}';
    return `{${open}${entries.map(([k, x]) => `${pad}${jsonString(k)}: ${pyJson(x, deeper, k, step)}`).join(sep)}${close}${end}}`;
  }
  return jsonString(String(v));
}

/** Salt's json outputter: indent 4, or `--out-indent N` (a negative N prints one line). */
export function formatJson(local: unknown, outIndent?: number): string {
  return pyJson({ local }, 0, undefined, outIndent === undefined ? 4 : outIndent < 0 ? null : outIndent);
}

/** salt-call strips the outputter's text at the end (try_printout's rstrip) and prints one newline. */
export function formatYaml(local: unknown, keepOrder?: (m: object) => boolean): string {
  const doc = { local };
  return dumpYaml(doc, { libyaml: true, ...(keepOrder ? { keepOrder: (m: object) => m !== doc && keepOrder(m) } : {}) }).replace(/\s+$/, '');
}

/** Pillar data as Salt holds it: mappings read from YAML are OrderedDicts, the ones marked plain are dicts. */
function orderedPillar(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(orderedPillar);
  if (v && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    const entries = Object.entries(v).map(([k, x]) => [k, orderedPillar(x)] as [string, unknown]);
    return PLAIN_DICTS.has(v) ? Object.fromEntries(entries) : new PyOrderedDict(entries);
  }
  return v;
}

/** salt-call's retcode for a state run is non-zero after a compile error, a failed state or an empty run. */
function runFailed(local: Record<string, unknown> | string[]): boolean {
  if (Array.isArray(local)) return true;
  const rets = Object.values(local);
  return rets.length === 0 || rets.some((r) => r !== null && typeof r === 'object' && (r as Record<string, unknown>).result === false);
}

/**
 * For a state run (dict of results) or a compile error (list of strings); `order`, the run's entries in
 * the dict's order when the run knows them.
 */
export function formatRun(local: Record<string, unknown> | string[], out: OutputFormat, settings?: OutputSettings, order?: DataOrder): string {
  if (out !== 'highstate') return formatData(local, out, settings, false, runFailed(local));
  return formatHighstate(local, 'local', settings ?? {}, order);
}

/**
 * Several minions' returns, as `salt '*'` prints them: the highstate text of each under its id (a minion
 * that gave nothing back shows Salt's message), or one document keyed by minion id (`--static`'s shape).
 */
export function formatMinions(byMinion: Record<string, unknown>, out: OutputFormat, settings?: OutputSettings, show: { show: boolean; ordered: false | 'high' | 'top' } = { show: false, ordered: false }): string {
  if (out === 'quiet') return '';
  if (out === 'json') return pyJson(byMinion, 0);
  if (out === 'yaml') return dumpYaml(byMinion).replace(/\s+$/, '');
  if (out === 'highstate' && !show.show) {
    return Object.entries(byMinion)
      .map(([id, data]) => (typeof data === 'string' ? `${id}:\n    ${data}` : formatHighstate(data as Record<string, unknown> | string[], id, settings ?? {})))
      .join('\n');
  }
  return Object.entries(byMinion)
    .map(([id, data]) => `${id}:\n${nested(data, 4, show.ordered !== false)}`)
    .join('\n');
}

/** For show_* functions: salt-call prints their data with the nested outputter when asked for highstate. */
/** `ordered`: the data is one of Salt's ordered dicts (high data, the top), which nested prints unsorted. */
/** Durations are Python floats: wrapped so that repr prints `1.0`, not `1`. */
function withFloats(v: unknown, key?: string): unknown {
  if (typeof v === 'number' && key !== undefined && FLOAT_KEYS.has(key)) return new PyFloat(v);
  if (Array.isArray(v)) return v.map((x) => withFloats(x));
  if (v && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withFloats(x, k)]));
  return v;
}

/** `ordered`: Salt holds the data in its ordered dict types ('high' data, the 'top'); the Python outputters show them. */
export function formatData(local: unknown, out: OutputFormat, settings?: OutputSettings, ordered: false | 'high' | 'top' | 'pillar' = false, failed = false): string {
  if (out === 'quiet') return '';
  if (ordered && (out === 'pprint' || out === 'raw' || out === 'txt')) local = ordered === 'high' ? orderedHigh(local) : ordered === 'top' ? orderedTop(local) : orderedPillar(local);
  if (out === 'pprint') return pformat({ local: withFloats(local) });
  if (out === 'raw') return pyRepr({ local: withFloats(local) });
  // txt ends each line with a newline, and salt-call strips the outputter's text before printing.
  if (out === 'txt') return txtOutput({ local: withFloats(local) }).replace(/\s+$/, '');
  // show_top's DefaultOrderedDict has no representer in Salt's safe dumper: it comes out as NULL.
  if (out === 'yaml' && ordered === 'top') return 'local: NULL';
  if (out === 'yaml') return formatYaml(local, ordered === 'pillar' ? (m) => !PLAIN_DICTS.has(m) : undefined);
  if (out === 'json') return formatJson(local, settings?.outIndent);
  return nested({ local }, 0, ordered !== false, settings?.color ? COLORS : NO_COLORS, failed);
}
