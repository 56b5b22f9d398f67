/** Tokens of the Inmanta language. Newlines are not tokens; `line` lets the parser keep `(`/`[` on one line. */
import type { Span } from '../../core/diag.js';
import { MAX_NESTING } from '../../core/nesting.js';
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
  /**
   * Where a syntax error at this token is reported: the real parser names the position just after the token
   * it could not use (its lexer has read past it by then).
   */
  readonly after: Span;
}

const KEYWORD_LIST = [
  'typedef', 'as', 'entity', 'extends', 'end', 'in', 'implementation', 'for', 'matching', 'index', 'implement', 'using',
  'when', 'and', 'or', 'not', 'true', 'false', 'import', 'is', 'defined', 'dict', 'null', 'undef', 'parents', 'if',
  'else', 'elif',
];
export const KEYWORDS: ReadonlySet<string> = new Set(KEYWORD_LIST);
const KEYWORD_INDEX = new Map(KEYWORD_LIST.map((k, i) => [k, i]));
const MATCHING = KEYWORD_INDEX.get('matching') as number;
/** The length and first character of every keyword (length * 128 + character code), so most names are told apart without their text. */
const KEYWORD_LONGEST = Math.max(...KEYWORD_LIST.map((k) => k.length));
const KEYWORD_SHAPES = new Uint8Array((KEYWORD_LONGEST + 1) * 128);
for (const k of KEYWORD_LIST) KEYWORD_SHAPES[k.length * 128 + k.charCodeAt(0)] = 1;

/** Operators: a two-character one wins over its first character alone. */
const OPS2 = new Set(['**', '==', '!=', '>=', '<=', '+=', '--', '::']);
const OPS1 = new Set(['+', '-', '*', '/', '%', '<', '>', '=', '(', ')', '[', ']', '{', '}', ',', '.', ':', '?']);
const OP_LIST = [...OPS2, ...OPS1];
const OP_INDEX = new Map(OP_LIST.map((o, i) => [o, i]));
/** The operator numbered `n` ('' for a number no operator has). */
export function opText(n: number): string {
  return OP_LIST[n] ?? '';
}
/** The number of the operator `text` (what `Tokens.opAt` gives for a token written so). */
export function opNumber(text: string): number {
  return OP_INDEX.get(text) as number;
}
/** By character code: the number of the one-character operator (-1 when none), and of each two-character one by its second character. */
const OP1_BY_CODE = new Int8Array(128).fill(-1);
for (const o of OPS1) OP1_BY_CODE[o.charCodeAt(0)] = OP_INDEX.get(o) as number;
const OP2_BY_CODES = new Int8Array(128 * 128).fill(-1);
for (const o of OPS2) OP2_BY_CODES[o.charCodeAt(0) * 128 + o.charCodeAt(1)] = OP_INDEX.get(o) as number;

/** For each operator: 1 when it opens a bracket, -1 when it closes one, else 0. */
const BRACKET = Int8Array.from(OP_LIST, (o) => ('([{'.includes(o) ? 1 : ')]}'.includes(o) ? -1 : 0));

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', "'": "'", a: '\x07', b: '\b', f: '\f', v: '\v', '0': '\0', '\n': '' };

function decodeEscapes(s: string): string {
  if (!s.includes('\\')) return s;
  return s.replace(/\\(u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[\s\S])/g, (m, c: string) => {
    if (c.length > 1) return String.fromCharCode(Number.parseInt(c.slice(1), 16));
    return ESCAPES[c] ?? m;
  });
}

