/**
 * The OtterScript scanner. Where a token ends depends on where it stands (an implicit string in an
 * argument list ends at a comma, one in a `set` at the semicolon), so the parser pulls tokens on demand
 * from this cursor instead of reading a token list made in advance.
 */
import { DiagnosticError, error, LineMap, type Span } from '../../core/diag.js';

export const SYNTAX = 'OTTER001';

/** Blocks, values and conditions nested deeper than this are refused (a positioned error, not a stack overflow). */
export const MAX_NESTING = 200;

/** An operation or keyword name at a position (sticky: matched where the scanner stands). */
const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_-]*/y;

/** No comments: one shared empty list (never added to; a list with comments is a new one). */
const NO_COMMENTS: string[] = [];

export class Scanner {
  pos = 0;
  /** The line (from 1) that `span` stands on, where it starts, and the offset of its newline. */
  private line = 1;
  private lineStart = 0;
  private lineEnd: number;
  private map: LineMap | undefined;
  /** The comments skipped by the last `skipTrivia`, for the description of the statement that follows. */
  comments: string[] = NO_COMMENTS;
  private depth = 0;

  constructor(
    readonly file: string,
    readonly text: string,
  ) {
    const nl = text.indexOf('\n');
    this.lineEnd = nl < 0 ? text.length : nl;
  }

  /** The text's line map, made when first asked (a position behind the last one asked). */
  get lines(): LineMap {
    return (this.map ??= new LineMap(this.file, this.text));
  }

  /**
   * The position of an offset, as the line map gives it. Positions are asked mostly in order: the line
   * is followed forward from the last one asked (each newline is looked for once), and an offset behind
   * that line is placed by the line map.
   */
  span(offset = this.pos): Span {
    if (offset < this.lineStart) return this.lines.span(offset);
    const text = this.text;
    while (offset > this.lineEnd && this.lineEnd < text.length) {
      this.line++;
      this.lineStart = this.lineEnd + 1;
      const nl = text.indexOf('\n', this.lineStart);
      this.lineEnd = nl < 0 ? text.length : nl;
    }
    return { file: this.file, line: this.line, col: offset - this.lineStart + 1 };
  }

  fail(message: string, offset = this.pos): never {
    throw new DiagnosticError([error(SYNTAX, message, { span: this.span(offset) })]);
  }

  /** One nesting level deeper (with `leave` after it, in a finally); too deep is a syntax error here. */
  enter(): void {
    if (this.depth >= MAX_NESTING) this.fail(`nesting deeper than ${MAX_NESTING} levels`);
    this.depth++;
  }

  leave(): void {
    this.depth--;
  }

