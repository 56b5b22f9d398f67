/** HCL1 tokens: identifiers, strings (quoted and heredoc), numbers, bools, punctuation; comments skipped. */
import { type Code, DiagnosticError, error, LineMap, type Span } from '../../core/diag.js';

export type TokenType = 'ident' | 'string' | 'heredoc' | 'number' | 'bool' | 'punct' | 'newline' | 'eof';

export function fail(lines: LineMap, offset: number, code: Code, message: string): never {
  throw new DiagnosticError([error(code, message, { span: lines.span(offset) })]);
}

/** What can place an offset for an error: its line map is made only when one is reported. */
interface Located {
  readonly lines: LineMap;
}

function readEscape(src: string, i: number, at: Located): { text: string; next: number } {
  const c = src[i + 1];
  switch (c) {
    case 'n':
      return { text: '\n', next: i + 2 };
    case 't':
      return { text: '\t', next: i + 2 };
    case 'r':
      return { text: '\r', next: i + 2 };
    case '"':
      return { text: '"', next: i + 2 };
    case '\\':
      return { text: '\\', next: i + 2 };
    case 'u':
    case 'U': {
      const n = c === 'u' ? 4 : 8;
      const hex = src.slice(i + 2, i + 2 + n);
      if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(hex)) fail(at.lines, i, 'HCL003', `invalid unicode escape \\${c}${hex}`);
      return { text: String.fromCodePoint(Number.parseInt(hex, 16)), next: i + 2 + n };
    }
    default:
      return fail(at.lines, i, 'HCL003', `unknown escape sequence \\${c ?? ''}`);
  }
}

/** Characters with no meaning inside a quoted string: not a quote, backslash, newline, `$` or `}`. */
const PLAIN_IN_STRING = /[^"\\\n$}]*/y;

/** The rest of an identifier: A-Z, a-z, 0-9, _ . - : */
const IDENT_REST = /[A-Za-z0-9_.:-]*/y;

/** A quoted string; `${...}` interpolations are kept as written (HCL1 leaves them to its consumer). */
/** Where the string or heredoc just read ends (set by readString and readHeredoc, which hand back its text). */
let readEnd = 0;

function readString(src: string, start: number, at: Located): string {
  let i = start + 1;
  // Text is taken in runs between escapes, not a character at a time.
  let out = '';
  let run = i;
  let braces = 0;
  for (;;) {
    // Characters that mean nothing here are skipped in one step (the regular expression runs as
    // machine code even while this function is still cold).
    PLAIN_IN_STRING.lastIndex = i;
    PLAIN_IN_STRING.test(src);
    i = PLAIN_IN_STRING.lastIndex;
    const c = src.charCodeAt(i);
    if (i >= src.length || (c === 10 && braces === 0)) fail(at.lines, start, 'HCL002', 'unterminated string');
    if (c === 34 && braces === 0) {
      readEnd = i + 1;
      return out + src.slice(run, i);
    }
    if (c === 36 && src.charCodeAt(i + 1) === 123) {
      // `${` stays as written.
      braces++;
      i += 2;
      continue;
    }
    if (c === 125 && braces > 0) braces--;
    if (c === 92) {
      const e = readEscape(src, i, at);
      out += src.slice(run, i) + e.text;
      i = e.next;
      run = i;
      continue;
    }
    i++;
  }
}

/** `<<EOF` or `<<-EOF` (the marker may be indented; with `-` the common indentation is removed). */
function readHeredoc(src: string, start: number, at: Located): string {
  let i = start + 2;
  const indent = src[i] === '-';
  if (indent) i++;
  const m = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(src.slice(i));
  if (!m) fail(at.lines, start, 'HCL004', 'heredoc needs a marker such as <<EOF');
  const marker = m[0];
  i += marker.length;
  const eol = src.indexOf('\n', i);
  if (eol === -1 || src.slice(i, eol).trim() !== '') fail(at.lines, start, 'HCL004', 'heredoc marker must end its line');
  const body: string[] = [];
  let pos = eol + 1;
  for (;;) {
    if (pos > src.length) fail(at.lines, start, 'HCL004', `unterminated heredoc: no closing ${marker}`);
    let end = src.indexOf('\n', pos);
    if (end === -1) end = src.length;
    const line = src.slice(pos, end).replace(/\r$/, '');
    if ((indent ? line.trim() : line.trimEnd()) === marker) {
      let lineList = body;
      if (indent) {
        const widths = body.filter((l) => l.trim() !== '').map((l) => (/^[ \t]*/.exec(l) as RegExpExecArray)[0].length);
        const strip = widths.length > 0 ? Math.min(...widths) : 0;
        lineList = body.map((l) => l.slice(Math.min(strip, (/^[ \t]*/.exec(l) as RegExpExecArray)[0].length)));
      }
      const text = lineList.length > 0 ? `${lineList.join('\n')}\n` : '';
      readEnd = end;
      return text;
    }
    body.push(line);
    pos = end + 1;
  }
}

/** A-Z, a-z, _ */
function isIdentStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}