/** Where each line of a file starts, to turn an offset into a position. */
class Lines {
  constructor(
    readonly file: string,
    private readonly starts: readonly number[],
  ) {}
  span(offset: number): Span {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.starts[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { file: this.file, line: lo + 1, col: offset - (this.starts[lo] as number) + 1 };
  }
}

/** A token; its span is made when the parser asks for it, where a syntax error after it is reported when one is. */
class Tok implements Token {
  private spanMade: Span | undefined;
  constructor(
    readonly kind: TokKind,
    readonly text: string,
    readonly offset: number,
    private readonly end: number,
    private readonly line: number,
    private readonly col: number,
    private readonly lines: Lines,
    readonly flavour?: StrFlavour,
  ) {}
  get span(): Span {
    return (this.spanMade ??= { file: this.lines.file, line: this.line, col: this.col });
  }
  get after(): Span {
    // The end of the file (end -1) is reported where it stands.
    return this.end < 0 ? this.span : this.lines.span(this.end);
  }
}

/** A list that holds strings, to slice empty lists of strings from. */
const STRING_LIST: readonly string[] = [''];

const KINDS: readonly TokKind[] = ['id', 'cid', 'kw', 'int', 'float', 'str', 'regex', 'op', 'eof'];
const KIND_CODE: Readonly<Record<TokKind, number>> = { id: 0, cid: 1, kw: 2, int: 3, float: 4, str: 5, regex: 6, op: 7, eof: 8 };
const FLAVOURS: readonly StrFlavour[] = ['plain', 'mls', 'raw', 'f'];
const FLAVOUR_CODE: Readonly<Record<StrFlavour, number>> = { plain: 0, mls: 1, raw: 2, f: 3 };
/** The numbers of the raw and f-string flavours, as the token arrays' `subs` hold them for a string token. */
export const RAW_FLAVOUR = FLAVOUR_CODE.raw;
export const F_FLAVOUR = FLAVOUR_CODE.f;

/**
 * The tokens of a file, kept in typed arrays rather than as one object each: a large file has hundreds of
 * thousands of tokens, which as objects the garbage collector would copy while the parser runs. A token
 * object (`token(i)`) is made when the parser reaches it. A name's or number's text is read from the source
 * when asked for; an operator's or keyword's is its entry in a table; a string's (decoded) is kept.
 */
export class Tokens {
  count = 0;
  kinds: Uint8Array;
  /** Keyword or operator number, or string flavour. */
  subs: Uint8Array;
  offsets: Int32Array;
  ends: Int32Array;
  lineNos: Int32Array;
  cols: Int32Array;
  /**
   * The decoded text of the string and regex tokens, in order; `subs` holds the flavour, `texts` the place
   * here. Made as a list of strings from the start (a slice of one keeps its kind), so the optimized code
   * that adds tokens, made while reading one file, still fits the next file's list.
   */
  readonly strings: string[] = STRING_LIST.slice(0, 0);
  texts: Int32Array;
  private readonly names = new Map<string, string>();
  /** Qualified names by their parts (see `qualified`). */
  private readonly joined = new Map<string, Map<string, string>>();
  /** How deep the brackets are after the last token, and the first opening bracket nested past MAX_NESTING (-1: none). */
  depth = 0;
  tooDeepAt = -1;
  /** The last span `spanAt` made, and its token: a statement and its first expression start at one token. */
  private lastSpan: Span | undefined;
  private lastSpanAt = -1;

  constructor(
    private readonly src: string,
    private readonly lines: Lines,
  ) {
    // A model has a token every four or five characters (a constructor call per line); room for one every
    // four, so that a large file's arrays are not grown and copied while it is read.
    const cap = (src.length >> 2) + 16;
    this.kinds = new Uint8Array(cap);
    this.subs = new Uint8Array(cap);
    this.offsets = new Int32Array(cap);
    this.ends = new Int32Array(cap);
    this.lineNos = new Int32Array(cap);
    this.cols = new Int32Array(cap);
    this.texts = new Int32Array(cap);
  }

  /** Adds a token of kind number `kind` (KIND_CODE). */
  add(kind: number, sub: number, text: string | undefined, start: number, end: number, line: number, col: number): void {
    if (this.count === this.kinds.length) this.grow();
    const i = this.count++;
    this.kinds[i] = kind;
    this.subs[i] = sub;
    this.offsets[i] = start;
    this.ends[i] = end;
    this.lineNos[i] = line;
    this.cols[i] = col;
    if (kind === 7) {
      const b = BRACKET[sub] as number;
      if (b === 1) {
        if (++this.depth > MAX_NESTING && this.tooDeepAt < 0) this.tooDeepAt = i;
      } else if (b === -1 && this.depth > 0) this.depth--;
    }
    if (text !== undefined) {
      this.texts[i] = this.strings.length;
      this.strings.push(text);
    }
  }

  grow(): void {
    const cap = this.kinds.length * 2;
    const more = <T extends Uint8Array | Int32Array>(a: T, make: (n: number) => T): T => {
      const b = make(cap);
      b.set(a);
      return b;
    };
    this.kinds = more(this.kinds, (n) => new Uint8Array(n));
    this.subs = more(this.subs, (n) => new Uint8Array(n));
    this.offsets = more(this.offsets, (n) => new Int32Array(n));
    this.ends = more(this.ends, (n) => new Int32Array(n));
    this.lineNos = more(this.lineNos, (n) => new Int32Array(n));
    this.cols = more(this.cols, (n) => new Int32Array(n));
    this.texts = more(this.texts, (n) => new Int32Array(n));
  }

