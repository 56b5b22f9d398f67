/**
 * The files zapusk-tool keeps in a program instance's state dir, in its formats: params.txt (computed
 * params, ini), zapusk.conf (where the instance came from), params.sh (params for shell scripts).
 */
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
