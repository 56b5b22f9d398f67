/** Attribute and item lookup the Jinja way (`a.b` tries the attribute, then the item), with str/list/dict methods. */

import { PyError, typeError, valueError } from './errors.js';
import { sequenceItem, sliceIndices, PySlice } from './pyops.js';
import { strFormat } from './pyformat.js';
import {
  isString,
  missingAttr,
  PyCallable,
  PyDict,
  PyObject,
  PyTuple,
  pyCmp,
  pyEq,
  pyIter,
  pyRepr,
  pyStr,
  typeName,
  Undefined,
  VIEW_TAG,
  type PyValue,
} from './pyvalue.js';


function view(items: PyValue[], kind: string): PyValue[] {
  Object.defineProperty(items, VIEW_TAG, { value: kind });
  return items;
}

type Param = readonly [string, PyValue?];

/** Binds positional and keyword arguments to named parameters; a parameter without default is required. */
export function bindArgs(fname: string, params: readonly Param[], args: readonly PyValue[], kwargs: ReadonlyMap<string, PyValue>): PyValue[] {
  if (args.length > params.length) {
    throw typeError(`${fname}() takes at most ${params.length} arguments (${args.length} given)`);
  }
  const out: PyValue[] = [];
  params.forEach(([name, dflt], i) => {
    if (i < args.length) {
      if (kwargs.has(name)) throw typeError(`${fname}() got multiple values for argument '${name}'`);
      out.push(args[i]);
    } else if (kwargs.has(name)) out.push(kwargs.get(name));
    else if (params[i]!.length > 1) out.push(dflt);
    else throw typeError(`${fname}() missing required argument: '${name}'`);
  });
  for (const k of kwargs.keys()) {
    if (!params.some(([n]) => n === k)) throw typeError(`${fname}() got an unexpected keyword argument '${k}'`);
  }
  return out;
}

const fn = (name: string, params: readonly Param[], body: (a: PyValue[]) => PyValue): PyCallable =>
  new PyCallable(name, (args, kwargs) => body(bindArgs(name, params, args, kwargs)));

const isCased = (c: string): boolean => c.toLowerCase() !== c.toUpperCase();

export function pyTitle(s: string): string {
  let out = '';
  let prev = false;
  for (const ch of s) {
    const cased = isCased(ch);
    out += cased ? (prev ? ch.toLowerCase() : ch.toUpperCase()) : ch;
    prev = cased;
  }
  return out;
}

export function pyCapitalize(s: string): string {
  const chars = [...s];
  return chars.length === 0 ? '' : chars[0]!.toUpperCase() + chars.slice(1).join('').toLowerCase();
}

export function pyStrip(s: string, chars: PyValue, side: 'both' | 'left' | 'right'): string {
  const set = chars === null || chars === undefined ? null : new Set(pyStr(chars));
  const strip = (c: string | undefined) => c !== undefined && (set ? set.has(c) : /\s/.test(c));
  let a = 0;
  let b = s.length;
  if (side !== 'right') while (a < b && strip(s[a])) a++;
  if (side !== 'left') while (b > a && strip(s[b - 1])) b--;
  return s.slice(a, b);
}

export function pySplit(s: string, sep: PyValue, maxsplit: number, fromRight: boolean): string[] {
  if (sep === null) {
    const words = s.split(/\s+/).filter((w) => w !== '');
    if (maxsplit < 0 || words.length <= maxsplit + 1) return words;
    // Re-split keeping the remainder intact.
    const re = /\S+/g;
    const spans: [number, number][] = [];
    for (let m = re.exec(s); m; m = re.exec(s)) spans.push([m.index, m.index + m[0].length]);
    if (fromRight) {
      const cut = spans.length - maxsplit;
      return [s.slice(0, spans[cut - 1]![1]), ...spans.slice(cut).map(([x, y]) => s.slice(x, y))];
    }
    return [...spans.slice(0, maxsplit).map(([x, y]) => s.slice(x, y)), s.slice(spans[maxsplit]![0])];
  }
  const d = pyStr(sep);
  if (d === '') throw valueError('empty separator');
  const parts = s.split(d);
  if (maxsplit < 0 || parts.length <= maxsplit + 1) return parts;
  if (fromRight) return [parts.slice(0, parts.length - maxsplit).join(d), ...parts.slice(parts.length - maxsplit)];
  return [...parts.slice(0, maxsplit), parts.slice(maxsplit).join(d)];
}