  kind(i: number): TokKind {
    return KINDS[this.kinds[i] as number] as TokKind;
  }

  /** The operator's number (`opNumber`) of an operator token, else -1. */
  opAt(i: number): number {
    return this.kinds[i] === 7 ? (this.subs[i] as number) : -1;
  }

  /** True for a keyword or operator token written `text`. */
  isWord(i: number, text: string): boolean {
    const k = this.kinds[i];
    if (k === 7) return OP_LIST[this.subs[i] as number] === text;
    return k === 2 && KEYWORD_LIST[this.subs[i] as number] === text;
  }

  /** Whether `text(i)` is `text`, without making the text of a name. */
  textIs(i: number, text: string): boolean {
    switch (this.kinds[i]) {
      case 2:
        return KEYWORD_LIST[this.subs[i] as number] === text;
      case 7:
        return OP_LIST[this.subs[i] as number] === text;
      case 5:
      case 6:
        return this.strings[this.texts[i] as number] === text;
      case 8:
        return text === '';
      default: {
        const start = this.offsets[i] as number;
        return (this.ends[i] as number) - start === text.length && this.src.startsWith(text, start);
      }
    }
  }

  /** Where the token starts (asked again for the same token, the same object; `token(i).span` keeps one of its own). */
  spanAt(i: number): Span {
    if (i === this.lastSpanAt) return this.lastSpan as Span;
    const span = { file: this.lines.file, line: this.lineNos[i] as number, col: this.cols[i] as number };
    this.lastSpan = span;
    this.lastSpanAt = i;
    return span;
  }

  /** The file the tokens are read from. */
  get file(): string {
    return this.lines.file;
  }
  /** The token's line (1-based). */
  lineAt(i: number): number {
    return this.lineNos[i] as number;
  }
  /** The token's column (1-based). */
  colAt(i: number): number {
    return this.cols[i] as number;
  }


  /** The token's kind as its number (id 0, cid 1, kw 2, int 3, float 4, str 5, regex 6, op 7, eof 8). */
  kindCode(i: number): number {
    return this.kinds[i] as number;
  }

  /** The decoded text of the string or regular expression token at `i`. */
  stringAt(i: number): string {
    return this.strings[this.texts[i] as number] as string;
  }

  text(i: number): string {
    switch (this.kinds[i]) {
      case 2:
        return KEYWORD_LIST[this.subs[i] as number] as string;
      case 7:
        return OP_LIST[this.subs[i] as number] as string;
      case 5:
      case 6:
        return this.strings[this.texts[i] as number] as string;
      case 8:
        return '';
      default:
        return this.name(this.src.slice(this.offsets[i], this.ends[i]));
    }
  }

  /**
   * One string for each name (and number) written: a model repeats a few names (attributes, types,
   * variables) thousands of times, and the syntax tree keeps them.
   */
  name(text: string): string {
    const known = this.names.get(text);
    if (known !== undefined) return known;
    this.names.set(text, text);
    return text;
  }

  /**
   * `name` of `prefix::part`, found by its two parts (each already one string per name) without writing
   * the joined text each time it is read.
   */
  qualified(prefix: string, part: string): string {
    let parts = this.joined.get(prefix);
    if (parts === undefined) {
      parts = new Map();
      this.joined.set(prefix, parts);
    }
    let known = parts.get(part);
    if (known === undefined) {
      known = this.name(`${prefix}::${part}`);
      parts.set(part, known);
    }
    return known;
  }

  token(i: number): Token {
    const kind = this.kind(i);
    const flavour = kind === 'str' ? FLAVOURS[this.subs[i] as number] : undefined;
    return new Tok(kind, this.text(i), this.offsets[i] as number, this.ends[i] as number, this.lineNos[i] as number, this.cols[i] as number, this.lines, flavour);
  }

