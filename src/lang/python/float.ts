/** Python's repr() of a float, exactly as CPython writes it: the shortest digits that read back the same. */
export function floatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mant = '', expText = '0'] = x.toExponential().split('e');
  const exp = Number(expText);
  const neg = mant.startsWith('-');
  const digits = mant.replace(/[-.]/g, '');
  let body: string;
  // CPython's float_repr_style 'short': fixed notation for exponents -4 … 15, scientific outside.
  if (exp >= -4 && exp < 16) {
    if (exp < 0) body = `0.${'0'.repeat(-exp - 1)}${digits}`;
    else if (digits.length <= exp + 1) body = `${digits}${'0'.repeat(exp + 1 - digits.length)}.0`;
    else body = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  } else {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    body = `${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return neg ? `-${body}` : body;
}

/** Python's str() of an int held as a JavaScript number (exact digits past 2**53, as Python would print). */
export function intStr(n: number): string {
  return Number.isSafeInteger(n) || !Number.isFinite(n) ? String(n) : BigInt(n).toString();
}