export function pyCenter(s: string, width: number, fill = ' '): string {
  const n = [...s].length;
  const marg = width - n;
  if (marg <= 0) return s;
  const left = Math.floor(marg / 2) + (marg & width & 1);
  return fill.repeat(left) + s + fill.repeat(marg - left);
}

function pyJoin(sep: string, items: PyValue): string {
  return pyIter(items)
    .map((x, i) => {
      if (!isString(x)) throw typeError(`sequence item ${i}: expected str instance, ${typeName(x)} found`);
      return String(x);
    })
    .join(sep);
}

function affixTest(s: string, affix: PyValue, end: boolean): boolean {
  const list = affix instanceof PyTuple ? affix.items : [affix];
  return list.some((a) => {
    if (!isString(a)) throw typeError(`${end ? 'endswith' : 'startswith'} first arg must be str or a tuple of str, not ${typeName(a)}`);
    return end ? s.endsWith(String(a)) : s.startsWith(String(a));
  });
}

function strMethod(s: string, name: string): PyCallable | undefined {
  const n = (v: PyValue, d: number): number => (v === null || v === undefined ? d : Number(v));
  switch (name) {
    case 'upper': return fn(name, [], () => s.toUpperCase());
    case 'lower': case 'casefold': return fn(name, [], () => s.toLowerCase());
    case 'strip': return fn(name, [['chars', null]], ([c]) => pyStrip(s, c, 'both'));
    case 'lstrip': return fn(name, [['chars', null]], ([c]) => pyStrip(s, c, 'left'));
    case 'rstrip': return fn(name, [['chars', null]], ([c]) => pyStrip(s, c, 'right'));
    case 'split': return fn(name, [['sep', null], ['maxsplit', -1]], ([sep, m]) => pySplit(s, sep, n(m, -1), false));
    case 'rsplit': return fn(name, [['sep', null], ['maxsplit', -1]], ([sep, m]) => pySplit(s, sep, n(m, -1), true));
    case 'splitlines': return fn(name, [['keepends', false]], ([k]) => {
      const parts = s.match(/[^\n\r\v\f\x1c-\x1e\x85\u2028\u2029]*(?:\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]|$)/g) ?? [];
      const lines = parts.filter((p, i) => p !== '' || i < parts.length - 1).filter((p) => p !== '');
      return k ? lines : lines.map((l) => l.replace(/(\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029])$/, ''));
    });
    case 'replace': return fn(name, [['old'], ['new'], ['count', -1]], ([o, nw, c]) => {
      const parts = s.split(pyStr(o));
      const k = n(c, -1);
      if (k < 0 || parts.length <= k + 1) return parts.join(pyStr(nw));
      return parts.slice(0, k + 1).join(pyStr(nw)) + pyStr(o) + parts.slice(k + 1).join(pyStr(o));
    });
    case 'startswith': return fn(name, [['prefix']], ([p]) => affixTest(s, p, false));
    case 'endswith': return fn(name, [['suffix']], ([p]) => affixTest(s, p, true));
    case 'join': return fn(name, [['iterable']], ([it]) => pyJoin(s, it));
    case 'title': return fn(name, [], () => pyTitle(s));
    case 'capitalize': return fn(name, [], () => pyCapitalize(s));
    case 'swapcase': return fn(name, [], () => [...s].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join(''));
    case 'find': return fn(name, [['sub']], ([x]) => s.indexOf(pyStr(x)));
    case 'rfind': return fn(name, [['sub']], ([x]) => s.lastIndexOf(pyStr(x)));
    case 'index': case 'rindex': return fn(name, [['sub']], ([x]) => {
      const i = name === 'index' ? s.indexOf(pyStr(x)) : s.lastIndexOf(pyStr(x));
      if (i < 0) throw valueError('substring not found');
      return i;
    });
    case 'count': return fn(name, [['sub']], ([x]) => (pyStr(x) === '' ? s.length + 1 : s.split(pyStr(x)).length - 1));
    case 'isdigit': case 'isdecimal': case 'isnumeric': return fn(name, [], () => /^\d+$/.test(s));
    case 'isalpha': return fn(name, [], () => /^\p{L}+$/u.test(s));
    case 'isalnum': return fn(name, [], () => /^[\p{L}\d]+$/u.test(s));
    case 'isspace': return fn(name, [], () => /^\s+$/.test(s));
    case 'islower': return fn(name, [], () => [...s].some(isCased) && s === s.toLowerCase());
    case 'isupper': return fn(name, [], () => [...s].some(isCased) && s === s.toUpperCase());
    case 'istitle': return fn(name, [], () => [...s].some(isCased) && pyTitle(s) === s);
    case 'zfill': return fn(name, [['width']], ([w]) => {
      const sign = s[0] === '-' || s[0] === '+' ? s[0] : '';
      return sign + s.slice(sign.length).padStart(Number(w) - sign.length, '0');
    });
    case 'center': return fn(name, [['width'], ['fillchar', ' ']], ([w, f]) => pyCenter(s, Number(w), pyStr(f)));
    case 'ljust': return fn(name, [['width'], ['fillchar', ' ']], ([w, f]) => s.padEnd(Number(w), pyStr(f)));
    case 'rjust': return fn(name, [['width'], ['fillchar', ' ']], ([w, f]) => s.padStart(Number(w), pyStr(f)));
    case 'partition': case 'rpartition': return fn(name, [['sep']], ([x]) => {
      const d = pyStr(x);
      const i = name === 'partition' ? s.indexOf(d) : s.lastIndexOf(d);
      if (i < 0) return new PyTuple(name === 'partition' ? [s, '', ''] : ['', '', s]);
      return new PyTuple([s.slice(0, i), d, s.slice(i + d.length)]);
    });
    case 'removeprefix': return fn(name, [['prefix']], ([p]) => (s.startsWith(pyStr(p)) ? s.slice(pyStr(p).length) : s));
    case 'removesuffix': return fn(name, [['suffix']], ([p]) => (pyStr(p) && s.endsWith(pyStr(p)) ? s.slice(0, -pyStr(p).length) : s));
    case 'format': return new PyCallable(name, (args, kwargs) => strFormat(s, args, kwargs, (o, k, isAttr) => (isAttr ? getAttr(o, k) : getItem(o, k))));
    default: return undefined;
  }
}

