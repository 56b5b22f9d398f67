/**
 * Node blocks of the resources Converge reports with its own words: file.directory (one change per missing
 * path component), file.mode, file.owner, file.fetch, unarchive, wait.query, wait.port and
 * systemd.unit.state. Each takes the shared kind's result and says it as Converge does.
 */
import { resolve } from 'node:path';
import type { GraphNode, NodeResult } from '../../core/model.js';
import { permString } from '../../resources/chmod/index.js';
import type { ConvergeMode } from './format-text.js';

export interface Block {
  readonly error?: string;
  readonly warning?: string;
  readonly messages: readonly string[];
  readonly hasChanges: boolean;
  readonly changes: ReadonlyArray<readonly [string, string, string]>;
}

export interface Context {
  /** For file.directory nodes: the components of the destination missing before the run, outermost first. */
  readonly missingDirs?: ReadonlyMap<string, readonly string[]>;
  /** For file.directory nodes whose destination runs through a file that is not a directory: that destination. */
  readonly blockedDirs?: ReadonlyMap<string, string>;
}

function str(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : String(v);
}

function lines(text: string): string[] {
  return text === '' ? [] : text.split('\n');
}

/** `{key: {old, new}}` change records as sorted change lines. */
function oldNew(changes: Record<string, unknown>): Array<[string, string, string]> {
  return Object.entries(changes)
    .filter(([, v]) => typeof v === 'object' && v !== null && 'new' in v)
    .map(([k, v]): [string, string, string] => [k, str((v as { old?: unknown }).old), str((v as { new?: unknown }).new)])
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/** The node's path: its param, or for a path that came from a lookup, the value the run resolved it to. */
export function pathOf(node: GraphNode, r: NodeResult): string {
  const p = node.params.path ?? node.params.destination;
  if (typeof p === 'string') return p;
  const out = r.outputs?.path ?? r.outputs?.destination;
  return typeof out === 'string' ? out : str(p);
}

/**
 * A path as the user wrote it: Converge prints a relative destination as given, while the node acts on it
 * resolved against the working directory. `full` is the resolved path or one of its ancestors.
 */
export function shownPath(node: GraphNode, full: string): string {
  const given = node.meta?.destination ?? (node.meta?.rendered as { value?: string } | undefined)?.value;
  const out = node.params.path ?? node.params.destination;
  // A destination from a lookup was resolved against the working directory when it was rendered.
  const resolved = typeof out === 'string' ? out : typeof given === 'string' ? resolve(given) : str(out);
  if (typeof given !== 'string' || given === resolved || given.startsWith('/') || !resolved.endsWith(given)) return full;
  const cut = resolved.length - given.length;
  return full.length > cut && full.startsWith(resolved.slice(0, cut)) ? full.slice(cut) : full;
}

function afterApply(r: NodeResult, why: string | undefined): string {
  return why === undefined || why === '' ? `${r.id} still has changes after apply` : `${r.id} still has changes after apply: ${why}`;
}

function shellLines(label: string, out: Record<string, unknown>, prefix: string): string {
  return `${label} (returned: ${str(out[`${prefix}exitstatus`])})\n\t${str(out[`${prefix}stdout`])}\n\t${str(out[`${prefix}stderr`])}`;
}

function directory(node: GraphNode, r: NodeResult, mode: ConvergeMode, c: Context): Block {
  const path = shownPath(node, pathOf(node, r));
  const missing = (c.missingDirs?.get(node.id) ?? []).map((d) => shownPath(node, d));
  const createAll = node.params.makedirs === true;
  const blocked = c.blockedDirs?.get(node.id);
  // Converge's own text, with the argument its format string lacks.
  if (blocked !== undefined) return { error: `could not stat %!q(MISSING): stat ${shownPath(node, blocked)}: not a directory`, messages: [], hasChanges: false, changes: [] };
  if (missing.length > 1 && !createAll) {
    const parent = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) || '/' : '.';
    const message = `${JSON.stringify(parent)} does not exist and will not be created (enable create_all to do this)`;
    const error = mode === 'apply' ? afterApply(r, `mkdir ${path}: no such file or directory`) : 'resource cannot change because of an error';
    return { error, messages: [message], hasChanges: true, changes: [] };
  }
  if (r.result === false && /^Specified location .* exists and is /.test(r.comment)) {
    const error = mode === 'apply' ? afterApply(r, `mkdir ${path}: file exists`) : 'resource cannot change because of an error';
    return { error, messages: [`${JSON.stringify(path)} already exists and is not a directory`], hasChanges: true, changes: [] };
  }
  if (r.result === false) return { error: mode === 'apply' ? afterApply(r, r.comment) : r.comment, messages: [], hasChanges: true, changes: [] };
  const hasChanges = r.status === 'pending' || r.status === 'changed';
  if (!hasChanges) return { messages: [`${JSON.stringify(path)} already exists`], hasChanges: false, changes: [] };
  if (mode === 'apply') return { messages: [`${JSON.stringify(path)} exists`], hasChanges: true, changes: [] };
  const dirs = missing.length > 0 ? missing : [path];
  return { messages: [], hasChanges: true, changes: dirs.map((d): [string, string, string] => [d, '<absent>', '<present>']) };
}

