/** Python's int() and float() conversions as Jinja's int and float filters use them. */

import { isNumber, isString, numValue, PyFloat, pyStr, type PyValue } from './pyvalue.js';

/** float(str) as Python parses it, or undefined when Python would raise ValueError. */
export function parsePyFloat(text: string): number | undefined {
  const t = text.trim().toLowerCase();
  if (/^[-+]?(inf|infinity)$/.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  if (/^[-+]?nan$/.test(t)) return Number.NaN;
  if (!/^[-+]?(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:e[-+]?\d(?:_?\d)*)?$/.test(t)) return undefined;
  return Number(t.replace(/_/g, ''));
}

/** int(str, base), or undefined for ValueError. */
export function parsePyInt(text: string, base: number): number | undefined {
  let t = text.trim().toLowerCase();
  let sign = 1;
  if (t.startsWith('-') || t.startsWith('+')) {
    if (t[0] === '-') sign = -1;
    t = t.slice(1);
  }
  let b = base;
  const prefix = /^0([box])/.exec(t);
  if (prefix) {
    const pb = prefix[1] === 'b' ? 2 : prefix[1] === 'o' ? 8 : 16;
    if (b === 0 || b === pb) {
      b = pb;
      t = t.slice(2).replace(/^_/, '');
    }
  }
  if (b === 0) b = 10;
  const digits = '0123456789abcdefghijklmnopqrstuvwxyz'.slice(0, b);
  if (t === '' || !t.split('_').every((part) => part.length > 0 && [...part].every((c) => digits.includes(c)))) return undefined;
  return sign * Number.parseInt(t.replace(/_/g, ''), b);
}

export function toPyInt(v: PyValue, dflt: PyValue, base: number): PyValue {
  if (isString(v)) {
    const i = parsePyInt(pyStr(v), base);
    if (i !== undefined) return i;
    const f = parsePyFloat(pyStr(v));
    if (f === undefined || Number.isNaN(f)) return dflt;
    if (!Number.isFinite(f)) throw new Error('OverflowError');
    return Math.trunc(f);
  }
  if (isNumber(v)) {
    const x = numValue(v);
    return Number.isFinite(x) ? Math.trunc(x) + 0 : dflt;
  }
  return dflt;
}

export function toPyFloat(v: PyValue, dflt: PyValue): PyValue {
  if (isString(v)) {
    const f = parsePyFloat(pyStr(v));
    return f === undefined ? dflt : new PyFloat(f);
  }
  if (isNumber(v)) return new PyFloat(numValue(v));
  return dflt;
}