function listIndex(items: PyValue[], x: PyValue, what: string): number {
  const i = items.findIndex((y) => pyEq(x, y));
  if (i < 0) throw valueError(`${pyRepr(x)} is not in ${what}`);
  return i;
}

export function sortItems(items: PyValue[], reverse: boolean, key: (v: PyValue) => PyValue = (v) => v): PyValue[] {
  const keyed = items.map((v) => [key(v), v] as const);
  keyed.sort((a, b) => pyCmp(a[0], b[0]));
  if (reverse) {
    // Python's reverse sort is stable: equal items keep their original order.
    const out: (readonly [PyValue, PyValue])[] = [];
    for (let i = keyed.length - 1; i >= 0; ) {
      let j = i;
      while (j > 0 && pyCmp(keyed[j - 1]![0], keyed[i]![0]) === 0) j--;
      out.push(...keyed.slice(j, i + 1));
      i = j - 1;
    }
    return out.map((e) => e[1]);
  }
  return keyed.map((e) => e[1]);
}

function listMethod(l: PyValue[], name: string): PyCallable | undefined {
  switch (name) {
    case 'append': return fn(name, [['x']], ([x]) => { l.push(x); return null; });
    case 'extend': return fn(name, [['it']], ([x]) => { l.push(...pyIter(x)); return null; });
    case 'insert': return fn(name, [['i'], ['x']], ([i, x]) => {
      let k = Number(i);
      if (k < 0) k = Math.max(0, k + l.length);
      l.splice(k, 0, x);
      return null;
    });
    case 'pop': return fn(name, [['i', -1]], ([i]) => {
      if (l.length === 0) throw new PyError('IndexError', 'pop from empty list');
      let k = Number(i);
      if (k < 0) k += l.length;
      if (k < 0 || k >= l.length) throw new PyError('IndexError', 'pop index out of range');
      return l.splice(k, 1)[0];
    });
    case 'remove': return fn(name, [['x']], ([x]) => { l.splice(listIndex(l, x, 'list'), 1); return null; });
    case 'index': return fn(name, [['x']], ([x]) => listIndex(l, x, 'list'));
    case 'count': return fn(name, [['x']], ([x]) => l.filter((y) => pyEq(x, y)).length);
    case 'reverse': return fn(name, [], () => { l.reverse(); return null; });
    case 'sort': return fn(name, [['key', null], ['reverse', false]], ([, r]) => {
      const sorted = sortItems(l, r === true);
      l.splice(0, l.length, ...sorted);
      return null;
    });
    case 'copy': return fn(name, [], () => [...l]);
    case 'clear': return fn(name, [], () => { l.length = 0; return null; });
    default: return undefined;
  }
}

