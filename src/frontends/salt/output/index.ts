/** salt-call's outputters: highstate text, json (`json.dumps(indent=4)`) and yaml, all under the `local` key. */
import { formatHighstate } from './highstate.js';
import { nested } from './nested.js';
import { pyFloat } from './pyvalue.js';
import { dumpYaml } from './pyyaml.js';

export { formatHighstate } from './highstate.js';

export type OutputFormat = 'highstate' | 'json' | 'yaml' | 'nested' | 'pprint' | 'txt' | 'quiet' | 'raw';

/** How the highstate outputter prints (salt-call's --state-output, --state-verbose, colour). */
export interface OutputSettings {
  readonly stateOutput: string;
  readonly stateVerbose: boolean;
  readonly color: boolean;
}

/** Keys whose numbers Python holds as floats. */
const FLOAT_KEYS = new Set(['duration']);

function jsonString(s: string): string {
  // Python's json.dumps escapes every non-ASCII character (ensure_ascii).
  return JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function pyJson(v: unknown, indent: number, key?: string): string {
  const pad = ' '.repeat(indent + 4);
  const end = ' '.repeat(indent);
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number') return key !== undefined && FLOAT_KEYS.has(key) ? pyFloat(v) : Number.isFinite(v) ? String(v) : 'NaN';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'string') return jsonString(v);
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return `[\n${v.map((x) => pad + pyJson(x, indent + 4)).join(',\n')}\n${end}]`;
  }
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
    if (entries.length === 0) return '{}';
    return `{\n${entries.map(([k, x]) => `${pad}${jsonString(k)}: ${pyJson(x, indent + 4, k)}`).join(',\n')}\n${end}}`;
  }
  return jsonString(String(v));
}

export function formatJson(local: unknown): string {
  return pyJson({ local }, 0);
}

/** salt-call strips the outputter's text at the end (try_printout's rstrip) and prints one newline. */
export function formatYaml(local: unknown): string {
  return dumpYaml({ local }).replace(/\s+$/, '');
}

/** For a state run (dict of results) or a compile error (list of strings). */
export function formatRun(local: Record<string, unknown> | string[], out: OutputFormat, _settings?: OutputSettings): string {
  if (out === 'json') return formatJson(local);
  if (out === 'yaml') return formatYaml(local);
  if (out === 'nested') return formatNestedLocal(local);
  return formatHighstate(local);
}

/** For show_* functions: salt-call prints their data with the nested outputter when asked for highstate. */
export function formatData(local: unknown, out: OutputFormat, _settings?: OutputSettings): string {
  if (out === 'yaml') return formatYaml(local);
  if (out === 'json') return formatJson(local);
  return formatNestedLocal(local);
}

function formatNestedLocal(local: unknown): string {
  return `local:\n${nested(local, 4)}`;
}
