/**
 * A finite, non-zero double in its shortest round-tripping digits, the way Python's repr() and Go's %v
 * both write it: fixed notation between two decimal exponents, else `d.ddde±XX` (at least two exponent
 * digits). They differ only in where exponent form starts and whether a whole number keeps a `.0`.
 */
export interface ShortestStyle {
  /** Exponent form below this decimal exponent (both: -4). */
  readonly fixedFrom: number;
  /** Exponent form from this decimal exponent on (Python: 16, Go: 6). */
  readonly fixedBelow: number;
  /** What a whole number in fixed notation ends with (Python: `.0`, Go: nothing). */
  readonly wholeSuffix: string;
}

export function formatShortest(x: number, style: ShortestStyle): string {
  const [mant = '', expText = '0'] = x.toExponential().split('e');
  const exp = Number(expText);
  const neg = mant.startsWith('-');
  const digits = mant.replace(/[-.]/g, '');
  let body: string;
  if (exp >= style.fixedFrom && exp < style.fixedBelow) {
    if (exp < 0) body = `0.${'0'.repeat(-exp - 1)}${digits}`;
    else if (digits.length <= exp + 1) body = `${digits}${'0'.repeat(exp + 1 - digits.length)}${style.wholeSuffix}`;
    else body = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  } else {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    body = `${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return neg ? `-${body}` : body;
}