  /** Whether the last token so far is the keyword `matching` (a regular expression follows it). */
  lastIsMatching(): boolean {
    const i = this.count - 1;
    return i >= 0 && this.kinds[i] === 2 && this.subs[i] === MATCHING;
  }
}

// As the real lexer reads numbers (see below); sticky, so it matches where the lexer stands.
const NUMBER = /-?(?:\d*\.\d+|\d+)/y;

function isDigit(d: number): boolean {
  return d >= 48 && d <= 57;
}
/** By character code: 1 for a character a name starts with ([a-zA-Z_]), 2 for one it goes on with (those, digits and `-`). */
const NAME_CHARS = new Uint8Array(128);
for (let d = 0; d < 128; d++) {
  if ((d >= 97 && d <= 122) || (d >= 65 && d <= 90) || d === 95) NAME_CHARS[d] = 1;
  else if (isDigit(d) || d === 45) NAME_CHARS[d] = 2;
}
/** A quoted string's characters up to its quote, a backslash or the end of the line. */
const PLAIN_BODY: Readonly<Record<string, RegExp>> = { '"': /[^"\\\n]*/y, "'": /[^'\\\n]*/y };

/**
 * Where the number at `i` (a digit, or `-` and a digit) ends: as `NUMBER` reads it, digits then `.` and
 * digits when a digit follows the dot; read within the next 64 characters (see numberAt).
 */
function numberEnd(src: string, i: number): number {
  let j = src.charCodeAt(i) === 45 ? i + 1 : i;
  while (isDigit(src.charCodeAt(j))) j++;
  if (src.charCodeAt(j) === 46 && isDigit(src.charCodeAt(j + 1))) {
    j += 2;
    while (isDigit(src.charCodeAt(j))) j++;
  }
  if (j - i <= 64) return j;
  const t = numberAt(src, i);
  return t === undefined ? -1 : i + t.length;
}

/** The number at `i`, read within the next 64 characters. */
function numberAt(src: string, i: number): string | undefined {
  NUMBER.lastIndex = i;
  const t = NUMBER.exec(src)?.[0];
  // A match that fits in 64 characters is the one the 64 characters give; a longer one is read again in them.
  if (t === undefined || t.length <= 64) return t;
  return /^-?(?:\d*\.\d+|\d+)/.exec(src.slice(i, i + 64))?.[0];
}

export function lex(file: string, src: string): Tokens {
  const starts: number[] = [0];
  for (let k = src.indexOf('\n'); k >= 0; k = src.indexOf('\n', k + 1)) starts.push(k + 1);
  const lines = new Lines(file, starts);
  const out = new Tokens(src, lines);
  const scanner = new Scanner(src, starts, lines, out);
  while (scanner.chunk());
  // The real parser reads the file with a newline added, and reports the end one column past that line's
  // start, on the line after it.
  const newlines = starts.length - 1;
  out.add(KIND_CODE.eof, 0, undefined, src.length, -1, newlines + 2, 2);
  return out;
}

/** How many tokens `Scanner.chunk` reads at most per call. */
const CHUNK = 64;

/**
 * Reads the tokens of one text, a chunk of them per call of `chunk`: the optimizing compiler then compiles
 * that (a short loop) as a function of its own, once for every file, rather than a loop over the whole text
 * entered part way through for each large file. What few models have (prefixed and multi-line strings,
 * regular expressions, other white space, illegal characters) is read by functions of their own.
 */
class Scanner {
  private i = 0;
  /** The text's UTF-16 code units (as `charCodeAt` reads them). */
  private readonly codes: Uint16Array;
  /** The line of the last token (from 0), where it starts, and where the next one starts. */
  private line = 0;
  private lineStart = 0;
  private nextLineStart: number;
  constructor(
    private readonly src: string,
    private readonly starts: readonly number[],
    private readonly lines: Lines,
    private readonly out: Tokens,
  ) {
    this.nextLineStart = starts.length > 1 ? (starts[1] as number) : Infinity;
    this.codes = new Uint16Array(src.length);
    Buffer.from(this.codes.buffer).write(src, 0, 'utf16le');
  }

