/**
 * Python values as JavaScript values: None is null, bool is boolean, int is number, float is PyFloat,
 * str is string, list is Array, tuple is PyTuple, dict is PyDict. str(), repr(), truthiness, equality
 * and ordering follow CPython.
 */

import { floatRepr, intStr } from '../python/float.js';
import { PyError, typeError, undefinedError } from './errors.js';

export type PyValue = unknown;

/** Marks a list as a dict view (dict_items, dict_keys, dict_values) for printing. */
export const VIEW_TAG = Symbol('dict view');
/** A list that prints as something else (a range object). */
export const REPR_TAG = Symbol('repr');

export class PyFloat {
  constructor(readonly v: number) {}
}

export class PyTuple {
  /** Field names make it a named tuple (Jinja's groupby results). */
  constructor(readonly items: PyValue[], readonly fields?: readonly string[]) {}
}

export class Markup {
  constructor(readonly s: string) {}
  toString(): string {
    return this.s;
  }
}

export type PyArgs = { args: PyValue[]; kwargs: Map<string, PyValue> };

export class PyCallable {
  /** Attributes a callable exposes (a macro's name, arguments, ...). */
  attrs: ReadonlyMap<string, PyValue> | undefined;
  constructor(
    readonly name: string,
    readonly fn: (args: PyValue[], kwargs: Map<string, PyValue>) => PyValue,
  ) {}
}

/** Objects with attributes only (namespace, loop, imported module, ...). */
export abstract class PyObject {
  abstract readonly typeName: string;
  abstract getAttr(name: string): PyValue | undefined;
  setAttr(name: string, _value: PyValue): void {
    throw typeError(`'${this.typeName}' object does not support attribute assignment: ${name}`);
  }
  repr(): string {
    return `<${this.typeName} object>`;
  }
}

export class Undefined {
  constructor(
    readonly message: string,
    readonly strict = false,
  ) {}
  fail(): never {
    throw undefinedError(this.message);
  }
}

export const undefinedName = (name: string, strict = false): Undefined => new Undefined(`'${name}' is undefined`, strict);
export const objectTypeRepr = (obj: PyValue): string => (obj === null ? "'None'" : `'${typeName(obj)} object'`);
export const missingAttr = (obj: PyValue, name: PyValue, strict = false): Undefined =>
  new Undefined(
    typeof name === 'string'
      ? `${objectTypeRepr(obj)} has no attribute '${name}'`
      : `${objectTypeRepr(obj)} has no element ${pyRepr(name)}`,
    strict,
  );

type Hash = string | number | boolean | null | object;

export function hashKey(k: PyValue): Hash {
  if (typeof k === 'boolean') return k ? 1 : 0;
  if (k === null || typeof k === 'string' || typeof k === 'number') return k;
  if (k instanceof PyFloat) return Number.isInteger(k.v) ? k.v : `\0f${k.v}`;
  if (k instanceof Markup) return k.s;
  if (k instanceof PyTuple) return `\0t${k.items.map((i) => String(hashKey(i))).join('\0,')}`;
  if (Array.isArray(k) || k instanceof PyDict) throw typeError(`unhashable type: '${typeName(k)}'`);
  return k as object;
}

export class PyDict {
  private readonly m = new Map<Hash, [PyValue, PyValue]>();
  constructor(entries?: Iterable<readonly [PyValue, PyValue]>) {
    if (entries) for (const [k, v] of entries) this.set(k, v);
  }
  get size(): number {
    return this.m.size;
  }
  get(k: PyValue): PyValue | undefined {
    return this.m.get(hashKey(k))?.[1];
  }
  has(k: PyValue): boolean {
    return this.m.has(hashKey(k));
  }
  set(k: PyValue, v: PyValue): void {
    const h = hashKey(k);
    const e = this.m.get(h);
    if (e) e[1] = v;
    else this.m.set(h, [k, v]);
  }
  delete(k: PyValue): boolean {
    return this.m.delete(hashKey(k));
  }
  clear(): void {
    this.m.clear();
  }
  keys(): PyValue[] {
    return [...this.m.values()].map((e) => e[0]);
  }
  values(): PyValue[] {
    return [...this.m.values()].map((e) => e[1]);
  }
  entries(): [PyValue, PyValue][] {
    return [...this.m.values()].map((e) => [e[0], e[1]]);
  }
}

export function typeName(v: PyValue): string {
  if (v === null) return 'NoneType';
  switch (typeof v) {
    case 'boolean': return 'bool';
    case 'number': return 'int';
    case 'string': return 'str';
    case 'function': return 'function';
    default: break;
  }
  if (v instanceof PyFloat) return 'float';
  if (Array.isArray(v)) return 'list';
  if (v instanceof PyTuple) return 'tuple';
  if (v instanceof PyDict) return 'dict';
  if (v instanceof Markup) return 'Markup';
  if (v instanceof Undefined) return 'Undefined';
  if (v instanceof PyCallable) return 'function';
  if (v instanceof PyObject) return v.typeName;
  return 'object';
}

export const isNumber = (v: PyValue): v is number | boolean | PyFloat => typeof v === 'number' || typeof v === 'boolean' || v instanceof PyFloat;
export const isString = (v: PyValue): v is string | Markup => typeof v === 'string' || v instanceof Markup;
export const numValue = (v: number | boolean | PyFloat): number => (v instanceof PyFloat ? v.v : Number(v));

export function truthy(v: PyValue): boolean {
  if (v === null || v === false || v === 0 || v === '') return false;
  if (v === true || typeof v === 'number' || typeof v === 'string') return true;
  if (v instanceof PyFloat) return v.v !== 0;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof PyTuple) return v.items.length > 0;
  if (v instanceof PyDict) return v.size > 0;
  if (v instanceof Markup) return v.s.length > 0;
  if (v instanceof Undefined) {
    if (v.strict) v.fail();
    return false;
  }
  return true;
}

