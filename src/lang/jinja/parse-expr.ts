/** Expression grammar, with Jinja2's precedence: condexpr < or < and < not < compare < +- < ~ < * / // % < ** < unary. */

import type { CallArgs, Expr } from './ast.js';
import { PyFloat } from './pyvalue.js';
import { describeToken, type TokenStream } from './token-stream.js';

const COMPARE_OPS = new Set(['==', '!=', '<', '>', '<=', '>=']);
const TEST_ARG_START = new Set(['name', 'string', 'int', 'float']);

export class ExprParser {
  constructor(protected readonly s: TokenStream) {}

  parseExpression(withCondexpr = true): Expr {
    return withCondexpr ? this.parseCondexpr() : this.parseOr();
  }

  /** A comma-separated tuple without parentheses where allowed (`{{ 1, 2 }}`, `for a, b in`). */
  parseTuple(opts: { simplified?: boolean; withCondexpr?: boolean; extraEnd?: readonly string[]; explicitParens?: boolean } = {}): Expr {
    const at = this.s.current.offset;
    const items: Expr[] = [];
    let isTuple = false;
    const parseOne = (): Expr =>
      opts.simplified ? this.parsePrimary() : this.parseExpression(opts.withCondexpr ?? true);
    for (;;) {
      if (items.length > 0) {
        if (!this.s.skipOp(',')) break;
        isTuple = true;
      }
      if (this.isTupleEnd(opts.extraEnd)) break;
      items.push(parseOne());
      if (!this.s.isOp(',')) break;
    }
    if (!isTuple) {
      if (items.length === 1) return items[0]!;
      if (!opts.explicitParens) this.s.fail(`Expected an expression, got '${describeToken(this.s.current)}'`);
    }
    return { kind: 'tuple', at, items };
  }

  private isTupleEnd(extra?: readonly string[]): boolean {
    const t = this.s.current;
    if (t.type === 'var_end' || t.type === 'block_end' || t.type === 'eof') return true;
    if (t.type === 'op' && (t.value === ')' || t.value === ']' || t.value === '}')) return true;
    return extra !== undefined && t.type === 'name' && extra.includes(t.value);
  }

  private parseCondexpr(): Expr {
    let expr = this.parseOr();
    while (this.s.isName('if')) {
      const at = this.s.next().offset;
      const test = this.parseOr();
      const otherwise = this.s.skipName('else') ? this.parseCondexpr() : null;
      expr = { kind: 'condexpr', at, test, body: expr, otherwise };
    }
    return expr;
  }

  private parseOr(): Expr {
    let left = this.parseAnd();
    while (this.s.isName('or')) {
      const at = this.s.next().offset;
      left = { kind: 'or', at, left, right: this.parseAnd() };
    }
    return left;
  }

  private parseAnd(): Expr {
    let left = this.parseNot();
    while (this.s.isName('and')) {
      const at = this.s.next().offset;
      left = { kind: 'and', at, left, right: this.parseNot() };
    }
    return left;
  }

  private parseNot(): Expr {
    if (this.s.isName('not')) {
      const at = this.s.next().offset;
      return { kind: 'unary', at, op: 'not', operand: this.parseNot() };
    }
    return this.parseCompare();
  }

  private parseCompare(): Expr {
    const first = this.parseMath1();
    const ops: [string, Expr][] = [];
    for (;;) {
      const t = this.s.current;
      if (t.type === 'op' && COMPARE_OPS.has(t.value)) {
        this.s.next();
        ops.push([t.value, this.parseMath1()]);
      } else if (this.s.isName('in')) {
        this.s.next();
        ops.push(['in', this.parseMath1()]);
      } else if (this.s.isName('not') && this.s.look().type === 'name' && this.s.look().value === 'in') {
        this.s.next();
        this.s.next();
        ops.push(['notin', this.parseMath1()]);
      } else break;
    }
    return ops.length === 0 ? first : { kind: 'compare', at: first.at, first, ops };
  }

  private parseMath1(): Expr {
    let left = this.parseConcat();
    while (this.s.isOp('+') || this.s.isOp('-')) {
      const t = this.s.next();
      left = { kind: 'binop', at: t.offset, op: t.value, left, right: this.parseConcat() };
    }
    return left;
  }

  private parseConcat(): Expr {
    const first = this.parseMath2();
    if (!this.s.isOp('~')) return first;
    const items = [first];
    while (this.s.skipOp('~')) items.push(this.parseMath2());
    return { kind: 'concat', at: first.at, items };
  }

