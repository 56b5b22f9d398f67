/**
 * Salt's argument coercions, shared by the state functions: Python's str() of SLS data (a mapping argument
 * becomes `OrderedDict([('a', 1)])` as Salt writes it, never `[object Object]`), normalize_mode, _validate_str_list and
 * the truthiness Python gives a value.
 */
import { strRepr } from '../../../lang/jinja/pyvalue.js';

function repr(v: unknown): string {
  if (typeof v === 'string') return strRepr(v);
  return pyText(v);
}

/** Python's str() of a value loaded from YAML. */
export function pyText(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v)) return `[${v.map(repr).join(', ')}]`;
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  // Salt's YAML loader makes every mapping of an SLS an OrderedDict.
  if (typeof v === 'object') {
    const items = Object.entries(v as Record<string, unknown>).map(([k, x]) => `(${strRepr(k)}, ${repr(x)})`);
    return items.length > 0 ? `OrderedDict([${items.join(', ')}])` : 'OrderedDict()';
  }
  return String(v);
}

/** Python truthiness of a YAML value. */
export function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v as object).length > 0;
  return true;
}

/** Salt's normalize_mode: any value as a string with the leading zeros stripped, padded to four digits (644 → "0644"). */
export function normalizeMode(v: unknown): string | undefined {
  if (v === null || v === undefined) return undefined;
  // The same few modes come back state after state: each text worked out once.
  const text = pyText(v);
  let mode = MODES.get(text);
  if (mode === undefined) {
    mode = text.replace('0o', '0').replace(/^["']+|["']+$/g, '').replace(/^0+/, '').padStart(4, '0');
    if (MODES.size < 1000) MODES.set(text, mode);
  }
  return mode;
}

const MODES = new Map<string, string>();

/** Salt's _validate_str_list: a string, or every item of a list as a string, as a list. */
export function strList(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'string' ? x : pyText(x)));
  if (typeof v === 'object') return [pyText(v)];
  return [pyText(v)];
}

/** Whether a text holds one of the line breaks of Python's str.splitlines (one pass, no regular expression). */
function hasLineBreak(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // Printable ASCII, most of a text, is answered by the first test.
    if (c >= 0x20 && c < 0x7f) continue;
    if ((c >= 0x0a && c <= 0x0d) || (c >= 0x1c && c <= 0x1e) || c === 0x85 || c === 0x2028 || c === 0x2029) return true;
  }
  return false;
}

/** Python's str.splitlines (without the line ends). */
export function pySplitLines(s: string): string[] {
  // Text without a line break is one line (none when empty).
  if (!hasLineBreak(s)) return s === '' ? [] : [s];
  const out = s.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out;
}

/** A state's `env` argument (a mapping, or a list of mappings, as Salt accepts it) as text values. */
export function envOf(v: unknown): Record<string, string> | undefined {
  if (v === undefined || v === null) return undefined;
  const out: Record<string, string> = {};
  const add = (o: unknown) => {
    if (o && typeof o === 'object' && !Array.isArray(o)) for (const [k, val] of Object.entries(o)) out[k] = pyText(val);
  };
  if (Array.isArray(v)) v.forEach(add);
  else add(v);
  return out;
}