  /**
   * Reads up to CHUNK tokens (past white space and comments) and adds them; false at the end of the text.
   * A name, a plain string, a number or an operator (nearly every token) is written to the token arrays
   * here, with the scanner's state and the arrays in local variables for the whole chunk, and characters
   * read from the text's UTF-16 code units in a typed array: a small model's lexer runs unoptimized, where
   * reading a field, calling a method (`charCodeAt` among them) or a function costs as much as several
   * lines of its work. What few models have (prefixed and multi-line strings, regular expressions) is read
   * by `special`, through `put`.
   */
  chunk(): boolean {
    const src = this.src;
    const codes = this.codes;
    const starts = this.starts;
    const n = src.length;
    const out = this.out;
    // Room for the whole chunk, so that the arrays stay the same while it is read (`put` adds within it).
    while (out.count + CHUNK > out.kinds.length) out.grow();
    const kinds = out.kinds;
    const subs = out.subs;
    const offsets = out.offsets;
    const ends = out.ends;
    const lineNos = out.lineNos;
    const cols = out.cols;
    const texts = out.texts;
    const strings = out.strings;
    let t = out.count;
    let i = this.i;
    let line = this.line;
    let lineStart = this.lineStart;
    let nextLineStart = this.nextLineStart;
    for (let left = CHUNK; left > 0; left--) {
      let code = 0;
      for (;;) {
        if (i >= n) {
          out.count = t;
          this.i = i;
          this.line = line;
          this.lineStart = lineStart;
          this.nextLineStart = nextLineStart;
          return false;
        }
        code = codes[i] as number;
        if (code === 32 || code === 10 || code === 9 || code === 13) i++;
        else if (code === 35) {
          // `#` to the end of the line.
          const nl = src.indexOf('\n', i);
          i = nl < 0 ? n : nl;
        } else if ((code < 33 || code > 126) && otherSpace(src, i)) i++;
        else break;
      }
      const start = i;
      // Past the end of the text a code is undefined, which no comparison below takes.
      const next = codes[i + 1] as number;
      // String prefixes r/f directly before a quote, a `"""` string, a regular expression after `matching`.
      if (
        ((code === 114 || code === 102) && (next === 34 || next === 39)) ||
        (code === 34 && next === 34 && codes[i + 2] === 34) ||
        (code === 47 && t > 0 && kinds[t - 1] === 2 && subs[t - 1] === MATCHING)
      ) {
        out.count = t;
        this.i = i;
        this.line = line;
        this.lineStart = lineStart;
        this.nextLineStart = nextLineStart;
        if (this.special(start, code)) {
          t = out.count;
          i = this.i;
          line = this.line;
          lineStart = this.lineStart;
          nextLineStart = this.nextLineStart;
          continue;
        }
      }
      let kind: number;
      let sub = 0;
      let end: number;
      let text: string | undefined;
      if (code < 128 && NAME_CHARS[code] === 1) {
        let j = i + 1;
        for (let d = codes[j] as number; d < 128 && (NAME_CHARS[d] as number) > 0; d = codes[j] as number) j++;
        j = Math.min(j, i + 256);
        // `a-1` style arithmetic needs spaces in the real language too; a trailing `-` is never part of a name.
        while (codes[j - 1] === 45) j--;
        const len = j - i;
        const kw = len <= KEYWORD_LONGEST && KEYWORD_SHAPES[len * 128 + code] === 1 ? KEYWORD_INDEX.get(src.slice(i, j)) : undefined;
        if (kw !== undefined) {
          kind = 2;
          sub = kw;
        } else kind = code >= 65 && code <= 90 ? 1 : 0;
        end = j;
      } else if (code === 34 || code === 39) {
        // Without its closing `"""`, a multi-line string opens as the empty string `""`.
        end = quotedEnd(src, i);
        if (end < 0) this.illegal(i);
        const raw = src.slice(i + 1, end - 1);
        kind = 5;
        text = raw.includes('\\') ? decodeEscapes(raw) : raw;
      } else {
        // As the real lexer reads numbers: [-]digits, or [-]digits.digits (no exponent; `1.` is 1 then `.`), with
        // a `-` right before a digit taken into the number whatever precedes it (`3-1` is 3 then -1).
        // A number is read within the next 64 characters, a name within the next 256, as the lexer always has.
        const numEnd = (code === 45 ? next >= 48 && next <= 57 : code >= 48 && code <= 57) ? numberEnd(src, i) : -1;
        if (numEnd >= 0) {
          kind = 3;
          for (let k = i; k < numEnd; k++) if (codes[k] === 46) kind = 4;
          end = numEnd;
        } else {
          // An operator: a two-character one wins over its first character alone.
          let op = -1;
          if (code < 128) {
            if (next < 128) op = OP2_BY_CODES[code * 128 + next] as number;
            if (op < 0) op = OP1_BY_CODE[code] as number;
          }
          if (op < 0) this.illegal(start);
          kind = 7;
          sub = op;
          end = i + (OP_LIST[op] as string).length;
        }
      }
      // As `put` and `Tokens.add`: tokens come in the order of the text, so their line is found by moving
      // forward from the last one's.
      while (start >= nextLineStart) {
        line++;
        lineStart = nextLineStart;
        nextLineStart = line + 1 < starts.length ? (starts[line + 1] as number) : Infinity;
      }
      kinds[t] = kind;
      subs[t] = sub;
      offsets[t] = start;
      ends[t] = end;
      lineNos[t] = line + 1;
      cols[t] = start - lineStart + 1;
      if (kind === 7) {
        const b = BRACKET[sub] as number;
        if (b === 1) {
          if (++out.depth > MAX_NESTING && out.tooDeepAt < 0) out.tooDeepAt = t;
        } else if (b === -1 && out.depth > 0) out.depth--;
      } else if (text !== undefined) {
        texts[t] = strings.length;
        strings.push(text);
      }
      t++;
      i = end;
    }
    out.count = t;
    this.i = i;
    this.line = line;
    this.lineStart = lineStart;
    this.nextLineStart = nextLineStart;
    return true;
  }

