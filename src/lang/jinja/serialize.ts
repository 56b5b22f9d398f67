/** Python-compatible JSON (json.dumps), PyYAML-like flow YAML (Salt's yaml filter), URL quoting and HTML escaping. */

import { needsQuotes } from '../python/yaml-resolve.js';
import { typeError } from './errors.js';
import { floatRepr, intStr, isString, Markup, PyDict, PyFloat, PyTuple, pyStr, typeName, Undefined, type PyValue } from './pyvalue.js';

function jsonString(s: string, ensureAscii: boolean): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (c < 0x20 || (ensureAscii && c > 0x7e)) {
      if (c > 0xffff) {
        const v = c - 0x10000;
        out += `\\u${(0xd800 + (v >> 10)).toString(16)}\\u${(0xdc00 + (v & 0x3ff)).toString(16)}`;
      } else out += `\\u${c.toString(16).padStart(4, '0')}`;
    } else out += ch;
  }
  return `${out}"`;
}

function jsonFloat(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  return floatRepr(x);
}

function jsonKey(k: PyValue): string {
  if (isString(k)) return String(k);
  if (k === null) return 'null';
  if (typeof k === 'boolean') return k ? 'true' : 'false';
  if (typeof k === 'number') return intStr(k);
  if (k instanceof PyFloat) return jsonFloat(k.v);
  throw typeError(`keys must be str, int, float, bool or None, not ${typeName(k)}`);
}

export interface JsonOptions {
  sortKeys: boolean;
  indent: number | string | null;
  ensureAscii: boolean;
}

export function jsonDumps(v: PyValue, opts: JsonOptions): string {
  const indentUnit = opts.indent === null ? null : typeof opts.indent === 'number' ? ' '.repeat(opts.indent) : opts.indent;
  const enc = (x: PyValue, level: number): string => {
    if (x === null) return 'null';
    if (x === true) return 'true';
    if (x === false) return 'false';
    if (typeof x === 'number') return intStr(x);
    if (x instanceof PyFloat) return jsonFloat(x.v);
    if (isString(x)) return jsonString(String(x), opts.ensureAscii);
    const open = (items: string[], o: string, c: string): string => {
      if (items.length === 0) return o + c;
      if (indentUnit === null) return o + items.join(', ') + c;
      const pad = `\n${indentUnit.repeat(level + 1)}`;
      return `${o}${pad}${items.join(`,${pad}`)}\n${indentUnit.repeat(level)}${c}`;
    };
    if (Array.isArray(x) || x instanceof PyTuple) {
      const items = Array.isArray(x) ? x : x.items;
      return open(items.map((i) => enc(i, level + 1)), '[', ']');
    }
    if (x instanceof PyDict) {
      let entries = x.entries();
      if (opts.sortKeys) {
        entries = [...entries].sort((a, b) => {
          const ka = a[0];
          const kb = b[0];
          if (isString(ka) && isString(kb)) return String(ka) < String(kb) ? -1 : String(ka) > String(kb) ? 1 : 0;
          if (typeof ka === 'number' && typeof kb === 'number') return ka - kb;
          throw typeError(`'<' not supported between instances of '${typeName(kb)}' and '${typeName(ka)}'`);
        });
      }
      return open(entries.map(([k, val]) => `${jsonString(jsonKey(k), opts.ensureAscii)}: ${enc(val, level + 1)}`), '{', '}');
    }
    const tn = x instanceof Undefined ? 'Undefined' : typeName(x);
    throw typeError(`Object of type ${tn} is not JSON serializable`);
  };
  return enc(v, 0);
}

/** Jinja's tojson: sorted keys, then HTML-sensitive characters escaped. */
export function htmlSafeJson(v: PyValue, indent: number | string | null): Markup {
  const s = jsonDumps(v, { sortKeys: true, indent, ensureAscii: true });
  return new Markup(s.replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/'/g, '\\u0027'));
}


function yamlScalarString(s: string): string {
  if (s === '') return "''";
  if (/[\x00-\x08\x0b-\x1f\x7f\n\r\t]/.test(s)) return jsonString(s, false);
  const plainOk =
    !needsQuotes(s) &&
    !/^[-?:,[\]{}#&*!|>'"%@`\s]/.test(s) &&
    !/\s$/.test(s) &&
    !/: |:$| #|[,[\]{}]/.test(s);
  return plainOk ? s : `'${s.replace(/'/g, "''")}'`;
}

function yamlFloat(x: number): string {
  if (Number.isNaN(x)) return '.nan';
  if (!Number.isFinite(x)) return x > 0 ? '.inf' : '-.inf';
  let r = floatRepr(x);
  if (!r.includes('.') && r.includes('e')) r = r.replace('e', '.0e');
  return r;
}

/** Salt's `yaml` filter: yaml.safe_dump(value, default_flow_style=True) without the document end marker. */
export function yamlFlow(v: PyValue): string {
  const enc = (x: PyValue): string => {
    if (x === null) return 'null';
    if (x === true) return 'true';
    if (x === false) return 'false';
    if (typeof x === 'number') return intStr(x);
    if (x instanceof PyFloat) return yamlFloat(x.v);
    if (isString(x)) return yamlScalarString(String(x));
    if (Array.isArray(x) || x instanceof PyTuple) return `[${(Array.isArray(x) ? x : x.items).map(enc).join(', ')}]`;
    if (x instanceof PyDict) {
      const entries = [...x.entries()].sort((a, b) => (pyStr(a[0]) < pyStr(b[0]) ? -1 : pyStr(a[0]) > pyStr(b[0]) ? 1 : 0));
      return `{${entries.map(([k, val]) => `${enc(k)}: ${enc(val)}`).join(', ')}}`;
    }
    throw new TypeError(`cannot represent an object: ${typeName(x)}`);
  };
  return enc(v);
}

/** urllib.parse.quote of the UTF-8 bytes; `safe` characters stay as they are. */
export function urlQuote(s: string, safe: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const ch = String.fromCharCode(b);
    if (/[A-Za-z0-9_.~-]/.test(ch) || safe.includes(ch)) out += ch;
    else out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

export function htmlEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;').replace(/'/g, '&#39;');
}
