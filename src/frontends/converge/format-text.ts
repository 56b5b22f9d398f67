/**
 * Plan, apply and healthcheck results as Converge prints them: one block per node (id, Error, Messages,
 * Has Changes, Changes as "before" => "after"), laid out by a tabwriter, then the error sections and the
 * Summary. Blocks come in graph order (Converge's order is random). Plan shows a node whose values wait
 * for an apply as `ID output:  Unresolvable`, as the value-passing design has it.
 */
import { maskValues } from '../../core/redact.js';
import { type GraphNode, isDeferred, type NodeResult } from '../../core/model.js';
import { type Context, pathOf, resourceBlock, shownPath } from './format-resources.js';
import { goS, goV } from '../../lang/go/fmt.js';
import { tabwrite } from './tabwriter.js';
import type { ModuleInfo } from './types.js';

export type ConvergeMode = 'plan' | 'apply' | 'healthcheck';

interface Printable {
  readonly id: string;
  readonly error?: string;
  readonly warning?: string;
  readonly messages: readonly string[];
  readonly hasChanges: boolean;
  readonly changes: ReadonlyArray<readonly [string, string, string]>;
}

function str(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : String(v);
}

function indent(s: string): string {
  return `\t${s.replace(/\n/g, '\n\t')}`;
}

function diff(before: string, after: string): string {
  const b = before.trim();
  const a = after.trim();
  if (!b.includes('\n') && !a.includes('\n')) return `${JSON.stringify(b)}\t=>\t${JSON.stringify(a)}`;
  return `\n${indent(indent(`before:\n${before}\nafter:\n${after}`))}`;
}

function summarize(op: string, out: Record<string, unknown>, prefix: string): string | undefined {
  if (out[`${prefix}exitstatus`] === undefined) return undefined;
  return `${op} (returned: ${str(out[`${prefix}exitstatus`])})\n\t${str(out[`${prefix}stdout`])}\n\t${str(out[`${prefix}stderr`])}`;
}

function taskMessages(node: GraphNode, r: NodeResult): string[] {
  const out = r.outputs ?? {};
  const messages: string[] = [];
  const dir = node.params.dir;
  if (typeof dir === 'string' && dir !== '') messages.push(`dir (${dir})`);
  const env = node.params.env;
  if (env && typeof env === 'object' && Object.keys(env).length > 0) {
    const shown = (node.meta?.renderedEnv ?? {}) as Record<string, unknown>;
    const pairs = Object.entries(env as Record<string, unknown>).map(([k, v]) => `${k}=${str(isDeferred(v) ? shown[k] : v)}`);
    messages.push(`env (${pairs.sort().join(' ')})`);
  }
  for (const m of [summarize('check', out, 'check.'), summarize('apply', out, 'apply.')]) if (m !== undefined) messages.push(m);
  return messages;
}

function printable(node: GraphNode, r: NodeResult, ctype: string, mode: ConvergeMode, context: Context = {}): Printable {
  const base: { id: string; error?: string } = r.result === false ? { id: r.id, error: r.comment } : { id: r.id };
  const hasChanges = r.status === 'pending' || r.status === 'changed' || (r.result === false && mode !== 'plan');
  const out = r.outputs ?? {};
  const skipped = node.meta?.skipped;
  if (typeof skipped === 'string') return { ...base, messages: ['Skipping check; short-circuited in conditional', `predicate: ${skipped}`], hasChanges: false, changes: [] };
  if (ctype === 'macro.switch' || ctype === 'macro.case') return { ...base, messages: [], hasChanges: false, changes: [] };
  // A value that could not be rendered once it was known: the node never ran.
  if (r.result === false && r.comment.startsWith('cannot render ')) return { ...base, messages: [], hasChanges: false, changes: [] };
  const block = resourceBlock(node, r, ctype, mode, context);
  if (block) return { id: r.id, ...block };
  if (node.type === 'task') {
    if (r.result !== false) return { ...base, messages: taskMessages(node, r), hasChanges, changes: [] };
    // A check that could not run is the node's error and leaves it without changes; a failed apply
    // leaves the changes in place, which Converge reports as the node still having changes.
    const applied = mode === 'apply' && out['check.exitstatus'] !== undefined;
    const why = node.params.query === true ? ': query apply called but it should never have changes' : '';
    return { id: r.id, error: applied ? `${r.id} still has changes after apply${why}` : r.comment, messages: taskMessages(node, r), hasChanges: applied, changes: [] };
  }
  if (ctype === 'file.content') return fileContent(node, r, mode, hasChanges);
  const changes = Object.entries(r.changes).map(([k, v]): [string, string, string] => [k, '', typeof v === 'string' ? v : JSON.stringify(v)]);
  return { ...base, messages: r.comment ? [r.comment] : [], hasChanges, changes };
}

