/** Python operators: arithmetic, `%` formatting, indexing and slicing. */

import { MAX_SEQUENCE, PyError, typeError } from './errors.js';
import { percentFormat } from './pyformat.js';
import {
  isNumber,
  isString,
  Markup,
  numValue,
  PyFloat,
  PyTuple,
  pyStr,
  typeName,
  Undefined,
  type PyValue,
} from './pyvalue.js';

export class PySlice {
  constructor(readonly start: PyValue, readonly stop: PyValue, readonly step: PyValue) {}
}

const isIntLike = (v: PyValue): v is number | boolean => typeof v === 'number' || typeof v === 'boolean';

function unsupported(op: string, a: PyValue, b: PyValue): PyError {
  return typeError(`unsupported operand type(s) for ${op}: '${typeName(a)}' and '${typeName(b)}'`);
}

function zeroDivision(msg: string): PyError {
  return new PyError('ZeroDivisionError', msg);
}

/** Python floor modulo for numbers. */
function pyMod(x: number, y: number): number {
  const r = x % y;
  return r !== 0 && r < 0 !== y < 0 ? r + y : r;
}

function numeric(op: string, a: number | boolean | PyFloat, b: number | boolean | PyFloat): PyValue {
  const x = numValue(a);
  const y = numValue(b);
  const ints = isIntLike(a) && isIntLike(b);
  const wrap = (r: number): PyValue => (ints ? r : new PyFloat(r));
  switch (op) {
    case '+': return wrap(x + y);
    case '-': return wrap(x - y);
    case '*': return wrap(x * y);
    case '/':
      if (y === 0) throw zeroDivision(ints ? 'division by zero' : 'float division by zero');
      return new PyFloat(x / y);
    case '//':
      if (y === 0) throw zeroDivision(ints ? 'integer division or modulo by zero' : 'float floor division by zero');
      return wrap(Math.floor(x / y));
    case '%':
      if (y === 0) throw zeroDivision(ints ? 'integer modulo by zero' : 'float modulo');
      return wrap(pyMod(x, y));
    case '**':
      if (ints && y >= 0) return x ** y;
      if (x === 0 && y < 0) throw zeroDivision('0.0 cannot be raised to a negative power');
      return new PyFloat(x ** y);
    default:
      throw typeError(`bad operator ${op}`);
  }
}

function repeat<T>(items: readonly T[], n: number): T[] {
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(...items);
  return out;
}

export function binop(op: string, a: PyValue, b: PyValue): PyValue {
  if (a instanceof Undefined) a.fail();
  if (b instanceof Undefined) b.fail();
  if (isNumber(a) && isNumber(b)) return numeric(op, a, b);
  switch (op) {
    case '+':
      if (isString(a) && isString(b)) return a instanceof Markup || b instanceof Markup ? new Markup(String(a) + String(b)) : String(a) + String(b);
      if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
      if (a instanceof PyTuple && b instanceof PyTuple) return new PyTuple([...a.items, ...b.items]);
      if (isString(a) || Array.isArray(a) || a instanceof PyTuple) {
        throw typeError(`can only concatenate ${typeName(a)} (not "${typeName(b)}") to ${typeName(a)}`);
      }
      break;
    case '*': {
      const [seq, n] = isIntLike(b) ? [a, Number(b)] : isIntLike(a) ? [b, Number(a)] : [null, 0];
      const len = typeof seq === 'string' ? seq.length : seq instanceof Markup ? seq.s.length : Array.isArray(seq) ? seq.length : seq instanceof PyTuple ? seq.items.length : 0;
      if (len * Math.max(0, n) > MAX_SEQUENCE) throw new PyError('MemoryError', `a sequence of ${len * n} items is more than the ${MAX_SEQUENCE} a template may build`);
      if (typeof seq === 'string') return seq.repeat(Math.max(0, n));
      if (seq instanceof Markup) return new Markup(seq.s.repeat(Math.max(0, n)));
      if (Array.isArray(seq)) return repeat(seq, n);
      if (seq instanceof PyTuple) return new PyTuple(repeat(seq.items, n));
      if (isString(a) || isString(b) || Array.isArray(a) || Array.isArray(b)) {
        throw typeError(`can't multiply sequence by non-int of type '${typeName(isString(a) || Array.isArray(a) ? b : a)}'`);
      }
      break;
    }
    case '%':
      if (isString(a)) return percentFormat(String(a), b);
      break;
    default:
      break;
  }
  throw unsupported(op, a, b);
}

export function unary(op: '-' | '+', v: PyValue): PyValue {
  if (v instanceof Undefined) v.fail();
  if (!isNumber(v)) throw typeError(`bad operand type for unary ${op}: '${typeName(v)}'`);
  if (op === '+') return typeof v === 'boolean' ? Number(v) : v;
  return v instanceof PyFloat ? new PyFloat(-v.v) : -Number(v) + 0;
}

/** Python's slice.indices(): clamps start/stop for a sequence of length n. */
export function sliceIndices(s: PySlice, n: number): number[] {
  const num = (v: PyValue): number | null => {
    if (v === null || v === undefined || v instanceof Undefined) return null;
    if (isIntLike(v)) return Number(v);
    throw typeError('slice indices must be integers or None or have an __index__ method');
  };
  const step = num(s.step) ?? 1;
  if (step === 0) throw new PyError('ValueError', 'slice step cannot be zero');
  let start = num(s.start);
  let stop = num(s.stop);
  const out: number[] = [];
  if (step > 0) {
    start = start === null ? 0 : start < 0 ? Math.max(0, start + n) : Math.min(start, n);
    stop = stop === null ? n : stop < 0 ? Math.max(0, stop + n) : Math.min(stop, n);
    for (let i = start; i < stop; i += step) out.push(i);
  } else {
    start = start === null ? n - 1 : start < 0 ? Math.max(-1, start + n) : Math.min(start, n - 1);
    stop = stop === null ? -1 : stop < 0 ? Math.max(-1, stop + n) : Math.min(stop, n - 1);
    for (let i = start; i > stop; i += step) out.push(i);
  }
  return out;
}

/** seq[key] for str, list and tuple; returns undefined when out of range (Jinja turns that into Undefined). */
export function sequenceItem(obj: PyValue, key: PyValue): PyValue | undefined {
  const chars = typeof obj === 'string' ? [...obj] : obj instanceof Markup ? [...obj.s] : null;
  const items = Array.isArray(obj) ? obj : obj instanceof PyTuple ? obj.items : chars;
  if (!items) return undefined;
  if (key instanceof PySlice) {
    const picked = sliceIndices(key, items.length).map((i) => items[i]);
    if (chars) return typeof obj === 'string' ? picked.join('') : new Markup(picked.join(''));
    return Array.isArray(obj) ? picked : new PyTuple(picked);
  }
  if (!isIntLike(key)) return undefined;
  let i = Number(key);
  if (i < 0) i += items.length;
  if (i < 0 || i >= items.length) return undefined;
  return items[i];
}

export function concat(values: readonly PyValue[]): string {
  return values.map(pyStr).join('');
}