  /** A prefixed or multi-line string or a regular expression at `start` (whose character is `code`), added if it is one. */
  private special(start: number, code: number): boolean {
    if (code === 114 || code === 102) return this.prefixed(start, code);
    if (code === 34) return this.multiLine(start);
    this.regex(start);
    return true;
  }

  /** Adds the token that starts at `start` and ends before `end`, and moves past it. */
  private put(kind: number, sub: number, text: string | undefined, start: number, end: number): void {
    // Tokens come in the order of the text, so their line is found by moving forward from the last one's.
    while (start >= this.nextLineStart) {
      const line = ++this.line;
      this.lineStart = this.nextLineStart;
      this.nextLineStart = line + 1 < this.starts.length ? (this.starts[line + 1] as number) : Infinity;
    }
    this.out.add(kind, sub, text, start, end, this.line + 1, start - this.lineStart + 1);
    this.i = end;
  }

  /** An r or f string at `start` (the prefix, `code`), if its quote closes on its line. */
  private prefixed(start: number, code: number): boolean {
    const src = this.src;
    const end = quotedEnd(src, start + 1);
    if (end < 0) return false;
    const raw = src.slice(start + 2, end - 1);
    this.put(KIND_CODE.str, FLAVOUR_CODE[code === 114 ? 'raw' : 'f'], code === 114 ? raw : decodeEscapes(raw), start, end);
    return true;
  }

  /** A `"""` string at `start`, if it is closed. */
  private multiLine(start: number): boolean {
    const src = this.src;
    const close = src.indexOf('"""', start + 3);
    if (close < 0) return false;
    this.put(KIND_CODE.str, FLAVOUR_CODE.mls, decodeEscapes(src.slice(start + 3, close)), start, close + 3);
    return true;
  }

  /** The regular expression at `start` (after `matching`). */
  private regex(start: number): void {
    const src = this.src;
    const n = src.length;
    let j = start + 1;
    while (j < n && src[j] !== '/' && src[j] !== '\n') j += src[j] === '\\' ? 2 : 1;
    if (src[j] !== '/') this.illegal(start);
    this.put(KIND_CODE.regex, 0, src.slice(start + 1, j), start, j + 1);
  }

  /** A character no token can start with (an unterminated string's quote among them). */
  private illegal(at: number): never {
    throw new InmantaError('ParserException', `Syntax error: Illegal character '${this.src[at] ?? ''}'`, this.lines.span(at));
  }
}

/** Whether the character at `i` (not printable ASCII) is white space. */
function otherSpace(src: string, i: number): boolean {
  return /\s/.test(src[i] as string);
}

/** Where the one-line quoted string starting at `i` ends (just past its closing quote), or -1 when it does not close on its line. */
function quotedEnd(src: string, i: number): number {
  const q = src[i] as string;
  const plain = PLAIN_BODY[q] as RegExp;
  plain.lastIndex = i + 1;
  plain.test(src);
  let j = plain.lastIndex;
  while (j < src.length && src[j] !== q) {
    if (src[j] === '\n') return -1;
    j += src[j] === '\\' ? 2 : 1;
  }
  if (j >= src.length) return -1;
  return j + 1;
}