/** A file.content block (the common one: built without copying a base object into it). */
function fileContent(node: GraphNode, r: NodeResult, mode: ConvergeMode, hasChanges: boolean): Printable {
  const out = r.outputs ?? {};
  const path = shownPath(node, pathOf(node, r));
  if (r.result === false && / is a directory$/.test(r.comment)) {
    const error = mode === 'apply' ? `${r.id} still has changes after apply: open ${path}: is a directory` : `cannot update contents of ${JSON.stringify(path)}, it is a directory`;
    return { id: r.id, error, messages: [`${path} is a directory`], hasChanges: true, changes: [] };
  }
  if (r.result === false && mode === 'apply' && /^Parent directory .* is not present/.test(r.comment)) {
    const error = `${r.id} still has changes after apply: open ${path}: no such file or directory`;
    return { id: r.id, error, messages: [`${path}: File is missing`], hasChanges: true, changes: [[path, '<file-missing>', str(node.params.content)]] };
  }
  const created = out.previous_content === undefined && (r.changes.newfile !== undefined || r.changes.diff === 'New file');
  const changes: Array<[string, string, string]> = [];
  // A secret file's contents are shown by their hash only (its outputs keep nothing else).
  const content = (k: string): string => (node.secret ? (out[`${k}_sha256`] === undefined ? '' : `sha256 ${str(out[`${k}_sha256`])}…`) : str(out[k]));
  if (hasChanges) changes.push([path, created ? '<file-missing>' : content('previous_content'), content('content')]);
  if (mode === 'apply' && created && hasChanges) changes.push(['mode', 'not set', str(out.mode)]);
  let messages: string[] = [];
  // An apply prints the check's words for a file it left alone.
  if (mode !== 'apply' || !hasChanges) messages = [!hasChanges ? 'OK' : created ? `${path}: File is missing` : 'contents differ'];
  return r.result === false ? { id: r.id, error: r.comment, messages, hasChanges, changes } : { id: r.id, messages, hasChanges, changes };
}

/** No tab (which would make a cell) and no newline (which indent would follow with a tab). */
const PLAIN_LINE = /^[^\t\n]*$/;

/**
 * A file.content node found in its state, not skipped, whose id is one plain line: its block is the
 * id, the message OK, no changes (what fileContent and drawNode give it in every mode).
 */
function isPlainOk(node: GraphNode, r: NodeResult): boolean {
  return r.status === 'ok' && r.result === true && typeof node.meta?.skipped !== 'string' && PLAIN_LINE.test(r.id);
}

function drawNode(p: Printable): string {
  // A block without changes, error or warning has no cell before a tab: the tabwriter turns each tab
  // into one space, which is written here at once.
  if (!p.error && !p.warning && p.changes.length === 0 && PLAIN_LINE.test(p.id) && p.messages.every((m) => PLAIN_LINE.test(m))) {
    let plain = `${p.id}:\n Messages:`;
    for (const m of p.messages) plain += `\n  ${m}`;
    return `${plain}\n Has Changes: ${p.hasChanges ? 'yes' : 'no'}\n Changes: No changes\n\n`;
  }
  let s = `${p.id}:`;
  if (p.error) s += `\n\tError: ${p.error}`;
  if (p.warning) s += `\n\tWarning: ${p.warning}`;
  s += '\n\tMessages:';
  for (const m of p.messages) s += `\n\t${indent(m)}`;
  s += `\n\tHas Changes: ${p.hasChanges ? 'yes' : 'no'}\n\tChanges:`;
  if (p.changes.length === 0) s += ' No changes';
  const sorted = p.changes.length > 1 ? [...p.changes].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)) : p.changes;
  for (const [k, before, after] of sorted) s += `\n\t\t${k}:\t${diff(before, after)}`;
  return tabwrite(`${s}\n\n`);
}

