/** Jinja2's built-in filters (the ones Salt templates use), plus Salt's json and yaml. */

import { PyError, typeError } from './errors.js';
import { binop } from './pyops.js';
import { formatSpec, fixedDigits, percentFormat } from './pyformat.js';
import { bindArgs, builtinAttr, getItem, pyCapitalize, pyCenter, pyStrip, sortItems } from './pymethods.js';
import {
  isNumber,
  isString,
  Markup,
  numValue,
  objectTypeRepr,
  PyDict,
  PyFloat,
  PyTuple,
  pyCmp,
  pyEq,
  pyIter,
  pyLen,
  pyRepr,
  pyStr,
  truthy,
  typeName,
  Undefined,
  type PyValue,
} from './pyvalue.js';
import { htmlEscape, htmlSafeJson, jsonDumps, urlQuote, yamlFlow } from './serialize.js';
import type { TestFn } from './tests.js';
import { toPyInt, toPyFloat } from './numbers.js';

export interface FilterHost {
  readonly strict: boolean;
  readonly env: { readonly filters: ReadonlyMap<string, FilterFn>; readonly tests: ReadonlyMap<string, TestFn> };
  undef(message: string): Undefined;
}

export type FilterFn = (h: FilterHost, value: PyValue, args: PyValue[], kwargs: Map<string, PyValue>) => PyValue;

type P = readonly [string, PyValue?];
const simple =
  (params: readonly P[], body: (h: FilterHost, v: PyValue, a: PyValue[]) => PyValue, name = 'filter'): FilterFn =>
  (h, v, args, kwargs) =>
    body(h, v, bindArgs(name, params, args, kwargs));

const lowerIfStr = (v: PyValue): PyValue => (isString(v) ? String(v).toLowerCase() : v);

/** Jinja's make_attrgetter: dotted paths, integer parts index sequences; several paths separated by commas. */
export function attrGetter(h: FilterHost, attribute: PyValue, opts: { lower?: boolean; dflt?: PyValue } = {}): (v: PyValue) => PyValue {
  if (attribute === null || attribute === undefined) return opts.lower ? lowerIfStr : (v) => v;
  const paths = (typeof attribute === 'string' ? attribute.split(',') : [attribute]).map((a) =>
    typeof a === 'string' ? a.split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p)) : [a],
  );
  const getOne = (path: PyValue[], v: PyValue): PyValue => {
    let item = v;
    for (const part of path) {
      item = getItem(item, part, h.strict);
      if (opts.dflt !== undefined && opts.dflt !== null && item instanceof Undefined) item = opts.dflt;
    }
    return opts.lower ? lowerIfStr(item) : item;
  };
  if (paths.length === 1) return (v) => getOne(paths[0]!, v);
  return (v) => paths.map((p) => getOne(p, v));
}

function callTest(h: FilterHost, name: string, v: PyValue, args: PyValue[], kwargs: Map<string, PyValue>): boolean {
  const t = h.env.tests.get(name);
  if (!t) throw new PyError('TemplateRuntimeError', `No test named '${name}'.`);
  return truthy(t(h, v, args, kwargs));
}

function selectOrReject(lookupAttr: boolean, keep: boolean): FilterFn {
  return (h, value, args, kwargs) => {
    let off = 0;
    let trans: (v: PyValue) => PyValue = (v) => v;
    if (lookupAttr) {
      if (args.length === 0) throw new PyError('FilterArgumentError', 'Missing parameter for attribute name');
      trans = attrGetter(h, args[0]);
      off = 1;
    }
    const name = args[off];
    const rest = args.slice(off + 1);
    const test = name === undefined ? truthy : (v: PyValue) => callTest(h, pyStr(name), v, rest, kwargs);
    return pyIter(value).filter((item) => test(trans(item)) === keep);
  };
}

function minMax(sign: number): FilterFn {
  return simple([['case_sensitive', false], ['attribute', null]], (h, v, [cs, attr]) => {
    const items = pyIter(v);
    if (items.length === 0) return h.undef('No aggregated item, sequence was empty.');
    const key = attrGetter(h, attr, { lower: !truthy(cs) });
    let best = items[0];
    let bestKey = key(best);
    for (const it of items.slice(1)) {
      const k = key(it);
      if (pyCmp(k, bestKey) * sign < 0) {
        best = it;
        bestKey = k;
      }
    }
    return best;
  });
}