  private parseMath2(): Expr {
    let left = this.parsePow();
    while (this.s.isOp('*') || this.s.isOp('/') || this.s.isOp('//') || this.s.isOp('%')) {
      const t = this.s.next();
      left = { kind: 'binop', at: t.offset, op: t.value, left, right: this.parsePow() };
    }
    return left;
  }

  private parsePow(): Expr {
    let left = this.parseUnary();
    while (this.s.isOp('**')) {
      const t = this.s.next();
      left = { kind: 'binop', at: t.offset, op: '**', left, right: this.parseUnary() };
    }
    return left;
  }

  private parseUnary(withFilter = true): Expr {
    let node: Expr;
    const t = this.s.current;
    if (this.s.isOp('-') || this.s.isOp('+')) {
      this.s.next();
      node = { kind: 'unary', at: t.offset, op: t.value as '-' | '+', operand: this.parseUnary(false) };
    } else node = this.parsePrimary();
    node = this.parsePostfix(node);
    return withFilter ? this.parseFilterExpr(node) : node;
  }

  parsePrimary(): Expr {
    const t = this.s.current;
    const at = t.offset;
    switch (t.type) {
      case 'name': {
        this.s.next();
        if (t.value === 'true' || t.value === 'True') return { kind: 'const', at, value: true };
        if (t.value === 'false' || t.value === 'False') return { kind: 'const', at, value: false };
        if (t.value === 'none' || t.value === 'None') return { kind: 'const', at, value: null };
        return { kind: 'name', at, name: t.value };
      }
      case 'string': {
        let value = this.s.next().value;
        while (this.s.current.type === 'string') value += this.s.next().value;
        return { kind: 'const', at, value };
      }
      case 'int':
        this.s.next();
        return { kind: 'const', at, value: parseIntLiteral(t.value) };
      case 'float':
        this.s.next();
        return { kind: 'const', at, value: new PyFloat(Number(t.value)) };
      case 'op':
        if (t.value === '(') {
          this.s.next();
          const e = this.parseTuple({ explicitParens: true });
          this.s.expect('op', ')');
          return e;
        }
        if (t.value === '[') return this.parseList();
        if (t.value === '{') return this.parseDict();
        break;
      default:
        break;
    }
    if (t.type === 'eof') this.s.fail('unexpected end of template');
    this.s.fail(`unexpected '${describeToken(t)}'`);
  }

  private parseList(): Expr {
    const at = this.s.expect('op', '[').offset;
    const items: Expr[] = [];
    while (!this.s.isOp(']')) {
      if (items.length > 0) this.s.expect('op', ',');
      if (this.s.isOp(']')) break;
      items.push(this.parseExpression());
    }
    this.s.expect('op', ']');
    return { kind: 'list', at, items };
  }

  private parseDict(): Expr {
    const at = this.s.expect('op', '{').offset;
    const pairs: [Expr, Expr][] = [];
    while (!this.s.isOp('}')) {
      if (pairs.length > 0) this.s.expect('op', ',');
      if (this.s.isOp('}')) break;
      const k = this.parseExpression();
      this.s.expect('op', ':');
      pairs.push([k, this.parseExpression()]);
    }
    this.s.expect('op', '}');
    return { kind: 'dict', at, pairs };
  }

  private parsePostfix(node: Expr): Expr {
    for (;;) {
      if (this.s.isOp('.') || this.s.isOp('[')) node = this.parseSubscript(node);
      else if (this.s.isOp('(')) node = { kind: 'call', at: this.s.current.offset, fn: node, args: this.parseCallArgs() };
      else return node;
    }
  }

  private parseFilterExpr(node: Expr): Expr {
    for (;;) {
      if (this.s.isOp('|')) node = this.parseFilter(node);
      else if (this.s.isName('is')) node = this.parseTest(node);
      else if (this.s.isOp('(')) node = { kind: 'call', at: this.s.current.offset, fn: node, args: this.parseCallArgs() };
      else return node;
    }
  }

