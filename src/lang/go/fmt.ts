/**
 * Go's fmt printing of the values Converge and Go templates see: `%v`, and `%s` with Go's
 * `%!s(TYPE=VALUE)` for a value that is not a string. Whole numbers read from HCL are Go ints; numbers
 * that went through JSON (or have a fraction) are float64, printed as `%v` prints a float64: the shortest
 * digits, in exponent form when the decimal exponent is below -4 or at least 6 (`%g` with the shortest precision), with at least two exponent digits.
 */
import { formatShortest } from '../shortest-float.js';

/** Which Go type a whole number has: `int` when read from HCL, `float64` when decoded from JSON. */
export type GoNumbers = 'hcl' | 'json';

/** `%v` of a float64. */
export function goFloat(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : '-Inf';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  // %g with the shortest precision: exponent form below 1e-4 and from 1e6 on.
  return formatShortest(n, { fixedFrom: -4, fixedBelow: 6, wholeSuffix: '' });
}

/** `%v` of a number of the given kind. */
export function goNumber(n: number, numbers: GoNumbers = 'hcl'): string {
  if (numbers === 'hcl' && Number.isInteger(n)) return Number.isSafeInteger(n) ? String(n) : BigInt(n).toString();
  return goFloat(n);
}

function sortedEntries(v: object): Array<[string, unknown]> {
  return Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** `%v` of a decoded value; nil inside a list or map is `<nil>`. */
export function goV(v: unknown, numbers: GoNumbers = 'hcl'): string {
  if (v === undefined || v === null) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goNumber(v, numbers);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map((x) => goV(x, numbers)).join(' ')}]`;
  if (typeof v === 'object') return `map[${sortedEntries(v).map(([k, x]) => `${k}:${goV(x, numbers)}`).join(' ')}]`;
  return String(v);
}

/** The Go type name fmt shows in `%!verb(TYPE=VALUE)`. */
export function goTypeOf(v: unknown, numbers: GoNumbers = 'hcl'): string {
  if (v === undefined || v === null) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return numbers === 'hcl' && Number.isInteger(v) ? 'int' : 'float64';
  if (Array.isArray(v)) return v.every((x) => typeof x === 'string') ? '[]string' : '[]interface {}';
  return 'map[string]interface {}';
}

/** `%s` of a decoded value: a number, bool or nil is shown as Go's `%!s(TYPE=VALUE)`. */
export function goS(v: unknown, numbers: GoNumbers): string {
  if (v === undefined || v === null) return '%!s(<nil>)';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return `%!s(${goTypeOf(v, numbers)}=${goV(v, numbers)})`;
  // Inside a slice or map, a nil interface prints as <nil> whatever the verb.
  const inner = (x: unknown): string => (x === undefined || x === null ? '<nil>' : goS(x, numbers));
  if (Array.isArray(v)) return `[${v.map(inner).join(' ')}]`;
  if (typeof v === 'object') return `map[${sortedEntries(v).map(([k, x]) => `${k}:${inner(x)}`).join(' ')}]`;
  return String(v);
}
