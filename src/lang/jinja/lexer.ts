/** Splits a Jinja template into data runs and tag tokens, applying whitespace control as it goes. */

import { TemplateSyntaxError } from './errors.js';
import { pyRepr } from './pyvalue.js';

export type TokenType =
  | 'data'
  | 'var_begin'
  | 'var_end'
  | 'block_begin'
  | 'block_end'
  | 'raw'
  | 'name'
  | 'string'
  | 'int'
  | 'float'
  | 'op'
  | 'eof';

export interface Token {
  readonly type: TokenType;
  /** Name, operator text, decoded string, data text, or number literal text. */
  readonly value: string;
  readonly offset: number;
}

const OPERATORS = [
  '**', '//', '==', '!=', '<=', '>=',
  '+', '-', '/', '*', '%', '~', '[', ']', '(', ')', '{', '}', '<', '>', '=', '.', ':', '|', ',', ';',
];

const NAME_RE = /[A-Za-z_][A-Za-z0-9_]*/y;
const FLOAT_RE = /(?:\d+_)*\d+(?:(?:\.(?:\d+_)*\d+)?[eE][+-]?(?:\d+_)*\d+|\.(?:\d+_)*\d+)/y;
const INT_RE = /0[bB](?:_?[01])+|0[oO](?:_?[0-7])+|0[xX](?:_?[\da-fA-F])+|(?:[1-9](?:_?\d)*|0(?:_?0)*)/y;
const WS_RE = /\s+/y;
const RAW_END_RE = /\{%([-+]?)\s*endraw\s*([-+]?)%\}/g;
const RAW_BEGIN_RE = /\{%([-+]?)\s*raw\s*([-+]?)%\}/y;

/** Normalises newlines and drops one trailing newline, as Jinja2 does with keep_trailing_newline=False. */
export function normalizeSource(source: string): string {
  let s = source.replace(/\r\n?/g, '\n');
  if (s.endsWith('\n')) s = s.slice(0, -1);
  return s;
}

export function decodeStringLiteral(body: string): string {
  return body.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{1,3}|.|\n)/g, (m, e: string) => {
    switch (e[0]) {
      case 'n': return '\n';
      case 't': return '\t';
      case 'r': return '\r';
      case '\\': return '\\';
      case "'": return "'";
      case '"': return '"';
      case 'a': return '\x07';
      case 'b': return '\b';
      case 'f': return '\f';
      case 'v': return '\v';
      case '\n': return '';
      case 'x': case 'u': case 'U': return String.fromCodePoint(Number.parseInt(e.slice(1), 16));
      default:
        if (/^[0-7]/.test(e)) return String.fromCodePoint(Number.parseInt(e, 8));
        return m;
    }
  });
}

export function tokenize(src: string, file: string): Token[] {
  const out: Token[] = [];
  let pos = 0;
  /** Set when the previous tag ended with `-`: the next data loses its leading whitespace. */
  let stripNext = false;
  const pushData = (text: string, offset: number, stripEnd: boolean) => {
    let t = text;
    if (stripNext) t = t.replace(/^\s+/, '');
    if (stripEnd) t = t.replace(/\s+$/, '');
    if (t.length > 0) out.push({ type: 'data', value: t, offset });
  };
  while (pos < src.length) {
    const open = findTagOpen(src, pos);
    if (open < 0) {
      pushData(src.slice(pos), pos, false);
      stripNext = false;
      break;
    }
    const kind = src[open + 1];
    const marker = src[open + 2];
    const stripBefore = marker === '-';
    // A raw block is lexed as a whole so its body is never tokenised.
    if (kind === '%') {
      RAW_BEGIN_RE.lastIndex = open;
      const raw = RAW_BEGIN_RE.exec(src);
      if (raw) {
        pushData(src.slice(pos, open), pos, raw[1] === '-');
        RAW_END_RE.lastIndex = open + raw[0].length;
        const end = RAW_END_RE.exec(src);
        if (!end) throw new TemplateSyntaxError('Missing end of raw directive', file, open);
        let body = src.slice(open + raw[0].length, end.index);
        if (raw[2] === '-') body = body.replace(/^\s+/, '');
        if (end[1] === '-') body = body.replace(/\s+$/, '');
        if (body.length > 0) out.push({ type: 'data', value: body, offset: open + raw[0].length });
        stripNext = end[2] === '-';
        pos = end.index + end[0].length;
        continue;
      }
    }
    pushData(src.slice(pos, open), pos, stripBefore);
    stripNext = false;
    let p = open + 2 + (marker === '-' || marker === '+' ? 1 : 0);
    if (kind === '#') {
      const close = src.indexOf('#}', p);
      if (close < 0) throw new TemplateSyntaxError('Missing end of comment tag', file, open);
      stripNext = src[close - 1] === '-' && close - 1 >= p;
      pos = close + 2;
      continue;
    }
    const isVar = kind === '{';
    out.push({ type: isVar ? 'var_begin' : 'block_begin', value: '', offset: open });
    const closer = isVar ? '}}' : '%}';
    p = lexTag(src, p, closer, file, out);
    const endTok = src.slice(p, p + 3);
    let len = 2;
    if (endTok[0] === '-' || endTok[0] === '+') {
      stripNext = endTok[0] === '-';
      len = 3;
    }
    out.push({ type: isVar ? 'var_end' : 'block_end', value: '', offset: p });
    pos = p + len;
  }
  out.push({ type: 'eof', value: '', offset: src.length });
  return out;
}

