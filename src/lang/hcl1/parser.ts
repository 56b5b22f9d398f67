/** HCL1 parser: a file is an object body of items; values are strings, numbers, bools, lists and objects. */
import { nestingDiagnostic } from '../../core/nesting.js';
import { type Code, DiagnosticError, type Span } from '../../core/diag.js';
import type { HclFile, HclItem, HclKey, HclObject, HclValue } from './ast.js';
import { fail, Scanner, type TokenType } from './lexer.js';

/**
 * Reads the tokens as the scanner reaches them. A lexical error anywhere in the file comes before any
 * syntax error (as if the whole file were tokenized first): before a syntax error is reported, the rest
 * of the file is scanned.
 */
class Parser {
  private readonly s: Scanner;
  /** The last span made and its offset: an item and its first key start at the same place and share it. */
  private lastOffset = -1;
  private lastSpan: Span | undefined;
  /** Items of the bodies being read, innermost last (see parseBody). */
  private readonly pending: HclItem[] = [];

  constructor(file: string, text: string) {
    this.s = new Scanner(text, file);
  }

  private span(offset: number): Span {
    if (offset !== this.lastOffset) {
      this.lastOffset = offset;
      this.lastSpan = this.s.spanAt(offset);
    }
    return this.lastSpan as Span;
  }

  /** The type of the token the scanner stands on (read afresh: a call may have moved it). */
  private now(): TokenType {
    return this.s.type;
  }

  private skipNewlines(): void {
    while (this.s.type === 'newline') this.s.advance();
  }

  private atPunct(c: string): boolean {
    return this.s.type === 'punct' && this.s.text === c;
  }

  private describe(): string {
    const t = this.s;
    if (t.type === 'eof') return 'end of file';
    if (t.type === 'newline') return 'end of line';
    if (t.type === 'string' || t.type === 'heredoc') return 'a string';
    return JSON.stringify(t.text);
  }

  private fail(offset: number, code: Code, message: string): never {
    this.s.drain();
    return fail(this.s.lines, offset, code, message);
  }

  /** The current token is not what the grammar wants here. */
  private unexpected(wanted: string): never {
    const offset = this.s.offset;
    const found = this.describe();
    return this.fail(offset, 'HCL010', `expected ${wanted}, found ${found}`);
  }

  /** Items until `}` (when `closing`) or the end of the file. */
  parseBody(closing: boolean, startOffset: number): HclObject {
    // The items are gathered on one stack shared by every body (a nested body's above its parent's),
    // and each body takes its own as one list of its size.
    const pending = this.pending;
    const base = pending.length;
    const span = this.span(startOffset);
    const s = this.s;
    // The scanner's token is read in place here and in parseItem (no call per test: this runs per item).
    for (;;) {
      while (s.type === 'newline') s.advance();
      if (closing && s.type === 'punct' && s.text === '}') {
        s.advance();
        break;
      }
      if (s.type === 'eof') {
        if (closing) this.fail(startOffset, 'HCL011', 'unclosed "{": expected "}" before the end of the file');
        break;
      }
      pending.push(this.parseItem());
      // Read afresh: parseItem moved the scanner.
      const after = s.type as TokenType;
      if (after === 'punct' && s.text === ',') s.advance();
      // As in HCL 1, the next item may follow on the same line (`{ a = "1" b = "2" }`).
      else if (after !== 'newline' && after !== 'eof' && after !== 'ident' && after !== 'string' && !(closing && after === 'punct' && s.text === '}')) {
        this.unexpected('a new line or "," after the item');
      }
    }
    const items = pending.slice(base);
    pending.length = base;
    return { kind: 'object', items, span };
  }

  /** The key the scanner stands on, taken; undefined when it stands on something else. */
  private key(): HclKey | undefined {
    const s = this.s;
    const type = s.type;
    if (type !== 'ident' && type !== 'bool' && type !== 'string') return undefined;
    const key: HclKey = { name: s.text, span: this.span(s.offset), quoted: type === 'string' };
    s.advance();
    return key;
  }

  private parseItem(): HclItem {
    const s = this.s;
    // Most items have one key or two (a block and its name): their list is made at its size.
    const k1 = this.key();
    if (k1 === undefined) return this.unexpected('a key');
    const k2 = this.key();
    let keys: HclKey[];
    if (k2 === undefined) keys = [k1];
    else {
      keys = [k1, k2];
      for (let k = this.key(); k !== undefined; k = this.key()) keys.push(k);
    }
    // The item starts where its first key does: the same position object.
    const span = k1.span;
    const punct = s.type === 'punct' ? s.text : '';
    if (punct === '=') {
      if (keys.length > 1) this.fail(s.offset, 'HCL012', 'only one key may come before "="');
      s.advance();
      while (s.type === 'newline') s.advance();
      const value = this.parseValue();
      return { keys, value, assign: true, span };
    }
    if (punct === '{') {
      const open = s.offset;
      s.advance();
      const value = this.parseBody(true, open);
      return { keys, value, assign: false, span };
    }
    return this.unexpected(keys.length === 1 ? '"=" or "{"' : '"{"');
  }

  private parseValue(): HclValue {
    const s = this.s;
    const { type, text, offset } = s;
    const span = this.span(offset);
    switch (type) {
      case 'string':
      case 'heredoc':
        s.advance();
        return { kind: 'string', value: text, span, heredoc: type === 'heredoc' };
      case 'number': {
        s.advance();
        // As Go's ParseInt with base 0: a leading 0 makes an integer octal (0644 is 420).
        const octal = /^([-+]?)0([0-7]+)$/.exec(text);
        const value = octal ? (octal[1] === '-' ? -1 : 1) * Number.parseInt(octal[2] as string, 8) : Number(text);
        if (!Number.isFinite(value)) this.fail(offset, 'HCL013', `invalid number ${text}`);
        return { kind: 'number', value, span };
      }
      case 'bool':
        s.advance();
        return { kind: 'bool', value: text === 'true', span };
      case 'punct':
        if (text === '[') {
          s.advance();
          return this.parseList(offset, span);
        }
        if (text === '{') {
          s.advance();
          return this.parseBody(true, offset);
        }
        break;
      default:
        break;
    }
    return this.unexpected('a value');
  }

  private parseList(open: number, span: Span): HclValue {
    const items: HclValue[] = [];
    const s = this.s;
    for (;;) {
      this.skipNewlines();
      if (this.atPunct(']')) {
        s.advance();
        break;
      }
      if (s.type === 'eof') this.fail(open, 'HCL011', 'unclosed "[": expected "]" before the end of the file');
      items.push(this.parseValue());
      this.skipNewlines();
      if (this.atPunct(',')) s.advance();
      else if (this.now() === 'eof') this.fail(open, 'HCL011', 'unclosed "[": expected "]" before the end of the file');
      else if (!this.atPunct(']')) this.unexpected('"," or "]" in the list');
    }
    return { kind: 'list', items, span };
  }
}

/** Parses HCL1 text; a syntax error throws a DiagnosticError at `file:line:col`. */
export function parseHcl(file: string, text: string): HclFile {
  const tooDeep = nestingDiagnostic(file, text, 'HCL014', { quotes: '"' });
  if (tooDeep) throw new DiagnosticError([tooDeep]);
  const parser = new Parser(file, text);
  return { file, body: parser.parseBody(false, 0) };
}