/**
 * The tokens of a text, one at a time: the scanner stands on one token (`type`, `text`, `offset`) and
 * `advance` moves it to the next, so a parser reads the file without a token object or a list of them.
 * Comments and blanks are skipped; a lexical error throws when the scanner reaches it.
 */
export class Scanner {
  type: TokenType = 'eof';
  /** The decoded value: string content, identifier name, punctuation character. */
  text = '';
  offset = 0;
  private i = 0;
  private readonly words = new Map<number, string>();
  /** The line (from 1) that `spanAt` stands on, where it starts, and the offset of its newline. */
  private line = 1;
  private lineStart = 0;
  private lineEnd: number;
  private map: LineMap | undefined;

  constructor(
    private readonly src: string,
    private readonly file: string,
  ) {
    const nl = src.indexOf('\n');
    this.lineEnd = nl < 0 ? src.length : nl;
    this.advance();
  }

  /** The text's line map, made when first asked (an error to place, a position behind the last one asked). */
  get lines(): LineMap {
    return (this.map ??= new LineMap(this.file, this.src));
  }

  /**
   * The position of an offset, as the line map gives it. Positions are asked mostly in order: the line
   * is followed forward from the last one asked (each newline is looked for once), and an offset behind
   * that line is placed by the line map.
   */
  spanAt(offset: number): Span {
    if (offset < this.lineStart) return this.lines.span(offset);
    while (offset > this.lineEnd && this.lineEnd < this.src.length) {
      this.line++;
      this.lineStart = this.lineEnd + 1;
      const nl = this.src.indexOf('\n', this.lineStart);
      this.lineEnd = nl < 0 ? this.src.length : nl;
    }
    return { file: this.file, line: this.line, col: offset - this.lineStart + 1 };
  }

  /** Moves to the next token (at the end of the text it stays on `eof`); the token's fields are set in place. */
  advance(): void {
    const src = this.src;
    const n = src.length;
    let i = this.i;
    while (i < n) {
      const code = src.charCodeAt(i);
      if (code === 32 || code === 9 || code === 13) {
        i++;
        continue;
      }
      this.offset = i;
      if (code === 10) {
        this.type = 'newline';
        this.text = '\n';
        this.i = i + 1;
        return;
      }
      const nextCode = src.charCodeAt(i + 1);
      if (code === 35 || (code === 47 && nextCode === 47)) {
        const eol = src.indexOf('\n', i);
        i = eol < 0 ? n : eol;
      } else if (code === 47 && nextCode === 42) {
        const end = src.indexOf('*/', i + 2);
        if (end === -1) fail(this.lines, i, 'HCL005', 'unterminated comment');
        i = end + 2;
      } else if (code === 34) {
        const text = readString(src, i, this);
        this.type = 'string';
        this.text = text;
        this.i = readEnd;
        return;
      } else if (code === 60 && nextCode === 60) {
        const text = readHeredoc(src, i, this);
        this.type = 'heredoc';
        this.text = text;
        this.i = readEnd;
        return;
      } else if ((code >= 48 && code <= 57) || ((code === 45 || code === 43) && ((nextCode >= 48 && nextCode <= 57) || nextCode === 46))) {
        const m = /^[-+]?(0x[0-9a-fA-F]+|[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?)/.exec(src.slice(i)) as RegExpExecArray;
        this.type = 'number';
        this.text = m[0];
        this.i = i + m[0].length;
        return;
      } else if (isIdentStart(code)) {
        IDENT_REST.lastIndex = i + 1;
        IDENT_REST.test(src);
        const j = IDENT_REST.lastIndex;
        // A file names the same few keys again and again: the last word of each length and first letter
        // is taken again when it stands here, rather than a new string each time.
        const slot = ((j - i) << 7) | code;
        let word = this.words.get(slot);
        if (word === undefined || word.length !== j - i || !src.startsWith(word, i)) {
          word = src.slice(i, j);
          this.words.set(slot, word);
        }
        this.type = word === 'true' || word === 'false' ? 'bool' : 'ident';
        this.text = word;
        this.i = j;
        return;
      } else if (code === 123 || code === 125 || code === 91 || code === 93 || code === 44 || code === 61) {
        this.type = 'punct';
        this.text = src[i] as string;
        this.i = i + 1;
        return;
      } else {
        fail(this.lines, i, 'HCL001', `unexpected character ${JSON.stringify(src[i])}`);
      }
    }
    this.i = n;
    this.offset = n;
    this.type = 'eof';
    this.text = '';
  }

  /** Scans the rest of the text: a lexical error anywhere in it throws, as it would had the whole text been read first. */
  drain(): void {
    while (this.type !== 'eof') this.advance();
  }
}
