import { formatShortest } from '../shortest-float.js';

/** Python's repr() of a float, exactly as CPython writes it: the shortest digits that read back the same. */
export function floatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  // Where both write fixed notation (exponents -4 … 15), JavaScript's shortest digits are Python's.
  const a = Math.abs(x);
  if (a >= 1e-4 && a < 1e16) return Number.isInteger(x) ? `${x}.0` : String(x);
  // CPython's float_repr_style 'short': fixed notation for exponents -4 … 15, scientific outside.
  return formatShortest(x, { fixedFrom: -4, fixedBelow: 16, wholeSuffix: '.0' });
}

/** Python's str() of an int held as a JavaScript number (exact digits past 2**53, as Python would print). */
export function intStr(n: number): string {
  return Number.isSafeInteger(n) || !Number.isFinite(n) ? String(n) : BigInt(n).toString();
}