/** The requisite that made the runtime skip a node, from its comment. */
function failedDependency(r: NodeResult): string {
  const m = /requisite failed: (.*)$/.exec(r.comment);
  return (m?.[1] ?? '').split(', ')[0] ?? '';
}

/**
 * Converge's module nodes wait for the nodes inside them: a module with a failed node (or failed module)
 * directly inside fails too, naming it. Innermost modules first; the root is not reported.
 */
function failedModules(failed: readonly string[], moduleIds: readonly string[]): string[] {
  const out: string[] = [];
  const known = new Set(moduleIds);
  // The module an id sits directly in: its longest prefix (up to a `/`) that is a module.
  const parentOf = (id: string): string | undefined => {
    for (let k = id.lastIndexOf('/'); k > 0; k = id.lastIndexOf('/', k - 1)) {
      const prefix = id.slice(0, k);
      if (known.has(prefix)) return prefix;
    }
    return undefined;
  };
  // For each module, the first failed id (in the order they failed) directly inside it.
  const firstInside = new Map<string, string>();
  const fail = (id: string) => {
    const parent = parentOf(id);
    if (parent !== undefined && !firstInside.has(parent)) firstInside.set(parent, id);
  };
  for (const id of new Set(failed)) fail(id);
  const depth = (m: string) => m.split('/').length;
  const modules = moduleIds.filter((m) => m !== 'root').sort((a, b) => depth(b) - depth(a));
  for (const m of modules) {
    const inner = firstInside.get(m);
    if (inner === undefined) continue;
    out.push(`${m}: error in dependency ${JSON.stringify(inner)}`);
    fail(m);
  }
  return out;
}

/** Every module id that holds one of `ids` (at any depth). */
function holders(ids: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const id of ids) for (let k = id.lastIndexOf('/'); k > 0; k = id.lastIndexOf('/', k - 1)) out.add(id.slice(0, k));
  return out;
}

/** A node that depends on a module is stopped by the module, which Converge names. */
function dependencyShown(id: string, dep: string, options: FormatOptions): string {
  const viaModule = (options.moduleDeps?.get(id) ?? []).filter((m) => dep.startsWith(`${m}/`));
  return viaModule.sort((a, b) => b.length - a.length)[0] ?? dep;
}

export interface FormatOptions extends Context {
  /** Every module id (`root`, `root/module.m`, ...). */
  readonly moduleIds?: readonly string[];
  /** For each node, the modules it names in `depends`. */
  readonly moduleDeps?: ReadonlyMap<string, readonly string[]>;
  readonly onlyShowChanges?: boolean;
  /** Blocks of the root, module and param nodes, shown by `--show-meta` (see metaBlocks). */
  readonly meta?: readonly Printable[];
}

/**
 * The root, module and param nodes as Converge prints them with `--show-meta`: a module lists the values
 * its caller passed (the root: those given with `-p`) as `name: value` lines, a param shows its value.
 */
export function metaBlocks(modules: readonly ModuleInfo[]): Printable[] {
  const out: Printable[] = [];
  for (const m of modules) {
    // A sensitive param's value, and what a module was given from one, read `********`.
    out.push({ id: m.id, messages: [maskValues(m.given.map(([k, v]) => `${k}: ${goS(v, 'hcl')}`).join('\n'), m.secrets)], hasChanges: false, changes: [] });
    for (const [name, value] of m.params) out.push({ id: `${m.id}/param.${name}`, messages: [maskValues(goV(value), m.secrets)], hasChanges: false, changes: [] });
  }
  return out;
}

