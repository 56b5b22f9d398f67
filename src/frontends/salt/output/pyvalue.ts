/** How Python prints the scalars Salt's outputters show (str() of bools, None and floats). */

/** A number Python holds as a float: printed with a `.0` when whole. */
export class PyFloat {
  constructor(readonly value: number) {}
  toString(): string {
    return pyFloat(this.value);
  }
}

export function pyFloat(n: number): string {
  if (Number.isInteger(n)) return `${n}.0`;
  const s = String(n);
  // Python switches to exponent notation below 1e-4; JavaScript below 1e-6.
  if (Math.abs(n) < 1e-4 && n !== 0) {
    const [m, e] = n.toExponential().split('e');
    const exp = Number(e);
    return `${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return s;
}

export function pyStr(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (v instanceof PyFloat) return v.toString();
  return String(v);
}