function jinjaTitle(s: string): string {
  return s
    .split(/([-\s({[<]+)/)
    .filter((x) => x !== '')
    .map((item) => {
      const chars = [...item];
      return chars[0]!.toUpperCase() + chars.slice(1).join('').toLowerCase();
    })
    .join('');
}

function indentFilter(s0: PyValue, width: PyValue, first: PyValue, blank: PyValue): string {
  const ind = typeof width === 'string' ? width : ' '.repeat(Number(width));
  const s = `${pyStr(s0)}\n`;
  const lines = s.split(/\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/);
  lines.pop();
  let rv: string;
  if (truthy(blank)) rv = lines.join(`\n${ind}`);
  else {
    rv = lines.shift() ?? '';
    if (lines.length > 0) rv += `\n${lines.map((l) => (l ? ind + l : l)).join('\n')}`;
  }
  return truthy(first) ? ind + rv : rv;
}

function roundFilter(v: PyValue, precision: PyValue, method: PyValue): PyValue {
  if (!isNumber(v)) throw typeError(`type ${typeName(v)} doesn't define __round__ method`);
  const p = Number(precision);
  const x = numValue(v);
  const m = pyStr(method);
  if (m === 'common') {
    if (!(v instanceof PyFloat)) {
      if (p >= 0) return Number(v);
      const f = 10 ** -p;
      return Number(fixedDigits(x / f, 0)) * f * Math.sign(x || 1);
    }
    if (!Number.isFinite(x)) return v;
    const r = p >= 0 ? Number(fixedDigits(x, p)) : Number(fixedDigits(x / 10 ** -p, 0)) * 10 ** -p;
    return new PyFloat(x < 0 ? -r : r);
  }
  if (m !== 'floor' && m !== 'ceil') throw new PyError('FilterArgumentError', 'method must be common, ceil or floor');
  const f = 10 ** p;
  return new PyFloat((m === 'floor' ? Math.floor(x * f) : Math.ceil(x * f)) / f);
}

function groupBy(h: FilterHost, v: PyValue, attr: PyValue, dflt: PyValue, cs: PyValue): PyValue {
  const key = attrGetter(h, attr, { lower: !truthy(cs), dflt });
  const outKey = attrGetter(h, attr, { dflt });
  const sorted = sortItems([...pyIter(v)], false, key);
  const groups: PyTuple[] = [];
  let cur: PyValue[] | null = null;
  let curKey: PyValue;
  for (const item of sorted) {
    const k = key(item);
    if (cur && pyEq(k, curKey)) cur.push(item);
    else {
      cur = [item];
      curKey = k;
      groups.push(new PyTuple([truthy(cs) ? k : outKey(item), cur], ['grouper', 'list']));
    }
  }
  return groups;
}

function mapFilter(h: FilterHost, value: PyValue, args: PyValue[], kwargs: Map<string, PyValue>): PyValue {
  const items = pyIter(value);
  if (args.length === 0 && kwargs.has('attribute')) {
    const get = attrGetter(h, kwargs.get('attribute'), { dflt: kwargs.get('default') });
    return items.map(get);
  }
  const name = args[0];
  if (name === undefined) throw new PyError('FilterArgumentError', 'map requires a filter argument');
  const f = h.env.filters.get(pyStr(name));
  if (!f) throw new PyError('TemplateRuntimeError', `No filter named '${pyStr(name)}'.`);
  return items.map((it) => f(h, it, args.slice(1), kwargs));
}

function urlencode(v: PyValue): string {
  if (isString(v) || !(Array.isArray(v) || v instanceof PyTuple || v instanceof PyDict)) return urlQuote(pyStr(v), '/');
  const pairs = v instanceof PyDict ? v.entries() : pyIter(v).map((p) => pyIter(p));
  const q = (x: PyValue) => urlQuote(pyStr(x), '').replace(/%20/g, '+');
  return pairs.map(([k, x]) => `${q(k)}=${q(x)}`).join('&');
}

export const BUILTIN_FILTERS: Record<string, FilterFn> = {
  default: simple([['default_value', ''], ['boolean', false]], (_h, v, [d, b]) =>
    v instanceof Undefined || (truthy(b) && !truthy(v)) ? d : v),
  join: simple([['d', ''], ['attribute', null]], (h, v, [d, attr]) => pyIter(v).map(attrGetter(h, attr)).map(pyStr).join(pyStr(d))),
  upper: simple([], (_h, v) => pyStr(v).toUpperCase()),
  lower: simple([], (_h, v) => pyStr(v).toLowerCase()),
  title: simple([], (_h, v) => jinjaTitle(pyStr(v))),
  capitalize: simple([], (_h, v) => pyCapitalize(pyStr(v))),
  replace: simple([['old'], ['new'], ['count', null]], (_h, v, [o, n, c]) => {
    const parts = pyStr(v).split(pyStr(o));
    const k = c === null ? -1 : Number(c);
    if (k < 0 || parts.length <= k + 1) return parts.join(pyStr(n));
    return parts.slice(0, k + 1).join(pyStr(n)) + pyStr(o) + parts.slice(k + 1).join(pyStr(o));
  }),
  trim: simple([['chars', null]], (_h, v, [c]) => pyStrip(pyStr(v), c, 'both')),
  length: simple([], (_h, v) => pyLen(v)),
  first: simple([], (h, v) => {
    const items = pyIter(v);
    return items.length > 0 ? items[0] : h.undef('No first item, sequence was empty.');
  }),
  last: simple([], (h, v) => {
    const items = pyIter(v);
    return items.length > 0 ? items[items.length - 1] : h.undef('No last item, sequence was empty.');
  }),
  list: simple([], (_h, v) => [...pyIter(v)]),
  sort: simple([['reverse', false], ['case_sensitive', false], ['attribute', null]], (h, v, [r, cs, attr]) =>
    sortItems([...pyIter(v)], truthy(r), attrGetter(h, attr, { lower: !truthy(cs) }))),
  unique: simple([['case_sensitive', false], ['attribute', null]], (h, v, [cs, attr]) => {
    const key = attrGetter(h, attr, { lower: !truthy(cs) });
    const seen: PyValue[] = [];
    return pyIter(v).filter((item) => {
      const k = key(item);
      if (seen.some((s) => pyEq(s, k))) return false;
      seen.push(k);
      return true;
    });
  }),
  min: minMax(1),
  max: minMax(-1),
  sum: simple([['attribute', null], ['start', 0]], (h, v, [attr, start]) => pyIter(v).map(attrGetter(h, attr)).reduce((a, b) => binop('+', a, b), start)),
  map: mapFilter,
  select: selectOrReject(false, true),
  reject: selectOrReject(false, false),
  selectattr: selectOrReject(true, true),
  rejectattr: selectOrReject(true, false),
  dictsort: simple([['case_sensitive', false], ['by', 'key'], ['reverse', false]], (_h, v, [cs, by, r]) => {
    if (!(v instanceof PyDict)) throw new PyError('AttributeError', `'${typeName(v)}' object has no attribute 'items'`);
    const pos = by === 'key' ? 0 : by === 'value' ? 1 : -1;
    if (pos < 0) throw new PyError('FilterArgumentError', 'You can only sort by either "key" or "value"');
    const pairs = v.entries().map(([k, x]) => new PyTuple([k, x]));
    return sortItems(pairs, truthy(r), (t) => {
      const x = (t as PyTuple).items[pos];
      return truthy(cs) ? x : lowerIfStr(x);
    });
  }),
  items: simple([], (_h, v) => {
    if (v instanceof Undefined) return [];
    if (!(v instanceof PyDict)) throw typeError(`Can only get item pairs from a mapping.`);
    return v.entries().map(([k, x]) => new PyTuple([k, x]));
  }),
  tojson: simple([['indent', null]], (_h, v, [i]) => htmlSafeJson(v, i as number | null)),
  json: simple([['sort_keys', true], ['indent', null]], (_h, v, [sk, i]) =>
    new Markup(jsonDumps(v, { sortKeys: truthy(sk), indent: i as number | null, ensureAscii: true }).trim())),
  yaml: simple([['flow_style', true]], (_h, v) => new Markup(yamlFlow(v))),
  indent: simple([['width', 4], ['first', false], ['blank', false]], (_h, v, [w, f, b]) => indentFilter(v, w, f, b)),
  int: simple([['default', 0], ['base', 10]], (_h, v, [d, b]) => toPyInt(v, d, Number(b))),
  float: simple([['default', new PyFloat(0)]], (_h, v, [d]) => toPyFloat(v, d)),
  string: simple([], (_h, v) => (v instanceof Markup ? v : pyStr(v))),
  abs: simple([], (_h, v) => {
    if (!isNumber(v)) throw typeError(`bad operand type for abs(): '${typeName(v)}'`);
    return v instanceof PyFloat ? new PyFloat(Math.abs(v.v)) : Math.abs(Number(v));
  }),
  round: simple([['precision', 0], ['method', 'common']], (_h, v, [p, m]) => roundFilter(v, p, m)),
  batch: simple([['linecount'], ['fill_with', null]], (_h, v, [n, fill]) => {
    const size = Number(n);
    const out: PyValue[][] = [];
    let tmp: PyValue[] = [];
    for (const item of pyIter(v)) {
      if (tmp.length === size) {
        out.push(tmp);
        tmp = [];
      }
      tmp.push(item);
    }
    if (tmp.length > 0) {
      if (fill !== null) while (tmp.length < size) tmp.push(fill);
      out.push(tmp);
    }
    return out;
  }),
  slice: simple([['slices'], ['fill_with', null]], (_h, v, [n, fill]) => {
    const seq = [...pyIter(v)];
    const slices = Number(n);
    const per = Math.floor(seq.length / slices);
    const extra = seq.length % slices;
    let offset = 0;
    const out: PyValue[][] = [];
    for (let i = 0; i < slices; i++) {
      const start = offset + i * per;
      if (i < extra) offset++;
      const tmp = seq.slice(start, offset + (i + 1) * per);
      if (fill !== null && i >= extra) tmp.push(fill);
      out.push(tmp);
    }
    return out;
  }),
  wordcount: simple([], (_h, v) => (pyStr(v).match(/[\p{L}\p{N}_]+/gu) ?? []).length),
  center: simple([['width', 80]], (_h, v, [w]) => pyCenter(pyStr(v), Number(w))),
  format: (_h, v, args, kwargs) => {
    if (args.length > 0 && kwargs.size > 0) throw new PyError('FilterArgumentError', "can't handle positional and keyword arguments at the same time");
    return percentFormat(pyStr(v), kwargs.size > 0 ? new PyDict(kwargs) : new PyTuple(args));
  },
  escape: simple([], (_h, v) => (v instanceof Markup ? v : new Markup(htmlEscape(pyStr(v))))),
  forceescape: simple([], (_h, v) => new Markup(htmlEscape(pyStr(v)))),
  safe: simple([], (_h, v) => new Markup(pyStr(v))),
  urlencode: simple([], (_h, v) => urlencode(v)),
  reverse: simple([], (_h, v) => (isString(v) ? [...pyStr(v)].reverse().join('') : [...pyIter(v)].reverse())),
  groupby: simple([['attribute'], ['default', null], ['case_sensitive', false]], (h, v, [a, d, cs]) => groupBy(h, v, a, d, cs)),
  random: simple([], (_h, v) => {
    const items = pyIter(v);
    return items[Math.floor(Math.random() * items.length)];
  }),
  attr: simple([['name']], (h, v, [n]) => builtinAttr(v, pyStr(n)) ?? h.undef(`${objectTypeRepr(v)} has no attribute '${pyStr(n)}'`)),
  truncate: simple([['length', 255], ['killwords', false], ['end', '...'], ['leeway', null]], (_h, v, [len, kill, end, lw]) => {
    const s = pyStr(v);
    const n = Number(len);
    const leeway = lw === null ? 5 : Number(lw);
    const e = pyStr(end);
    if (s.length <= n + leeway) return s;
    if (truthy(kill)) return s.slice(0, n - e.length) + e;
    const cut = s.slice(0, n - e.length);
    const idx = cut.lastIndexOf(' ');
    return (idx >= 0 ? cut.slice(0, idx) : '') + e;
  }),
  filesizeformat: simple([['binary', false]], (_h, v, [b]) => {
    const bytes = isNumber(v) ? numValue(v) : Number(pyStr(v));
    const base = truthy(b) ? 1024 : 1000;
    const units = truthy(b) ? ['KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB', 'ZiB', 'YiB'] : ['kB', 'MB', 'GB', 'TB', 'PB', 'EB', 'ZB', 'YB'];
    if (bytes === 1) return '1 Byte';
    if (bytes < base) return `${Math.trunc(bytes)} Bytes`;
    let i = 0;
    for (; i < units.length - 1; i++) if (bytes < base ** (i + 2)) break;
    return `${formatSpec(new PyFloat((base * bytes) / base ** (i + 2)), '.1f')} ${units[i]}`;
  }),
  pprint: simple([], (_h, v) => pyRepr(v)),
};
BUILTIN_FILTERS.d = BUILTIN_FILTERS.default!;
BUILTIN_FILTERS.count = BUILTIN_FILTERS.length!;
BUILTIN_FILTERS.e = BUILTIN_FILTERS.escape!;