function modeBlock(node: GraphNode, r: NodeResult, mode: ConvergeMode): Block {
  const path = shownPath(node, pathOf(node, r));
  const out = r.outputs ?? {};
  const wanted = Number.parseInt(str(node.params.mode), 8) & 0o777;
  if (out.missing === true) {
    const base = { warning: `${JSON.stringify(path)} does not exist`, messages: [], hasChanges: true, changes: [[path, permString(0), permString(wanted)] as const] };
    return mode === 'apply' && r.result === false ? { ...base, error: afterApply(r, r.comment.replaceAll(pathOf(node, r), path)) } : base;
  }
  if (r.result === false) return { error: mode === 'apply' ? afterApply(r, r.comment) : r.comment, messages: [], hasChanges: true, changes: [] };
  const resolved = pathOf(node, r);
  const messages = Array.isArray(out.messages) ? out.messages.map((m) => str(m).replaceAll(JSON.stringify(resolved), JSON.stringify(path))) : [];
  const hasChanges = r.status === 'pending' || r.status === 'changed';
  // Converge shows the mode line even when nothing changes; after an apply both sides are the new mode.
  return { messages, hasChanges, changes: [[path, str(r.status === 'pending' ? out.mode : out.wanted), str(out.wanted)]] };
}

function owner(node: GraphNode, r: NodeResult, mode: ConvergeMode): Block {
  const path = shownPath(node, pathOf(node, r));
  const out = r.outputs ?? {};
  if (out.missing === true || (r.result === false && mode === 'apply')) {
    const messages = [`${path}: does not exist; will re-attempt during apply`];
    const why = r.comment.replaceAll(pathOf(node, r), path);
    if (r.result === false) return { error: mode === 'apply' ? afterApply(r, why) : why, messages, hasChanges: true, changes: [] };
    return { messages, hasChanges: true, changes: [] };
  }
  if (r.result === false) return { error: r.comment, messages: [], hasChanges: true, changes: [] };
  const recursive = node.params.recursive === true;
  const hasChanges = r.status === 'pending' || r.status === 'changed';
  const messages: string[] = [];
  if (recursive) messages.push('Recursive: True');
  messages.push(mode === 'apply' && hasChanges ? `Updating permissions on file(s) at: ${path}` : `Checking file ownership at: ${path}`);
  let changes = hasChanges ? oldNew(r.changes).map(([k, b, a]): [string, string, string] => [shownPath(node, k), b, a]) : [];
  if (hasChanges && recursive && node.meta?.verbose !== true) {
    messages.push('reporting abridged changes; add "verbose = true" to see all changes');
    changes = [[path, '*', str(out.wanted)]];
  }
  return { messages, hasChanges, changes };
}

const MISMATCH = 'will not attempt fetch: checksum mismatch';

