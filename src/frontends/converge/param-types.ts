/**
 * The optional `type` of a param (beyond Converge, which has none): string, int, float, bool, list or map.
 * A value from `-p` is text, so it is converted to the declared type; other values must already match.
 */
const TYPES = ['string', 'int', 'float', 'bool', 'list', 'map'] as const;

function typeOf(v: unknown): string {
  if (Array.isArray(v)) return 'list';
  if (typeof v === 'object' && v !== null) return 'map';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  return typeof v;
}

export function checkParamType(name: string, type: string | undefined, value: unknown, fromText: boolean): unknown {
  if (type === undefined) return value;
  if (!(TYPES as readonly string[]).includes(type)) return { problem: `param ${JSON.stringify(name)}: unknown type ${JSON.stringify(type)} (known: ${TYPES.join(', ')})` };
  let v = value;
  if (fromText && typeof v === 'string') {
    if (type === 'int' && /^-?\d+$/.test(v)) v = Number(v);
    else if (type === 'float' && v.trim() !== '' && Number.isFinite(Number(v))) v = Number(v);
    else if (type === 'bool' && (v === 'true' || v === 'false')) v = v === 'true';
    else if (type === 'list' || type === 'map') {
      try {
        v = JSON.parse(v);
      } catch {
        // reported below as a type mismatch
      }
    }
  }
  const actual = typeOf(v);
  const ok = actual === type || (type === 'float' && actual === 'int');
  if (!ok) return { problem: `param ${JSON.stringify(name)} must be of type ${type}, got ${actual} ${JSON.stringify(v)}` };
  return v;
}