  /** Runs `parse` one nesting level deeper; too deep is a syntax error where the level starts. */
  nested<T>(parse: () => T): T {
    if (this.depth >= MAX_NESTING) this.fail(`nesting deeper than ${MAX_NESTING} levels`);
    this.depth++;
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  get done(): boolean {
    return this.pos >= this.text.length;
  }

  peek(ahead = 0): string {
    return this.text[this.pos + ahead] ?? '';
  }

  startsWith(s: string): boolean {
    return this.text.startsWith(s, this.pos);
  }

  /** Skips spaces, tabs and (unless `stopAtNewline`) newlines; never comments. */
  skipSpaces(stopAtNewline = false): void {
    const text = this.text;
    const n = text.length;
    let i = this.pos;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c !== 32 && c !== 9 && c !== 13 && (c !== 10 || stopAtNewline)) break;
    }
    this.pos = i;
  }

  /** Skips whitespace and comments, keeping the comment text (editor `##AH:` headers are dropped). */
  skipTrivia(): void {
    const start = this.pos;
    // The list is made only when a comment is found (most calls skip blanks only).
    let comments: string[] = NO_COMMENTS;
    for (;;) {
      this.skipSpaces();
      const c = this.text.charCodeAt(this.pos);
      const next = this.text.charCodeAt(this.pos + 1);
      if (c === 35 || (c === 47 && next === 47)) {
        const end = this.text.indexOf('\n', this.pos);
        const stop = end < 0 ? this.text.length : end;
        const raw = this.text.slice(this.pos, stop);
        if (comments === NO_COMMENTS) comments = [];
        if (!raw.startsWith('##AH:')) comments.push(raw.replace(/^(#+|\/\/+)\s?/, '').trimEnd());
        this.pos = stop;
      } else if (c === 47 && next === 42) {
        const end = this.text.indexOf('*/', this.pos + 2);
        if (end < 0) this.fail('unterminated comment');
        if (comments === NO_COMMENTS) comments = [];
        for (const line of this.text.slice(this.pos + 2, end).split('\n')) {
          const t = line.replace(/^\s*\*?\s?/, '').trimEnd();
          if (t !== '') comments.push(t);
        }
        this.pos = end + 2;
      } else {
        // Called again where nothing is left to skip, it keeps what the previous call found.
        if (this.pos !== start) this.comments = comments;
        return;
      }
    }
  }

  /** The description made of the comments just skipped, or undefined. */
  takeDescription(): string | undefined {
    if (this.comments.length === 0) return undefined;
    const lines = this.comments.filter((c) => c.trim() !== '');
    this.comments = NO_COMMENTS;
    return lines.length > 0 ? lines.join('\n') : undefined;
  }

  /** An operation or keyword name: letters, digits, `-`, `_`, starting with a letter. */
  identifier(): string | undefined {
    const start = this.pos;
    IDENTIFIER.lastIndex = start;
    if (!IDENTIFIER.test(this.text)) return undefined;
    // At most 200 characters are read as one name.
    const end = Math.min(IDENTIFIER.lastIndex, start + 200);
    // A script names the same operations and arguments again and again: the last name of each length and
    // first letter is taken again when it stands here, rather than a new string each time.
    const slot = ((end - start) << 7) | this.text.charCodeAt(start);
    let name = this.names.get(slot);
    if (name === undefined || name.length !== end - start || !this.text.startsWith(name, start)) {
      name = this.text.slice(start, end);
      this.names.set(slot, name);
    }
    this.pos = end;
    return name;
  }

  private readonly names = new Map<number, string>();

  /** A keyword here, as a whole word? Consumes it when it is. */
  keyword(word: string): boolean {
    if (!this.text.startsWith(word, this.pos)) return false;
    const next = this.text[this.pos + word.length] ?? '';
    if (/[A-Za-z0-9_-]/.test(next)) return false;
    this.pos += word.length;
    return true;
  }

  /** A variable name after its sigil: `name` or `{any name}`. */
  variableName(): string | undefined {
    if (this.peek() === '{') {
      const end = this.text.indexOf('}', this.pos);
      if (end < 0) this.fail('unterminated ${...} variable name');
      const name = this.text.slice(this.pos + 1, end).trim();
      if (name === '') this.fail('empty variable name');
      this.pos = end + 1;
      return name;
    }
    const m = /^[A-Za-z][A-Za-z0-9_-]*/.exec(this.text.slice(this.pos, this.pos + 60));
    if (!m) return undefined;
    // A trailing dash is punctuation ("$name-"), not part of the name.
    const name = m[0].replace(/-+$/, '');
    if (name.length > 50) this.fail('variable names are at most 50 characters');
    this.pos += name.length;
    return name;
  }

  expect(s: string, what = `"${s}"`): void {
    if (!this.startsWith(s)) this.fail(`expected ${what}${this.done ? ' but the script ended' : `, found ${describe(this.peek())}`}`);
    this.pos += s.length;
  }

  /** Skips trivia, then consumes `s` when it is next. */
  accept(s: string): boolean {
    this.skipTrivia();
    if (!this.startsWith(s)) return false;
    this.pos += s.length;
    return true;
  }
}

export function describe(c: string): string {
  if (c === '') return 'the end of the script';
  if (c === '\n') return 'the end of the line';
  return `"${c}"`;
}
