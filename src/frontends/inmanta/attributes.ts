/** Reading an attribute of an instance, and the type name errors give a value. */
import type { Span } from '../../core/diag.js';
import { InmantaError } from './errors.js';
import { isInstance, pyStr, typeName, type Value } from './values.js';
import { ListVar, type ResultVar } from './vars.js';

/** The type name the compiler's messages give a value (`Instance` for an entity instance). */
export function pyTypeName(v: Value): string {
  return isInstance(v) ? 'Instance' : typeName(v);
}

export function readAttribute(obj: Value, name: string, span: Span, source?: string): Value {
  if (Array.isArray(obj)) throw new InmantaError('RuntimeException', `can not get attribute ${name}, ${pyStr(obj)} is not an entity but a list`, span);
  if (!isInstance(obj)) {
    throw new InmantaError('RuntimeException', `can not get attribute ${name}, ${source ?? pyStr(obj)} is not an entity but a ${pyTypeName(obj)} with value '${pyStr(obj)}'`, span);
  }
  const slot = obj.slot(name, span);
  try {
    if (slot instanceof ListVar) return [...slot.get()];
    return (slot as ResultVar).get();
  } catch (e) {
    if (InmantaError.is(e)) e.at(span);
    throw e;
  }
}