function dictMethod(d: PyDict, name: string): PyCallable | undefined {
  switch (name) {
    case 'items': return fn(name, [], () => view(d.entries().map(([k, v]) => new PyTuple([k, v])), 'dict_items'));
    case 'keys': return fn(name, [], () => view(d.keys(), 'dict_keys'));
    case 'values': return fn(name, [], () => view(d.values(), 'dict_values'));
    case 'get': return fn(name, [['key'], ['default', null]], ([k, dflt]) => (d.has(k) ? d.get(k) : dflt));
    case 'setdefault': return fn(name, [['key'], ['default', null]], ([k, dflt]) => {
      if (!d.has(k)) d.set(k, dflt);
      return d.get(k);
    });
    case 'pop': return new PyCallable(name, (args) => {
      const k = args[0];
      if (d.has(k)) {
        const v = d.get(k);
        d.delete(k);
        return v;
      }
      if (args.length > 1) return args[1];
      throw new PyError('KeyError', pyRepr(k));
    });
    case 'update': return new PyCallable(name, (args, kwargs) => {
      const src = args[0];
      if (src instanceof PyDict) for (const [k, v] of src.entries()) d.set(k, v);
      else if (src !== undefined) for (const pair of pyIter(src)) {
        const kv = pyIter(pair);
        d.set(kv[0], kv[1]);
      }
      for (const [k, v] of kwargs) d.set(k, v);
      return null;
    });
    case 'copy': return fn(name, [], () => new PyDict(d.entries()));
    case 'clear': return fn(name, [], () => { d.clear(); return null; });
    default: return undefined;
  }
}

/** Python getattr(obj, name) for built-in types, or undefined when there is no such attribute. */
export function builtinAttr(obj: PyValue, name: string): PyValue | undefined {
  if (typeof obj === 'string') return strMethod(obj, name);
  if (isString(obj)) return strMethod(String(obj), name);
  if (Array.isArray(obj)) return listMethod(obj, name);
  if (obj instanceof PyDict) return dictMethod(obj, name);
  if (obj instanceof PyTuple) {
    const fi = obj.fields?.indexOf(name) ?? -1;
    if (fi >= 0) return obj.items[fi];
    if (name === 'index') return fn(name, [['x']], ([x]) => listIndex(obj.items, x, 'tuple'));
    if (name === 'count') return fn(name, [['x']], ([x]) => obj.items.filter((y) => pyEq(x, y)).length);
    return undefined;
  }
  if (obj instanceof PyObject) return obj.getAttr(name);
  if (obj instanceof PyCallable) return obj.attrs?.get(name);
  if (obj instanceof PySlice) return name === 'start' ? obj.start : name === 'stop' ? obj.stop : name === 'step' ? obj.step : undefined;
  return undefined;
}

export function getAttr(obj: PyValue, name: string, strict = false): PyValue {
  if (obj instanceof Undefined) obj.fail();
  const a = builtinAttr(obj, name);
  if (a !== undefined) return a;
  if (obj instanceof PyDict && obj.has(name)) return obj.get(name);
  return missingAttr(obj, name, strict);
}

export function getItem(obj: PyValue, key: PyValue, strict = false): PyValue {
  if (obj instanceof Undefined) obj.fail();
  if (obj instanceof PyDict) {
    if (!(key instanceof PySlice) && !Array.isArray(key) && !(key instanceof PyDict) && obj.has(key)) return obj.get(key);
  } else {
    const r = sequenceItem(obj, key);
    if (r !== undefined) return r;
  }
  if (typeof key === 'string') {
    const a = builtinAttr(obj, key);
    if (a !== undefined) return a;
  }
  return missingAttr(obj, key instanceof PySlice ? pyRepr(null) : key, strict);
}

export { sliceIndices };
