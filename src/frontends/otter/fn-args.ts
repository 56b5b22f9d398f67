/** Reading function arguments as the type a function needs, with an error that points at the call. */
import type { Span } from '../../core/diag.js';
import { OtterError } from './errors.js';
import { isMap, isVector, type OtterMap, toText, type Value } from './values.js';

export function scalar(v: Value | undefined, span: Span, what = 'argument'): string {
  if (v === undefined) return '';
  if (typeof v !== 'string') throw new OtterError(`${what} must be a scalar`, span);
  return v;
}

export function vector(v: Value | undefined, span: Span): readonly Value[] {
  if (v !== undefined && isVector(v)) return v;
  if (typeof v === 'string') return [v];
  throw new OtterError('argument must be a vector', span);
}

export function map(v: Value | undefined, span: Span): OtterMap {
  if (v !== undefined && isMap(v)) return v;
  throw new OtterError('argument must be a map', span);
}

export function int(v: Value | undefined, span: Span, what = 'argument'): number {
  const n = Number(scalar(v, span, what));
  if (!Number.isInteger(n)) throw new OtterError(`${what} must be a whole number, got "${toText(v ?? '')}"`, span);
  return n;
}

export function num(v: Value | undefined, span: Span): number {
  const n = Number(scalar(v, span));
  if (scalar(v, span).trim() === '' || Number.isNaN(n)) throw new OtterError(`"${toText(v ?? '')}" is not a number`, span);
  return n;
}

