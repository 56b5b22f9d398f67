/**
 * Python's repr() and pprint.pformat() (width 80, dicts sorted) of the plain data salt-call prints with
 * `--out pprint`, `--out txt` and `--out raw`: dicts, lists, strings, numbers, booleans and None.
 */
import { PyFloat, pyFloat } from './pyvalue.js';

import { PLAIN_DICTS } from './plain-dicts.js';

/** Salt's OrderedDict (high data read from YAML): repr `OrderedDict([(k, v), ...])`, never sorted. */
export class PyOrderedDict {
  constructor(readonly entries: Array<[string, unknown]>) {}
}

/** Salt's DefaultOrderedDict (state.show_top): its repr names the factory class. */
export class PyDefaultOrderedDict {
  constructor(readonly entries: Array<[string, unknown]>) {}
}

class PyTuple {
  constructor(readonly items: unknown[]) {}
}

function isMapping(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof PyFloat) && !(v instanceof PyOrderedDict) && !(v instanceof PyDefaultOrderedDict) && !(v instanceof PyTuple);
}

function pairs(entries: Array<[string, unknown]>): PyTuple[] {
  return entries.map(([k, v]) => new PyTuple([k, v]));
}

function strRepr(s: string): string {
  const q = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = '';
  for (const c of s) {
    const code = c.codePointAt(0) as number;
    if (c === q || c === '\\') out += `\\${c}`;
    else if (c === '\n') out += '\\n';
    else if (c === '\r') out += '\\r';
    else if (c === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += c;
  }
  return q + out + q;
}

function sortedEntries(v: Record<string, unknown>): Array<[string, unknown]> {
  return Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** repr(); `sort` sorts dict keys as pprint's repr does. */
export function pyRepr(v: unknown, sort = false): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (v instanceof PyFloat) return v.toString();
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : pyFloat(v);
  if (typeof v === 'string') return strRepr(v);
  if (Array.isArray(v)) return `[${v.map((x) => pyRepr(x, sort)).join(', ')}]`;
  if (v instanceof PyTuple) return v.items.length === 1 ? `(${pyRepr(v.items[0], sort)},)` : `(${v.items.map((x) => pyRepr(x, sort)).join(', ')})`;
  if (v instanceof PyOrderedDict) return v.entries.length === 0 ? 'OrderedDict()' : `OrderedDict(${pyRepr(pairs(v.entries), sort)})`;
  if (v instanceof PyDefaultOrderedDict) {
    const inner = v.entries.length === 0 ? 'DefaultOrderedDict()' : `DefaultOrderedDict(${pyRepr(pairs(v.entries), sort)})`;
    return `DefaultOrderedDict(<class 'salt.utils.odict.OrderedDict'>, ${inner})`;
  }
  if (isMapping(v)) {
    const entries = sort ? sortedEntries(v) : Object.entries(v);
    return `{${entries.map(([k, x]) => `${strRepr(k)}: ${pyRepr(x, sort)}`).join(', ')}}`;
  }
  return strRepr(String(v));
}

const WIDTH = 80;

class Printer {
  out = '';

  format(obj: unknown, indent: number, allowance: number, level: number): void {
    const rep = pyRepr(obj, true);
    if (rep.length > WIDTH - indent - allowance) {
      if (isMapping(obj) && Object.keys(obj).length > 0) return this.dict(obj, indent, allowance, level + 1);
      if (Array.isArray(obj) && obj.length > 0) return this.list(obj, indent, allowance, level + 1);
      if (typeof obj === 'string' && obj.length > 0) return this.str(obj, indent, allowance, level + 1);
      if (obj instanceof PyTuple && obj.items.length > 0) return this.tuple(obj, indent, allowance, level + 1);
      if (obj instanceof PyOrderedDict && obj.entries.length > 0) {
        this.out += 'OrderedDict(';
        this.format(pairs(obj.entries), indent + 12, allowance + 1, level + 1);
        this.out += ')';
        return;
      }
    }
    this.out += rep;
  }

  private dict(obj: Record<string, unknown>, indent: number, allowance: number, level: number): void {
    this.out += '{';
    const items = sortedEntries(obj);
    const inner = indent + 1;
    items.forEach(([k, v], i) => {
      const last = i === items.length - 1;
      const rep = strRepr(k);
      this.out += `${rep}: `;
      this.format(v, inner + rep.length + 2, last ? allowance + 1 : 1, level);
      if (!last) this.out += `,\n${' '.repeat(inner)}`;
    });
    this.out += '}';
  }

  private items(obj: unknown[], indent: number, allowance: number, level: number): void {
    const inner = indent + 1;
    obj.forEach((v, i) => {
      const last = i === obj.length - 1;
      if (i > 0) this.out += `,\n${' '.repeat(inner)}`;
      this.format(v, inner, last ? allowance : 1, level);
    });
  }

  private list(obj: unknown[], indent: number, allowance: number, level: number): void {
    this.out += '[';
    this.items(obj, indent, allowance + 1, level);
    this.out += ']';
  }

  private tuple(obj: PyTuple, indent: number, allowance: number, level: number): void {
    const end = obj.items.length === 1 ? ',)' : ')';
    this.out += '(';
    this.items(obj.items, indent, allowance + end.length, level);
    this.out += end;
  }

  /** pprint's _pprint_str: a long string split at whitespace into adjacent literals. */
  private str(s: string, indent: number, allowance: number, level: number): void {
    const lines = s.split(/(?<=\n)/);
    if (level === 1) {
      indent += 1;
      allowance += 1;
    }
    const maxWidth = WIDTH - indent;
    let maxWidth1 = maxWidth;
    const chunks: string[] = [];
    lines.forEach((line, i) => {
      const rep = strRepr(line);
      if (i === lines.length - 1) maxWidth1 -= allowance;
      if (rep.length <= maxWidth1) {
        chunks.push(rep);
        return;
      }
      const parts = line.match(/\S*\s*/g) ?? [];
      if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
      let maxWidth2 = maxWidth;
      let current = '';
      parts.forEach((part, j) => {
        const candidate = current + part;
        if (j === parts.length - 1 && i === lines.length - 1) maxWidth2 -= allowance;
        if (strRepr(candidate).length > maxWidth2) {
          if (current) chunks.push(strRepr(current));
          current = part;
        } else current = candidate;
      });
      if (current) chunks.push(strRepr(current));
    });
    if (chunks.length === 1) {
      this.out += strRepr(s);
      return;
    }
    if (level === 1) this.out += '(';
    this.out += chunks.join(`\n${' '.repeat(indent)}`);
    if (level === 1) this.out += ')';
  }
}

export function pformat(obj: unknown): string {
  const p = new Printer();
  p.format(obj, 0, 0, 0);
  return p.out;
}

/** salt's txt outputter on `{local: data}`: `key: line` for each line of a string, else `key: str(value)`. */
export function txtOutput(data: Record<string, unknown>): string {
  let ret = '';
  for (const [key, value] of Object.entries(data)) {
    if (typeof value === 'string') for (const line of value.split(/\r\n|\r|\n/).filter((l, i, a) => i < a.length - 1 || l !== '')) ret += `${key}: ${line}\n`;
    else ret += `${key}: ${pyRepr(value)}\n`;
  }
  return ret;
}

/** Salt's high data as Python holds it: every mapping read from YAML an OrderedDict, the injected order a dict. */
export function orderedHigh(high: unknown): unknown {
  const od = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(od);
    if (isMapping(v)) return new PyOrderedDict(Object.entries(v).map(([k, x]) => [k, od(x)]));
    return v;
  };
  if (!isMapping(high)) return high;
  return new PyOrderedDict(
    Object.entries(high).map(([id, body]) => {
      if (!isMapping(body) || PLAIN_DICTS.has(body)) return [id, isMapping(body) ? body : od(body)];
      return [
        id,
        new PyOrderedDict(
          Object.entries(body).map(([k, v]) => {
            if (!Array.isArray(v)) return [k, v];
            let afterFun = false;
            return [k, v.map((arg) => {
              if (typeof arg === 'string') afterFun = true;
              if (afterFun && isMapping(arg) && Object.keys(arg).length === 1 && 'order' in arg) return arg;
              return od(arg);
            })];
          }),
        ),
      ];
    }),
  );
}

export function orderedTop(top: unknown): unknown {
  return isMapping(top) ? new PyDefaultOrderedDict(Object.entries(top)) : top;
}
