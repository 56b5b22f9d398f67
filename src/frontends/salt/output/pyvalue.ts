/** How Python prints the scalars Salt's outputters show (str() of bools, None and floats). */
import { floatRepr } from '../../../lang/python/float.js';

/** A number Python holds as a float: printed with a `.0` when whole. */
export class PyFloat {
  constructor(readonly value: number) {}
  toString(): string {
    return pyFloat(this.value);
  }
}

/** str() of a number Python holds as a float. */
export const pyFloat = floatRepr;

export function pyStr(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (v instanceof PyFloat) return v.toString();
  return String(v);
}
