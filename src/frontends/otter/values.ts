/** Runtime values: a scalar is a string, a vector an array, a map a Map with case-insensitive keys. */
import type { Sigil } from './ast.js';

export type Value = string | readonly Value[] | OtterMap;
export type OtterMap = ReadonlyMap<string, Value>;

export function isVector(v: Value): v is readonly Value[] {
  return Array.isArray(v);
}

export function isMap(v: Value): v is OtterMap {
  return v instanceof Map;
}

export function sigilOf(v: Value): Sigil {
  return isVector(v) ? '@' : isMap(v) ? '%' : '$';
}

export function typeName(sigil: Sigil): string {
  return sigil === '$' ? 'scalar' : sigil === '@' ? 'vector' : 'map';
}

/** The text of a value; vectors and maps read as OtterScript literals, as Otter prints them. */
export function toText(v: Value): string {
  if (typeof v === 'string') return v;
  if (isVector(v)) return `@(${v.map(toText).join(', ')})`;
  return `%(${[...(v as OtterMap).entries()].map(([k, x]) => `${k}: ${toText(x)}`).join(', ')})`;
}

export function mapGet(m: OtterMap, key: string): Value | undefined {
  const exact = m.get(key);
  if (exact !== undefined) return exact;
  const lower = key.toLowerCase();
  for (const [k, v] of m) if (k.toLowerCase() === lower) return v;
  return undefined;
}

/** A copy of the map with `key` set (replacing a key that differs only in case). */
export function mapWith(m: OtterMap, key: string, value: Value): OtterMap {
  const out = new Map<string, Value>();
  let placed = false;
  for (const [k, v] of m) {
    if (k.toLowerCase() === key.toLowerCase()) {
      out.set(key, value);
      placed = true;
    } else out.set(k, v);
  }
  if (!placed) out.set(key, value);
  return out;
}

export function mapWithout(m: OtterMap, key: string): OtterMap {
  return new Map([...m].filter(([k]) => k.toLowerCase() !== key.toLowerCase()));
}

/** Scalars that mean true: `true` in any case. */
export function isTrue(v: Value): boolean {
  return typeof v === 'string' && v.trim().toLowerCase() === 'true';
}

export function toJson(v: Value): unknown {
  if (typeof v === 'string') return v;
  if (isVector(v)) return v.map(toJson);
  return Object.fromEntries([...(v as OtterMap)].map(([k, x]) => [k, toJson(x)]));
}

export function fromJson(j: unknown): Value {
  if (j === null || j === undefined) return '';
  if (Array.isArray(j)) return j.map(fromJson);
  if (typeof j === 'object') return new Map(Object.entries(j as Record<string, unknown>).map(([k, x]) => [k, fromJson(x)]));
  return String(j);
}
