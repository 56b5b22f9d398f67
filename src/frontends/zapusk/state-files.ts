/**
 * The files zapusk-tool keeps in a program instance's state dir, in its formats: params.txt (computed
 * params, ini), zapusk.conf (where the instance came from), params.sh (params for shell scripts).
 */
import type { Step } from './program.js';
import type { Value } from './reader.js';

/** ini lines; a multi-line value is written in the `key="` … `"` form the reader understands. */
export function formatIni(values: ReadonlyMap<string, Value>): string {
  let out = '';
  for (const [k, v] of values) {
    const s = String(v);
    out += s.includes('\n') ? `${k}="\n${s}\n"\n` : `${k}=${s}\n`;
  }
  return out;
}

/** Ruby's Shellwords.escape: every character outside a safe set gets a backslash. */
export function shellEscape(s: string): string {
  if (s === '') return "''";
  return s.replace(/[^A-Za-z0-9_\-.,:+/@\n]/g, '\\$&').replace(/\n/g, "'\n'");
}

/** `name=value` lines a shell can source; names made shell-safe. */
export function formatShell(values: ReadonlyMap<string, Value>): string {
  let out = '';
  for (const [k, v] of values) out += `${k.replace(/[^\w]/g, '_')}=${shellEscape(String(v))}\n`;
  return out;
}

/** zapusk-tool's global_name rule: every non-word character becomes `-`, leading dashes go. */
export function globalNameOf(prefix: string, name: string): string {
  const path = prefix.length > 0 ? `${prefix}/${name}` : name;
  return path.replace(/[^\w]/g, '-').replace(/^-+/, '');
}

/** Ruby's File.join: parts joined by one `/`, nothing else normalised (`a/../b` stays as written). */
export function rubyJoin(...parts: string[]): string {
  return parts.reduce((acc, p) => (acc === '' ? p : `${acc.replace(/\/+$/, '')}/${p.replace(/^\/+/, '')}`), '');
}

/** Ruby's String#inspect. */
function inspectString(s: string): string {
  const body = s.replace(/[\\"\n\t\r\x1b]|#(?=[{$@])|[\x00-\x1f\x7f]/g, (c) => {
    const named: Record<string, string> = { '\\': '\\\\', '"': '\\"', '\n': '\\n', '\t': '\\t', '\r': '\\r', '\x1b': '\\e', '#': '\\#' };
    return named[c] ?? `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
  });
  return `"${body}"`;
}

/**
 * A step as zapusk-tool holds it, in Ruby's inspect: `{"name"=>"os", "apply"=>"…", "_component_name"=>"web",
 * "type"=>"os"}` (the section name first, the keys as written, the component, then the type if not given).
 */
export function inspectStep(step: Step, component: string): string {
  const entries: [string, Value][] = [['name', step.params.get('name')?.value ?? step.id]];
  for (const [k, p] of step.params) if (k !== 'name') entries.push([k, p.value]);
  entries.push(['_component_name', component]);
  if (!step.params.has('type')) entries.push(['type', step.params.get('name')?.value ?? step.id]);
  return `{${entries.map(([k, v]) => `${inspectString(k)}=>${v === true ? 'true' : inspectString(v)}`).join(', ')}}`;
}