function fetch(node: GraphNode, r: NodeResult, mode: ConvergeMode, ctype: string): Block {
  const missingSource = /^failed to fetch: source (.*) does not exist$/.exec(r.comment);
  if (r.result === false && missingSource && ctype === 'file.fetch') {
    // Converge stats the source first and keeps the change it planned.
    const why = `failed to fetch: source path error: stat ${missingSource[1]}: no such file or directory`;
    return { error: mode === 'apply' ? afterApply(r, why) : why, messages: [], hasChanges: true, changes: [['destination', '<absent>', str(node.params.destination)]] };
  }
  if (r.result === false) {
    const messages = r.comment === MISMATCH ? ['checksum mismatch, use the "force" option to replace'] : [];
    return { error: mode === 'apply' ? afterApply(r, r.comment) : r.comment, messages, hasChanges: true, changes: [] };
  }
  const hasChanges = r.status === 'pending' || r.status === 'changed';
  const changes = hasChanges ? oldNew(r.changes) : [];
  if (ctype === 'unarchive') return { messages: lines(r.comment), hasChanges, changes };
  return { messages: lines(r.comment), hasChanges, changes };
}

function wait(node: GraphNode, r: NodeResult, mode: ConvergeMode, ctype: string): Block {
  const out = r.outputs ?? {};
  const hasChanges = r.status === 'pending' || r.status === 'changed' || r.result === false;
  const attempts = Array.isArray(out.attempts) ? (out.attempts as Array<Record<string, unknown>>) : [];
  if (ctype === 'wait.port') {
    // Without a host converge dials ":PORT" (this machine); cairn's wait dials localhost.
    const host = node.params.host === undefined ? '' : str(node.params.host);
    const where = `${host}:${str(node.params.port)}`;
    const said = (e: string): string => (node.params.host === undefined ? e.replaceAll(`dial tcp localhost:${str(node.params.port)}`, `dial tcp ${where}`) : e);
    const messages: string[] = [];
    if (mode === 'apply' && r.status === 'changed') messages.push(`Passed after ${str(out.retries)} retries (${str(out.duration)}s)`);
    else if (typeof out['check.error'] === 'string') messages.push(`Failed to connect to ${where}: ${said(out['check.error'])}`);
    if (mode === 'apply' && r.result === false) {
      const last = attempts[attempts.length - 1];
      if (last && typeof last.error === 'string') messages.splice(0, messages.length, `Failed to connect to ${where}: ${said(last.error)}`);
      messages.push(`Failed after ${str(out.retries)} retries (0s)`);
    }
    return { ...(r.result === false && mode === 'apply' ? { error: afterApply(r, undefined) } : r.result === false ? { error: r.comment } : {}), messages, hasChanges, changes: [] };
  }
  const messages: string[] = [];
  if (mode === 'apply' && r.status === 'changed') messages.push(`Passed after ${str(out.retries)} retries (${str(out.duration)}s)`);
  else {
    if (out['check.exitstatus'] !== undefined) messages.push(shellLines('check', out, 'check.'));
    if (mode === 'apply') attempts.forEach((a, i) => messages.push(shellLines(`check ${i}`, a, '')));
  }
  return { ...(r.result === false && mode === 'apply' ? { error: afterApply(r, undefined) } : r.result === false ? { error: r.comment } : {}), messages, hasChanges, changes: [] };
}

/** The block of a node of one of these types, or undefined for the others. */
export function resourceBlock(node: GraphNode, r: NodeResult, ctype: string, mode: ConvergeMode, c: Context): Block | undefined {
  switch (ctype) {
    case 'file.directory':
      return directory(node, r, mode, c);
    case 'file.mode':
      return modeBlock(node, r, mode);
    case 'file.owner':
      return owner(node, r, mode);
    case 'file.fetch':
    case 'unarchive':
      return fetch(node, r, mode, ctype);
    case 'wait.query':
    case 'wait.port':
      return wait(node, r, mode, ctype);
    case 'systemd.unit.state': {
      const hasChanges = r.status === 'pending' || r.status === 'changed' || r.result === false;
      return { ...(r.result === false ? { error: mode === 'apply' ? afterApply(r, r.comment) : r.comment } : {}), messages: lines(r.comment), hasChanges, changes: oldNew(r.changes) };
    }
    default:
      return undefined;
  }
}
