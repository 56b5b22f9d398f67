/** Jinja filters Salt adds to its environment (the ones formulas use most); values are plain JS here. */

import { createHash } from 'node:crypto';
import type { FilterFn } from '../../../lang/jinja/index.js';
import { Markup, PyTuple } from '../../../lang/jinja/pyvalue.js';
import { jsonDumps } from '../../../lang/jinja/serialize.js';
import { loadSaltYaml, yaml } from './yaml-load.js';

const s = (v: unknown): string => (typeof v === 'string' ? v : String(v));

function toBool(v: unknown): boolean {
  if (v === null || v === undefined) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v > 0;
  if (typeof v === 'string') return ['true', 'yes', '1', 'on'].includes(v.toLowerCase());
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return false;
}

/** A regex flag set from Python's `ignorecase`/`multiline` keyword arguments (passed as a trailing object). */
function flags(kw: unknown): string {
  const o = (typeof kw === 'object' && kw !== null ? kw : {}) as Record<string, unknown>;
  return (o.ignorecase ? 'i' : '') + (o.multiline ? 'm' : '');
}

export const SALT_FILTERS: Record<string, (...args: unknown[]) => unknown> = {
  to_bool: (v) => toBool(v),
  load_yaml: (v) => {
    const r = loadSaltYaml(s(v));
    if (!r.ok) throw new Error(`load_yaml: ${r.failure.message}`);
    return r.data;
  },
  load_json: (v) => JSON.parse(s(v)),
  yaml_encode: (v) => (typeof v === 'string' ? JSON.stringify(v) : yaml().stringify(v, { flow: true }).trimEnd()),
  yaml_dquote: (v) => JSON.stringify(s(v)),
  yaml_squote: (v) => `'${s(v).replace(/'/g, "''")}'`,
  regex_replace: (v, pattern, repl, kw) => s(v).replace(new RegExp(s(pattern), `g${flags(kw)}`), s(repl).replace(/\\(\d)/g, '$$$1')),
  regex_search: (v, pattern, kw) => {
    const m = new RegExp(s(pattern), flags(kw)).exec(s(v));
    return m ? new PyTuple(m.slice(1).map((g) => g ?? null)) : null;
  },
  regex_match: (v, pattern, kw) => {
    const m = new RegExp(`^(?:${s(pattern)})`, flags(kw)).exec(s(v));
    return m ? new PyTuple(m.slice(1).map((g) => g ?? null)) : null;
  },
  md5: (v) => createHash('md5').update(s(v)).digest('hex'),
  sha256: (v) => createHash('sha256').update(s(v)).digest('hex'),
  sha512: (v) => createHash('sha512').update(s(v)).digest('hex'),
  base64_encode: (v) => Buffer.from(s(v)).toString('base64'),
  base64_decode: (v) => Buffer.from(s(v), 'base64').toString('utf8'),
  sequence: (v) => (Array.isArray(v) ? v : [v]),
  is_list: (v) => Array.isArray(v),
  quote: (v) => `'${s(v).replace(/'/g, `'"'"'`)}'`,
};

/** Filters working on Python values: Salt's tojson keeps the dict order (no sort_keys) and escapes for HTML. */
export const SALT_PY_FILTERS: Record<string, FilterFn> = {
  tojson: (_h, v, args, kwargs) => {
    const indent = (args[0] ?? kwargs.get('indent') ?? null) as number | null;
    const text = jsonDumps(v, { sortKeys: false, indent, ensureAscii: true });
    return new Markup(text.replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/'/g, '\\u0027'));
  },
};
