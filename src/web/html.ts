/** HTML built from templates in which every interpolated value is escaped unless it is already HTML. */

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

const SPECIAL = /[&<>"']/;

export function escapeHtml(text: string): string {
  return SPECIAL.test(text) ? text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c) : text;
}

function part(v: unknown): string {
  if (v instanceof Html) return v.text;
  if (v === undefined || v === null || v === false) return '';
  if (Array.isArray(v)) return v.map(part).join('');
  return escapeHtml(String(v));
}

/** `html\`<td>${name}</td>\`` escapes `name`; nested Html and arrays of Html go in as they are. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += part(values[i]) + (strings[i + 1] ?? '');
  return new Html(out);
}

/** A query string from the set values, for links that keep the current filters. */
export function query(params: Readonly<Record<string, string | number | undefined>>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const text = q.toString();
  return text ? `?${text}` : '';
}

/** A stable, attribute-safe anchor for a result on a run page. */
export function anchor(host: string, resource: string): string {
  return `r-${Buffer.from(`${host}\u0000${resource}`).toString('base64url')}`;
}

export function shortTime(iso: string | undefined): string {
  return iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '';
}

export function duration(ms: number | undefined): string {
  if (ms === undefined) return '';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}
