/** Tokens of the Inmanta language. Newlines are not tokens; `line` lets the parser keep `(`/`[` on one line. */
import { LineMap, type Span } from '../../core/diag.js';
import { InmantaError } from './errors.js';

export type TokKind = 'id' | 'cid' | 'kw' | 'int' | 'float' | 'str' | 'regex' | 'op' | 'eof';
export type StrFlavour = 'plain' | 'mls' | 'raw' | 'f';

export interface Token {
  readonly kind: TokKind;
  /** The identifier, keyword, operator, or the decoded string/regex body. */
  readonly text: string;
  readonly flavour?: StrFlavour;
  readonly offset: number;
  readonly span: Span;
}

export const KEYWORDS = new Set([
  'typedef', 'as', 'entity', 'extends', 'end', 'in', 'implementation', 'for', 'matching', 'index', 'implement', 'using',
  'when', 'and', 'or', 'not', 'true', 'false', 'import', 'is', 'defined', 'dict', 'null', 'undef', 'parents', 'if',
  'else', 'elif',
]);

const OPS = ['**', '==', '!=', '>=', '<=', '+=', '--', '::', '+', '-', '*', '/', '%', '<', '>', '=', '(', ')', '[', ']', '{', '}', ',', '.', ':', '?'];

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', "'": "'", a: '\x07', b: '\b', f: '\f', v: '\v', '0': '\0', '\n': '' };

function decodeEscapes(s: string): string {
  return s.replace(/\\(u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[\s\S])/g, (m, c: string) => {
    if (c.length > 1) return String.fromCharCode(Number.parseInt(c.slice(1), 16));
    return ESCAPES[c] ?? m;
  });
}

export function lex(file: string, src: string): Token[] {
  const lines = new LineMap(file, src);
  const out: Token[] = [];
  let i = 0;
  const push = (kind: TokKind, text: string, start: number, flavour?: StrFlavour) => {
    const t: Token = flavour ? { kind, text, flavour, offset: start, span: lines.span(start) } : { kind, text, offset: start, span: lines.span(start) };
    out.push(t);
  };
  const fail = (at: number, msg: string): never => {
    throw new InmantaError('ParserException', msg, lines.span(at));
  };
  while (i < src.length) {
    const c = src[i] ?? '';
    if (c === '#') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const start = i;
    // String prefixes r/f directly before a quote.
    if ((c === 'r' || c === 'f') && (src[i + 1] === '"' || src[i + 1] === "'")) {
      i++;
      const body = readQuoted(src, i, fail);
      i = body.end;
      push('str', c === 'r' ? body.raw : decodeEscapes(body.raw), start, c === 'r' ? 'raw' : 'f');
      continue;
    }
    if (c === '"' || c === "'") {
      if (src.startsWith('"""', i)) {
        const close = src.indexOf('"""', i + 3);
        if (close < 0) fail(start, 'Unterminated multi-line string');
        push('str', decodeEscapes(src.slice(i + 3, close)), start, 'mls');
        i = close + 3;
        continue;
      }
      const body = readQuoted(src, i, fail);
      i = body.end;
      push('str', decodeEscapes(body.raw), start, 'plain');
      continue;
    }
    if (c === '/' && out.at(-1)?.kind === 'kw' && out.at(-1)?.text === 'matching') {
      let j = i + 1;
      while (j < src.length && src[j] !== '/' && src[j] !== '\n') j += src[j] === '\\' ? 2 : 1;
      if (src[j] !== '/') fail(start, 'Unterminated regex');
      push('regex', src.slice(i + 1, j), start);
      i = j + 1;
      continue;
    }
    const num = /^(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?/.exec(src.slice(i, i + 64));
    if (num && /\d/.test(c)) {
      const t = num[0];
      push(/[.eE]/.test(t) ? 'float' : 'int', t, start);
      i += t.length;
      continue;
    }
    const word = /^[a-zA-Z_][a-zA-Z_0-9-]*/.exec(src.slice(i, i + 256));
    if (word) {
      let w = word[0];
      // `a-1` style arithmetic needs spaces in the real language too; a trailing `-` is never part of a name.
      while (w.endsWith('-')) w = w.slice(0, -1);
      i += w.length;
      if (KEYWORDS.has(w)) push('kw', w, start);
      else push(/^[A-Z]/.test(w) ? 'cid' : 'id', w, start);
      continue;
    }
    const op = OPS.find((o) => src.startsWith(o, i));
    if (!op) fail(start, `Illegal character '${c}'`);
    push('op', op as string, start);
    i += (op as string).length;
  }
  push('eof', '', src.length);
  return out;
}

function readQuoted(src: string, i: number, fail: (at: number, msg: string) => never): { raw: string; end: number } {
  const q = src[i];
  let j = i + 1;
  while (j < src.length && src[j] !== q) {
    if (src[j] === '\n') fail(i, 'Unterminated string');
    j += src[j] === '\\' ? 2 : 1;
  }
  if (j >= src.length) fail(i, 'Unterminated string');
  return { raw: src.slice(i + 1, j), end: j + 1 };
}