/** Plan or apply output, from the leading empty line through the Summary. */
export function formatRun(nodes: readonly GraphNode[], results: readonly NodeResult[], types: ReadonlyMap<string, string>, mode: ConvergeMode, options: FormatOptions = {}): string {
  return formatRunReport(nodes, results, types, mode, options).text;
}

/** The output and the number of nodes it shows with an error (Converge exits 1 when there is one). */
export function formatRunReport(nodes: readonly GraphNode[], results: readonly NodeResult[], types: ReadonlyMap<string, string>, mode: ConvergeMode, options: FormatOptions = {}): { text: string; errors: number } {
  // A run of independent nodes gives their results in graph order: then each node's is at its place.
  let aligned = results.length === nodes.length;
  for (let i = 0; aligned && i < nodes.length; i++) aligned = (results[i] as NodeResult).id === (nodes[i] as GraphNode).id;
  const byId = new Map<string, NodeResult>();
  if (!aligned) for (let i = 0; i < results.length; i++) byId.set((results[i] as NodeResult).id, results[i] as NodeResult);
  let body = '';
  const errors: string[] = [];
  const depErrors: string[] = [];
  let changes = 0;
  let unresolvable = 0;
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i] as GraphNode;
    const r = aligned ? (results[i] as NodeResult) : byId.get(node.id);
    if (!r) continue;
    if (r.status === 'skipped' && r.result === false) {
      depErrors.push(`${r.id}: error in dependency ${JSON.stringify(dependencyShown(r.id, failedDependency(r), options))}`);
      continue;
    }
    if (r.status === 'unresolvable') {
      // Not counted as a change: the trailing line says these may change.
      unresolvable++;
      body += `${r.id} output:  Unresolvable\n\n`;
      continue;
    }
    const ctype = types.get(node.id) ?? '';
    if (ctype === 'file.content' && isPlainOk(node, r)) {
      // What printable and drawNode make of it, written at once.
      if (!options.onlyShowChanges) body += `${r.id}:\n Messages:\n  OK\n Has Changes: no\n Changes: No changes\n\n`;
      continue;
    }
    const p = printable(node, r, ctype, mode, options);
    if (p.error !== undefined) errors.push(`${r.id}: ${p.error}`);
    else if (p.hasChanges) changes++;
    if (options.onlyShowChanges && !p.hasChanges) continue;
    body += drawNode(p);
  }
  // A module waits for the nodes inside it, so one failing there fails it too: Converge leaves it out.
  for (const e of failedModules([...errors, ...depErrors].map((e) => e.slice(0, e.indexOf(': '))), options.moduleIds ?? [])) depErrors.push(e);
  const holdingFailed = holders([...errors, ...depErrors].map((e) => e.slice(0, e.indexOf(': '))));
  for (const p of options.meta ?? []) {
    const isModule = !/\/param\.[^/]*$/.test(p.id);
    if (options.onlyShowChanges || (isModule && holdingFailed.has(p.id))) continue;
    body += drawNode(p);
  }
  let tail = '';
  if (errors.length > 0) tail += `Errors:\n${errors.map((e) => ` * ${e}\n`).join('')}\n`;
  if (depErrors.length > 0) tail += `Failed due to failing dependency:\n${depErrors.map((e) => ` * ${e}\n`).join('')}\n`;
  tail += `Summary: ${errors.length} errors, ${changes} changes${depErrors.length > 0 ? `, ${depErrors.length} dependency errors` : ''}\n`;
  if (unresolvable > 0) tail += `${unresolvable} node(s) depend on effectful results and may change\n`;
  // What a secret node's own params hold (a command, a content) never shows, wherever a line quotes it.
  const secretSet = new Set<string>();
  for (let i = 0; i < nodes.length; i++) {
    const secret = (nodes[i] as GraphNode).secret;
    if (secret) for (const v of secret.values) secretSet.add(v);
  }
  const secrets = [...secretSet];
  return { text: maskValues(`\n${body}${tail}`, secrets), errors: errors.length + depErrors.length };
}

export { drawNode, printable, type Printable };