  private parseSubscript(node: Expr): Expr {
    const t = this.s.next();
    if (t.value === '.') {
      const a = this.s.next();
      if (a.type === 'name') return { kind: 'getattr', at: t.offset, obj: node, attr: a.value };
      if (a.type === 'int') return { kind: 'getitem', at: t.offset, obj: node, index: { kind: 'const', at: a.offset, value: parseIntLiteral(a.value) } };
      this.s.fail('expected name or number', a);
    }
    const indexes: Expr[] = [];
    while (!this.s.isOp(']')) {
      if (indexes.length > 0) {
        this.s.expect('op', ',');
        if (this.s.isOp(']')) break;
      }
      indexes.push(this.parseSubscribed());
    }
    this.s.expect('op', ']');
    const index: Expr = indexes.length === 1 ? indexes[0]! : { kind: 'tuple', at: t.offset, items: indexes };
    return { kind: 'getitem', at: t.offset, obj: node, index };
  }

  private parseSubscribed(): Expr {
    const at = this.s.current.offset;
    let start: Expr | undefined;
    if (!this.s.isOp(':')) {
      start = this.parseExpression();
      if (!this.s.isOp(':')) return start;
    }
    this.s.next();
    const part = (): Expr | undefined => (this.s.isOp(']') || this.s.isOp(',') || this.s.isOp(':') ? undefined : this.parseExpression());
    const stop = part();
    let step: Expr | undefined;
    if (this.s.skipOp(':')) step = part();
    return { kind: 'slice', at, ...(start ? { start } : {}), ...(stop ? { stop } : {}), ...(step ? { step } : {}) };
  }

  parseCallArgs(): CallArgs {
    this.s.expect('op', '(');
    const args: Expr[] = [];
    const kwargs: [string, Expr][] = [];
    let star: Expr | undefined;
    let dstar: Expr | undefined;
    let first = true;
    while (!this.s.isOp(')')) {
      if (!first) {
        this.s.expect('op', ',');
        if (this.s.isOp(')')) break;
      }
      first = false;
      if (this.s.skipOp('**')) dstar = this.parseExpression();
      else if (this.s.skipOp('*')) star = this.parseExpression();
      else if (this.s.current.type === 'name' && this.s.look().type === 'op' && this.s.look().value === '=') {
        const key = this.s.next().value;
        this.s.next();
        kwargs.push([key, this.parseExpression()]);
      } else {
        if (kwargs.length > 0 || star || dstar) this.s.fail('Invalid argument syntax');
        args.push(this.parseExpression());
      }
    }
    this.s.expect('op', ')');
    return { args, kwargs, ...(star ? { star } : {}), ...(dstar ? { dstar } : {}) };
  }

  /** `| name(args)`, possibly dotted; `node` null builds a filter for a block to apply later. */
  parseFilter(node: Expr | null, startInline = true): Expr {
    let n = node;
    let first = true;
    while (this.s.isOp('|') || (!startInline && first)) {
      if (startInline || !first) this.s.next();
      first = false;
      const tok = this.s.expect('name');
      let name = tok.value;
      while (this.s.isOp('.')) {
        this.s.next();
        name += `.${this.s.expect('name').value}`;
      }
      const args: CallArgs = this.s.isOp('(') ? this.parseCallArgs() : { args: [], kwargs: [] };
      n = { kind: 'filter', at: tok.offset, value: n, name, args };
      if (!startInline) startInline = true;
    }
    return n as Expr;
  }

  private parseTest(node: Expr): Expr {
    const at = this.s.next().offset;
    const negated = this.s.skipName('not');
    let name = this.s.expect('name').value;
    while (this.s.isOp('.')) {
      this.s.next();
      name += `.${this.s.expect('name').value}`;
    }
    let args: CallArgs = { args: [], kwargs: [] };
    const c = this.s.current;
    if (this.s.isOp('(')) args = this.parseCallArgs();
    else if (
      (TEST_ARG_START.has(c.type) || (c.type === 'op' && (c.value === '(' || c.value === '[' || c.value === '{'))) &&
      !(c.type === 'name' && (c.value === 'else' || c.value === 'or' || c.value === 'and'))
    ) {
      if (c.type === 'name' && c.value === 'is') this.s.fail('You cannot chain multiple tests with is');
      args = { args: [this.parsePostfix(this.parsePrimary())], kwargs: [] };
    }
    return { kind: 'test', at, value: node, name, args, negated };
  }
}

function parseIntLiteral(text: string): number {
  const t = text.toLowerCase();
  if (t.startsWith('0b')) return Number.parseInt(t.slice(2), 2);
  if (t.startsWith('0o')) return Number.parseInt(t.slice(2), 8);
  if (t.startsWith('0x')) return Number.parseInt(t.slice(2), 16);
  return Number.parseInt(t, 10);
}