export { floatRepr, intStr };

export function strRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if (c >= 0x80 && c < 0xa0) out += `\\x${c.toString(16)}`;
    else out += ch;
  }
  return out + quote;
}

export function pyStr(v: PyValue): string {
  if (typeof v === 'string') return v;
  if (v instanceof Undefined) {
    if (v.strict) v.fail();
    return '';
  }
  if (v instanceof Markup) return v.s;
  return pyRepr(v);
}

export function pyRepr(v: PyValue): string {
  if (v === null) return 'None';
  switch (typeof v) {
    case 'boolean': return v ? 'True' : 'False';
    case 'number': return intStr(v);
    case 'string': return strRepr(v);
    default: break;
  }
  if (v instanceof PyFloat) return floatRepr(v.v);
  if (Array.isArray(v)) {
    const fixed = (v as { [REPR_TAG]?: string })[REPR_TAG];
    if (fixed !== undefined) return fixed;
    const tag = (v as { [VIEW_TAG]?: string })[VIEW_TAG];
    return tag ? `${tag}([${v.map(pyRepr).join(', ')}])` : `[${v.map(pyRepr).join(', ')}]`;
  }
  if (v instanceof PyTuple) return v.items.length === 1 ? `(${pyRepr(v.items[0])},)` : `(${v.items.map(pyRepr).join(', ')})`;
  if (v instanceof PyDict) return `{${v.entries().map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`).join(', ')}}`;
  if (v instanceof Markup) return `Markup(${strRepr(v.s)})`;
  if (v instanceof Undefined) return 'Undefined';
  if (v instanceof PyCallable) return `<function ${v.name}>`;
  if (v instanceof PyObject) return v.repr();
  return String(v);
}

export function seqItems(v: PyValue): PyValue[] | undefined {
  if (Array.isArray(v)) return v;
  if (v instanceof PyTuple) return v.items;
  return undefined;
}

export function pyEq(a: PyValue, b: PyValue): boolean {
  if (a === b) return true;
  if (isNumber(a) && isNumber(b)) return numValue(a) === numValue(b);
  if (isString(a) && isString(b)) return String(a) === String(b);
  if (Array.isArray(a) && Array.isArray(b)) return seqEq(a, b);
  if (a instanceof PyTuple && b instanceof PyTuple) return seqEq(a.items, b.items);
  if (a instanceof PyDict && b instanceof PyDict) {
    if (a.size !== b.size) return false;
    return a.entries().every(([k, v]) => b.has(k) && pyEq(v, b.get(k)));
  }
  if (a instanceof Undefined && b instanceof Undefined) return true;
  return false;
}

function seqEq(a: readonly PyValue[], b: readonly PyValue[]): boolean {
  return a.length === b.length && a.every((x, i) => pyEq(x, b[i]));
}

const OP_SYMBOL: Record<string, string> = { lt: '<', le: '<=', gt: '>', ge: '>=' };

/** Three-way ordering as Python's `<` would allow it; throws TypeError for unorderable pairs. */
export function pyCmp(a: PyValue, b: PyValue, op = 'lt'): number {
  if (a instanceof Undefined) a.fail();
  if (b instanceof Undefined) b.fail();
  if (isNumber(a) && isNumber(b)) {
    const x = numValue(a);
    const y = numValue(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (isString(a) && isString(b)) {
    const x = String(a);
    const y = String(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  const sa = Array.isArray(a) && Array.isArray(b) ? [a, b] : a instanceof PyTuple && b instanceof PyTuple ? [a.items, b.items] : null;
  if (sa) {
    const [x = [], y = []] = sa;
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      if (!pyEq(x[i], y[i])) return pyCmp(x[i], y[i], op);
    }
    return x.length - y.length;
  }
  throw typeError(`'${OP_SYMBOL[op] ?? op}' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`);
}

export function pyLen(v: PyValue): number {
  if (typeof v === 'string') return [...v].length;
  if (v instanceof Markup) return [...v.s].length;
  if (Array.isArray(v)) return v.length;
  if (v instanceof PyTuple) return v.items.length;
  if (v instanceof PyDict) return v.size;
  if (v instanceof Undefined) {
    if (v.strict) v.fail();
    return 0;
  }
  throw typeError(`object of type '${typeName(v)}' has no len()`);
}

/** Materialises an iterable as an array: strings iterate characters, dicts their keys. */
export function pyIter(v: PyValue): PyValue[] {
  if (Array.isArray(v)) return v;
  if (typeof v === 'string') return [...v];
  if (v instanceof Markup) return [...v.s];
  if (v instanceof PyTuple) return v.items;
  if (v instanceof PyDict) return v.keys();
  if (v instanceof Undefined) {
    if (v.strict) v.fail();
    return [];
  }
  throw typeError(`'${typeName(v)}' object is not iterable`);
}

export function isIterable(v: PyValue): boolean {
  return typeof v === 'string' || Array.isArray(v) || v instanceof PyTuple || v instanceof PyDict || v instanceof Markup || v instanceof Undefined;
}

export function pyContains(container: PyValue, item: PyValue): boolean {
  if (isString(container)) {
    if (!isString(item)) throw typeError(`'in <string>' requires string as left operand, not ${typeName(item)}`);
    return String(container).includes(String(item));
  }
  if (container instanceof PyDict) return container.has(item);
  if (container instanceof Undefined || Array.isArray(container) || container instanceof PyTuple) {
    return pyIter(container).some((x) => pyEq(x, item));
  }
  throw typeError(`argument of type '${typeName(container)}' is not iterable`);
}

export function isPyError(e: unknown): e is PyError {
  return e instanceof PyError;
}
