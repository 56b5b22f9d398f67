/** Python's str() and repr() of the values Salt puts into its messages (dicts, lists, strings, numbers). */

export function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : v > 0 ? 'inf' : v < 0 ? '-inf' : 'nan';
  if (typeof v === 'string') {
    const q = v.includes("'") && !v.includes('"') ? '"' : "'";
    let out = '';
    for (const c of v) {
      if (c === q || c === '\\') out += `\\${c}`;
      else if (c === '\n') out += '\\n';
      else if (c === '\r') out += '\\r';
      else if (c === '\t') out += '\\t';
      else if (c < ' ' || c === '\x7f') out += `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
      else out += c;
    }
    return q + out + q;
  }
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  if (typeof v === 'object') return `{${Object.entries(v as Record<string, unknown>).map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`).join(', ')}}`;
  return String(v);
}

export function pyStr(v: unknown): string {
  return typeof v === 'string' ? v : pyRepr(v);
}
