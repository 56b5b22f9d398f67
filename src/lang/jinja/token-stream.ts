/** A cursor over lexer tokens with Jinja-style error messages. */

import { TemplateSyntaxError } from './errors.js';
import type { Token } from './lexer.js';

export function describeToken(t: Token): string {
  switch (t.type) {
    case 'name':
    case 'op':
      return t.value;
    case 'var_end':
      return 'end of print statement';
    case 'block_end':
      return 'end of statement block';
    case 'var_begin':
      return 'begin of print statement';
    case 'block_begin':
      return 'begin of statement block';
    case 'eof':
      return 'end of template';
    case 'int':
      return 'integer';
    default:
      return t.type;
  }
}

export class TokenStream {
  private i = 0;
  constructor(private readonly tokens: readonly Token[], readonly file: string) {}

  get current(): Token {
    return this.tokens[this.i] ?? this.tokens[this.tokens.length - 1]!;
  }
  look(n = 1): Token {
    return this.tokens[this.i + n] ?? this.tokens[this.tokens.length - 1]!;
  }
  next(): Token {
    const t = this.current;
    if (this.i < this.tokens.length - 1) this.i++;
    return t;
  }
  isOp(value: string): boolean {
    const t = this.current;
    return t.type === 'op' && t.value === value;
  }
  isName(value?: string): boolean {
    const t = this.current;
    return t.type === 'name' && (value === undefined || t.value === value);
  }
  skipOp(value: string): boolean {
    if (!this.isOp(value)) return false;
    this.next();
    return true;
  }
  skipName(value: string): boolean {
    if (!this.isName(value)) return false;
    this.next();
    return true;
  }
  fail(message: string, at: Token = this.current): never {
    throw new TemplateSyntaxError(message, this.file, at.offset);
  }
  /** Consumes a token of the given type (and value), or fails as Jinja does. */
  expect(type: Token['type'], value?: string): Token {
    const t = this.current;
    if (t.type === type && (value === undefined || t.value === value)) return this.next();
    const want = value ?? describeToken({ type, value: '', offset: 0 });
    if (t.type === 'eof') this.fail(`unexpected end of template, expected '${want}'.`);
    this.fail(`expected token '${want}', got '${describeToken(t)}'`);
  }
}
