/**
 * Values printed the way Converge's Go code prints them: `%v` for param messages, `%s` for module
 * messages and graph labels, where a value that is not a string shows as `%!s(TYPE=VALUE)`.
 */

/** A number as Go's %v prints it: integers without a fraction, others in shortest form. */
function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  const s = String(n);
  // Go writes exponents with at least two digits: 1e-07, 1e+21.
  return s.replace(/e([+-])(\d)$/, 'e$10$2');
}

/** `%v` of a decoded value. */
export function goV(v: unknown): string {
  if (v === undefined || v === null) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goV).join(' ')}]`;
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `map[${entries.map(([k, x]) => `${k}:${goV(x)}`).join(' ')}]`;
  }
  return String(v);
}

/**
 * `%s` of a decoded value. `numbers` names the Go type numbers have: `int` for whole numbers read from HCL
 * (else float64), or `float64` for values that went through JSON, as graph labels do.
 */
export function goS(v: unknown, numbers: 'hcl' | 'json'): string {
  if (v === undefined || v === null) return '%!s(<nil>)';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return `%!s(${numbers === 'hcl' && Number.isInteger(v) ? 'int' : 'float64'}=${goNumber(v)})`;
  if (typeof v === 'boolean') return `%!s(bool=${String(v)})`;
  if (Array.isArray(v)) return `[${v.map((x) => goS(x, numbers)).join(' ')}]`;
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `map[${entries.map(([k, x]) => `${k}:${goS(x, numbers)}`).join(' ')}]`;
  }
  return String(v);
}