function findTagOpen(src: string, from: number): number {
  let i = src.indexOf('{', from);
  while (i >= 0) {
    const c = src[i + 1];
    if (c === '{' || c === '%' || c === '#') return i;
    i = src.indexOf('{', i + 1);
  }
  return -1;
}

function atCloser(src: string, p: number, closer: string): boolean {
  if (src.startsWith(closer, p)) return true;
  const c = src[p];
  return (c === '-' || c === '+') && src.startsWith(closer, p + 1);
}

/** Lexes the inside of a tag; returns the offset of its closing delimiter (including a `-`/`+`). */
function lexTag(src: string, start: number, closer: string, file: string, out: Token[]): number {
  let p = start;
  let depth = 0;
  for (;;) {
    WS_RE.lastIndex = p;
    if (WS_RE.exec(src)) p = WS_RE.lastIndex;
    if (p >= src.length) {
      const what = closer === '}}' ? 'end of print statement' : 'end of statement block';
      throw new TemplateSyntaxError(`unexpected end of template, expected '${what}'.`, file, src.length);
    }
    if (depth === 0 && atCloser(src, p, closer)) {
      // `-}}` could also be a minus before `}}`; Jinja treats it as whitespace control.
      return p;
    }
    const c = src[p] ?? '';
    if (c === '"' || c === "'") {
      let q = p + 1;
      while (q < src.length && src[q] !== c) q += src[q] === '\\' ? 2 : 1;
      if (q >= src.length) throw new TemplateSyntaxError(`unexpected char ${pyRepr(c)} at ${p}`, file, p);
      out.push({ type: 'string', value: decodeStringLiteral(src.slice(p + 1, q)), offset: p });
      p = q + 1;
      continue;
    }
    if (c >= '0' && c <= '9') {
      const prevDot = src[p - 1] === '.';
      FLOAT_RE.lastIndex = p;
      const f = prevDot ? null : FLOAT_RE.exec(src);
      if (f) {
        out.push({ type: 'float', value: f[0].replace(/_/g, ''), offset: p });
        p += f[0].length;
        continue;
      }
      INT_RE.lastIndex = p;
      const m = INT_RE.exec(src);
      if (m) {
        out.push({ type: 'int', value: m[0].replace(/_/g, ''), offset: p });
        p += m[0].length;
        continue;
      }
    }
    NAME_RE.lastIndex = p;
    const name = NAME_RE.exec(src);
    if (name) {
      out.push({ type: 'name', value: name[0], offset: p });
      p += name[0].length;
      continue;
    }
    const op = OPERATORS.find((o) => src.startsWith(o, p));
    if (!op) throw new TemplateSyntaxError(`unexpected char ${pyRepr(c)} at ${p}`, file, p);
    if (op === '(' || op === '[' || op === '{') depth++;
    else if (op === ')' || op === ']' || op === '}') {
      if (depth === 0 && op === '}' && closer === '}}') {
        throw new TemplateSyntaxError("unexpected '}'", file, p);
      }
      depth = Math.max(0, depth - 1);
    }
    out.push({ type: 'op', value: op, offset: p });
    p += op.length;
  }
}
