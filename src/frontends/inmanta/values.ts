/** Runtime values with Python semantics: ints are JS integers, floats are boxed so they print as Python does. */
import { floatRepr } from '../../lang/python/float.js';
import type { Instance } from './instance.js';

export class Float {
  constructor(readonly v: number) {}
}

export type Value = null | boolean | number | string | Float | readonly Value[] | DictValue | Instance;
export type DictValue = ReadonlyMap<string, Value>;

export function isDict(v: unknown): v is DictValue {
  return v instanceof Map;
}

export function isFloat(v: unknown): v is Float {
  return v instanceof Float;
}

export function num(v: Value): number | undefined {
  if (typeof v === 'number') return v;
  if (v instanceof Float) return v.v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  return undefined;
}

export function isInstance(v: unknown): v is Instance {
  return typeof v === 'object' && v !== null && (v as { isInstance?: unknown }).isInstance === true;
}

/** Python's repr() of a float, as the compiler prints one (the one implementation in lang/python). */
export const pyFloatRepr = floatRepr;

export function pyRepr(v: Value): string {
  if (typeof v === 'string') return pyQuote(v);
  return pyStr(v, true);
}

/** The characters that make Python's repr of a string more than the string between quotes. */
const NEEDS_ESCAPES = /['\\\n\t\r]/;

function pyQuote(s: string): string {
  if (!NEEDS_ESCAPES.test(s)) return `'${s}'`;
  const q = s.includes("'") && !s.includes('"') ? '"' : "'";
  const body = s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\t/g, '\\t').replace(/\r/g, '\\r');
  return q + (q === "'" ? body.replace(/'/g, "\\'") : body) + q;
}

/** What std::print shows: a list or dict reaches the plugin as a proxy, printed `@` + repr with None as `null`. */
export function printed(v: Value): string {
  if (Array.isArray(v) || isDict(v)) return `@${proxyRepr(v)}`;
  return pyStr(v);
}

/** A value placed in a string ("{{x}}" or an f-string): null, also inside lists and dicts, shows as `null`. */
export function interpolatedText(v: Value): string {
  return v === null || Array.isArray(v) || isDict(v) ? proxyRepr(v) : pyStr(v);
}

function proxyRepr(v: Value): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return `[${v.map(proxyRepr).join(', ')}]`;
  if (isDict(v)) return `{${[...v].map(([k, x]) => `${pyQuote(k)}: ${proxyRepr(x)}`).join(', ')}}`;
  return pyRepr(v);
}

/** Python's str(): what print() and interpolation show. */
export function pyStr(v: Value, nested = false): string {
  if (v === null) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return nested ? pyQuote(v) : v;
  if (v instanceof Float) return pyFloatRepr(v.v);
  if (Array.isArray(v)) return `[${v.map((x) => pyRepr(x)).join(', ')}]`;
  if (isDict(v)) return `{${[...v].map(([k, x]) => `${pyQuote(k)}: ${pyRepr(x)}`).join(', ')}}`;
  return String(v);
}

export function truthy(v: Value): boolean {
  if (v === null || v === false || v === 0 || v === '') return false;
  if (v instanceof Float) return v.v !== 0;
  if (Array.isArray(v)) return v.length > 0;
  if (isDict(v)) return v.size > 0;
  return true;
}

export function pyEquals(a: Value, b: Value): boolean {
  if (a === b) return true;
  const na = num(a);
  const nb = num(b);
  if (na !== undefined && nb !== undefined && typeof a !== 'boolean' && typeof b !== 'boolean') return na === nb;
  if (typeof a === 'boolean' || typeof b === 'boolean') return na !== undefined && na === nb;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => pyEquals(x, b[i] as Value));
  if (isDict(a) && isDict(b)) return a.size === b.size && [...a].every(([k, x]) => b.has(k) && pyEquals(x, b.get(k) as Value));
  return false;
}

/** The type name the real compiler shows in typing errors. */
export function typeName(v: Value): string {
  if (v === null) return 'NoneType';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'int';
  if (typeof v === 'string') return 'str';
  if (v instanceof Float) return 'float';
  if (Array.isArray(v)) return 'list';
  if (isDict(v)) return 'dict';
  return (v as Instance).entity.fullName;
}

/** Plain JSON/JS form, for export and templates. */
export function toPlain(v: Value): unknown {
  // Strings, numbers, booleans and null (most attributes) are their own plain value.
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof Float) return v.v;
  if (Array.isArray(v)) return v.map(toPlain);
  if (isDict(v)) return Object.fromEntries([...v].map(([k, x]) => [k, toPlain(x)]));
  if (isInstance(v)) return String(v);
  return v;
}
