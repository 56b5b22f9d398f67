/** HCL1 parser: a file is an object body of items; values are strings, numbers, bools, lists and objects. */
import { nestingDiagnostic } from '../../core/nesting.js';
import { DiagnosticError, LineMap } from '../../core/diag.js';
import type { HclFile, HclItem, HclKey, HclObject, HclValue } from './ast.js';
import { fail, type Token, tokenize } from './lexer.js';

class Parser {
  private pos = 0;
  constructor(
    private readonly tokens: readonly Token[],
    private readonly lines: LineMap,
  ) {}

  private peek(): Token {
    return this.tokens[this.pos] as Token;
  }

  private next(): Token {
    return this.tokens[this.pos++] as Token;
  }

  private skipNewlines(): void {
    while (this.peek().type === 'newline') this.pos++;
  }

  private isPunct(t: Token, c: string): boolean {
    return t.type === 'punct' && t.text === c;
  }

  private describe(t: Token): string {
    if (t.type === 'eof') return 'end of file';
    if (t.type === 'newline') return 'end of line';
    if (t.type === 'string' || t.type === 'heredoc') return 'a string';
    return JSON.stringify(t.text);
  }

  private unexpected(t: Token, wanted: string): never {
    return fail(this.lines, t.offset, 'HCL010', `expected ${wanted}, found ${this.describe(t)}`);
  }

  /** Items until `}` (when `closing`) or the end of the file. */
  parseBody(closing: boolean, startOffset: number): HclObject {
    const items: HclItem[] = [];
    for (;;) {
      this.skipNewlines();
      const t = this.peek();
      if (closing && this.isPunct(t, '}')) {
        this.pos++;
        break;
      }
      if (t.type === 'eof') {
        if (closing) fail(this.lines, startOffset, 'HCL011', 'unclosed "{": expected "}" before the end of the file');
        break;
      }
      items.push(this.parseItem());
      const after = this.peek();
      if (this.isPunct(after, ',')) this.pos++;
      // As in HCL 1, the next item may follow on the same line (`{ a = "1" b = "2" }`).
      else if (after.type !== 'newline' && after.type !== 'eof' && after.type !== 'ident' && after.type !== 'string' && !(closing && this.isPunct(after, '}'))) {
        this.unexpected(after, 'a new line or "," after the item');
      }
    }
    return { kind: 'object', items, span: this.lines.span(startOffset) };
  }

  private parseItem(): HclItem {
    const keys: HclKey[] = [];
    const first = this.peek();
    for (;;) {
      const t = this.peek();
      if (t.type === 'ident' || t.type === 'bool') {
        keys.push({ name: t.text, span: this.lines.span(t.offset), quoted: false });
        this.pos++;
      } else if (t.type === 'string') {
        keys.push({ name: t.text, span: this.lines.span(t.offset), quoted: true });
        this.pos++;
      } else break;
    }
    if (keys.length === 0) this.unexpected(first, 'a key');
    const t = this.peek();
    if (this.isPunct(t, '=')) {
      if (keys.length > 1) fail(this.lines, t.offset, 'HCL012', 'only one key may come before "="');
      this.pos++;
      this.skipNewlines();
      const value = this.parseValue();
      return { keys, value, assign: true, span: this.lines.span(first.offset) };
    }
    if (this.isPunct(t, '{')) {
      this.pos++;
      const value = this.parseBody(true, t.offset);
      return { keys, value, assign: false, span: this.lines.span(first.offset) };
    }
    return this.unexpected(t, keys.length === 1 ? '"=" or "{"' : '"{"');
  }

  private parseValue(): HclValue {
    const t = this.next();
    const span = this.lines.span(t.offset);
    switch (t.type) {
      case 'string':
        return { kind: 'string', value: t.text, span, heredoc: false };
      case 'heredoc':
        return { kind: 'string', value: t.text, span, heredoc: true };
      case 'number': {
        // As Go's ParseInt with base 0: a leading 0 makes an integer octal (0644 is 420).
        const octal = /^([-+]?)0([0-7]+)$/.exec(t.text);
        const value = octal ? (octal[1] === '-' ? -1 : 1) * Number.parseInt(octal[2] as string, 8) : Number(t.text);
        if (!Number.isFinite(value)) fail(this.lines, t.offset, 'HCL013', `invalid number ${t.text}`);
        return { kind: 'number', value, span };
      }
      case 'bool':
        return { kind: 'bool', value: t.text === 'true', span };
      case 'punct':
        if (t.text === '[') return this.parseList(t);
        if (t.text === '{') return this.parseBody(true, t.offset);
        break;
      default:
        break;
    }
    return this.unexpected(t, 'a value');
  }

  private parseList(open: Token): HclValue {
    const items: HclValue[] = [];
    for (;;) {
      this.skipNewlines();
      const t = this.peek();
      if (this.isPunct(t, ']')) {
        this.pos++;
        break;
      }
      if (t.type === 'eof') fail(this.lines, open.offset, 'HCL011', 'unclosed "[": expected "]" before the end of the file');
      items.push(this.parseValue());
      this.skipNewlines();
      const after = this.peek();
      if (this.isPunct(after, ',')) this.pos++;
      else if (after.type === 'eof') fail(this.lines, open.offset, 'HCL011', 'unclosed "[": expected "]" before the end of the file');
      else if (!this.isPunct(after, ']')) this.unexpected(after, '"," or "]" in the list');
    }
    return { kind: 'list', items, span: this.lines.span(open.offset) };
  }
}

/** Parses HCL1 text; a syntax error throws a DiagnosticError at `file:line:col`. */
export function parseHcl(file: string, text: string): HclFile {
  const tooDeep = nestingDiagnostic(file, text, 'HCL014', { quotes: '"' });
  if (tooDeep) throw new DiagnosticError([tooDeep]);
  const lines = new LineMap(file, text);
  const parser = new Parser(tokenize(text, lines), lines);
  return { file, body: parser.parseBody(false, 0) };
}
