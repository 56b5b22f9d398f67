/** Jinja filters Salt adds to its environment (the ones formulas use most); values are plain JS here. */

import { createHash } from '../digest.js';
import { PyError } from '../../../lang/jinja/errors.js';
import { toJs, type FilterFn } from '../../../lang/jinja/index.js';
import { bindArgs } from '../../../lang/jinja/pymethods.js';
import { Markup, PyFloat, PyTuple, truthy } from '../../../lang/jinja/pyvalue.js';
import { jsonDumps, yamlFlow } from '../../../lang/jinja/serialize.js';
import { dumpYaml } from '../../../lang/python/yaml-emit.js';
import { deepEqual } from './deep-equal.js';
import { dateCast, pyStrftime } from './strftime.js';
import { loadSaltYaml, yaml } from './yaml-load.js';

const s = (v: unknown): string => (typeof v === 'string' ? v : String(v));

function toBool(v: unknown): boolean {
  if (v === null || v === undefined) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v > 0;
  if (typeof v === 'string') return ['true', 'yes', '1'].includes(v.toLowerCase());
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
  load_json: (v) => {
    try {
      return JSON.parse(s(v));
    } catch {
      throw new PyError('TemplateRuntimeError', `Unable to load json from ${s(v)}`);
    }
  },
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
  sha1: (v) => createHash('sha1').update(s(v)).digest('hex'),
  sha256: (v) => createHash('sha256').update(s(v)).digest('hex'),
  sha512: (v) => createHash('sha512').update(s(v)).digest('hex'),
  base64_encode: (v) => Buffer.from(s(v)).toString('base64'),
  base64_decode: (v) => Buffer.from(s(v), 'base64').toString('utf8'),
  // Lists, tuples, sets and dicts are sequences already; anything else is wrapped.
  sequence: (v) => (Array.isArray(v) || (typeof v === 'object' && v !== null) ? v : [v]),
  is_list: (v) => Array.isArray(v),
  flatten: (v, ...rest) => {
    const kw = (rest.length > 0 && isKw(rest[rest.length - 1]) ? rest.pop() : {}) as Record<string, unknown>;
    const levels = (rest[0] ?? kw.levels ?? null) as number | null;
    const keepNulls = Boolean(rest[1] ?? kw.preserve_nulls ?? false);
    return flatten(list(v), levels, keepNulls);
  },
  union: (a, b) => unique([...list(a), ...list(b)]),
  intersect: (a, b) => unique(list(a).filter((x) => list(b).some((y) => deepEqual(x, y)))),
  difference: (a, b) => unique(list(a).filter((x) => !list(b).some((y) => deepEqual(x, y)))),
  symmetric_difference: (a, b) =>
    unique([...list(a).filter((x) => !list(b).some((y) => deepEqual(x, y))), ...list(b).filter((y) => !list(a).some((x) => deepEqual(x, y)))]),
  sorted_ignorecase: (v) => [...list(v)].sort((a, b) => { const x = s(a).toLowerCase(); const y = s(b).toLowerCase(); return x < y ? -1 : x > y ? 1 : 0; }),
  to_snake_case: (v) => {
    const t = s(v);
    let out = (t[0] ?? '').toLowerCase();
    for (let i = 1; i < t.length; i++) {
      const c = t[i] as string;
      const upper = c !== c.toLowerCase() && c === c.toUpperCase();
      const isLower = (x: string | undefined): boolean => x !== undefined && x !== x.toUpperCase() && x === x.toLowerCase();
      if (upper && (isLower(t[i - 1]) || (i !== t.length - 1 && isLower(t[i + 1])))) out += '_';
      out += c.toLowerCase();
    }
    return out;
  },
  to_camelcase: (v, upper) => {
    const words = s(v).split('_');
    const cap = (w: string): string => (w ? w[0]!.toUpperCase() + w.slice(1).toLowerCase() : w);
    if (upper === true || (isKw(upper) && (upper as Record<string, unknown>).uppercamel)) words[0] = cap(words[0] ?? '');
    return (words[0] ?? '') + words.slice(1).map(cap).join('');
  },
  path_join: (...parts) => {
    // salt.utils.path.join: leading separators of the later parts are dropped, then os.path.join.
    const [first = '', ...rest] = parts.filter((x) => !isKw(x)).map(s);
    let out = first;
    for (const p of rest.map((x) => x.replace(/^\/+/, ''))) out = out === '' || out.endsWith('/') ? out + p : `${out}/${p}`;
    return out;
  },
  strftime: (v, format) => pyStrftime(dateCast(v), typeof format === 'string' ? format : '%Y-%m-%d'),
  date_format: (v, format) => pyStrftime(dateCast(v), typeof format === 'string' ? format : '%Y-%m-%d'),
  // Python 3.7+ re.escape: only the characters special in a regex are escaped.
  regex_escape: (v) => s(v).replace(/[()[\]{}?*+\-|^$\\.&~# \t\n\r\v\f]/g, (c) => `\\${c}`),
  // shlex.quote: strings of safe characters stay bare.
  quote: (v) => (s(v) !== '' && !/[^\w@%+=:,./-]/.test(s(v)) ? s(v) : `'${s(v).replace(/'/g, `'"'"'`)}'`),
};

const isKw = (x: unknown): boolean => typeof x === 'object' && x !== null && !Array.isArray(x);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : typeof v === 'string' ? [...v] : isKw(v) ? Object.keys(v as object) : [v]);
const unique = (v: unknown[]): unknown[] => v.filter((x, i) => v.findIndex((y) => deepEqual(x, y)) === i);

/** salt.utils.data.flatten: nested lists spliced in (down to `levels`), None and "None"/"null" dropped. */
function flatten(data: unknown[], levels: number | null, keepNulls: boolean): unknown[] {
  const out: unknown[] = [];
  for (const x of data) {
    if (!keepNulls && (x === null || x === 'None' || x === 'null')) continue;
    if (Array.isArray(x) && (levels === null || levels > 0)) out.push(...flatten(x, levels === null ? null : levels - 1, keepNulls));
    else out.push(x);
  }
  return out;
}

/** Filters working on Python values: Salt's tojson keeps the dict order (no sort_keys) and escapes for HTML. */
export const SALT_PY_FILTERS: Record<string, FilterFn> = {
  // Salt's json: sorted keys by default, non-ASCII kept (salt.utils.json.dumps).
  json: (_h, v, args, kwargs) => {
    const [sk, indent] = bindArgs('json', [['sort_keys', true], ['indent', null]], args, kwargs);
    return new Markup(jsonDumps(v, { sortKeys: truthy(sk), indent: indent as number | null, ensureAscii: false }).trim());
  },
  // Salt's yaml: flow style unless flow_style=False, then PyYAML's block style.
  yaml: (_h, v, args, kwargs) => {
    const [flow] = bindArgs('yaml', [['flow_style', true]], args, kwargs);
    return new Markup(truthy(flow) ? yamlFlow(v) : dumpYaml(toJs(v), { libyaml: true }).trim());
  },
  // int(text), else float(text), else the text unchanged.
  to_num: (_h, v) => {
    const t = String(toJs(v)).trim();
    if (/^[-+]?\d+(?:_\d+)*$/.test(t)) return Number(t.replace(/_/g, ''));
    if (/^[-+]?(?:\d+\.?\d*(?:e[-+]?\d+)?|\.\d+(?:e[-+]?\d+)?|inf|infinity|nan)$/i.test(t)) return new PyFloat(Number.parseFloat(t.replace(/^([-+]?)inf(inity)?$/i, '$1Infinity')));
    return v;
  },
  avg: (_h, v) => {
    const items = (Array.isArray(v) ? v : v instanceof PyTuple ? v.items : [v]).map((x) => Number(toJs(x)));
    return new PyFloat(items.reduce((a, b) => a + b, 0) / (Array.isArray(v) || v instanceof PyTuple ? items.length : 1));
  },
  tojson: (_h, v, args, kwargs) => {
    const indent = (args[0] ?? kwargs.get('indent') ?? null) as number | null;
    const text = jsonDumps(v, { sortKeys: false, indent, ensureAscii: true });
    return new Markup(text.replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/'/g, '\\u0027'));
  },
};

/** Tests Salt adds: `x is match(regex, ignorecase=False, multiline=False)` (re.match); `equalto` is Jinja's. */
export const SALT_TESTS: Record<string, (...args: unknown[]) => unknown> = {
  match: (v, pattern, kw) => new RegExp(`^(?:${s(pattern)})`, flags(kw)).test(s(v)),
};
