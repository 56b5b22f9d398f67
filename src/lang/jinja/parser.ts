/** Statement grammar: turns tokens into a TemplateAst, failing with Jinja's messages and positions. */

import { MAX_NESTING, tooDeepAt } from '../../core/nesting.js';
import type { Expr, MacroParam, Stmt, Target, TemplateAst } from './ast.js';
import { TemplateSyntaxError } from './errors.js';
import { tokenize, normalizeSource } from './lexer.js';
import { ExprParser } from './parse-expr.js';
import { TokenStream } from './token-stream.js';

const KNOWN_TAGS = new Set([
  'if', 'for', 'set', 'macro', 'call', 'import', 'from', 'include', 'with', 'do', 'filter', 'block', 'extends', 'break', 'continue',
]);

export function parseTemplate(rawSource: string, file: string): TemplateAst {
  const source = normalizeSource(rawSource);
  const tooDeep = tooDeepAt(source, { quotes: '' });
  if (tooDeep >= 0) throw new TemplateSyntaxError(`brackets nested deeper than ${MAX_NESTING} levels`, file, tooDeep);
  const parser = new StmtParser(new TokenStream(tokenize(source, file), file));
  return { file, source, body: parser.parseAll() };
}

class StmtParser extends ExprParser {
  private readonly endStack: (readonly string[])[] = [];
  private readonly tagStack: string[] = [];

  parseAll(): Stmt[] {
    return this.subparse(null);
  }

  /** Parses until a block tag named in `end` (consumed up to its name) or, with null, the end of input. */
  private subparse(end: readonly string[] | null): Stmt[] {
    const body: Stmt[] = [];
    if (end) this.endStack.push(end);
    try {
      for (;;) {
        const t = this.s.current;
        if (t.type === 'eof') {
          if (end) this.failUnknownTag(null, t.offset);
          return body;
        }
        if (t.type === 'data') {
          body.push({ kind: 'output', at: t.offset, text: this.s.next().value });
        } else if (t.type === 'var_begin') {
          this.s.next();
          body.push({ kind: 'print', at: t.offset, expr: this.parseTuple() });
          this.s.expect('var_end');
        } else if (t.type === 'block_begin') {
          this.s.next();
          const name = this.s.current;
          if (end && name.type === 'name' && end.includes(name.value)) return body;
          body.push(this.parseStatement());
          this.s.expect('block_end');
        } else {
          this.s.fail('internal lexer state');
        }
      }
    } finally {
      if (end) this.endStack.pop();
    }
  }

  private failUnknownTag(name: string | null, offset: number): never {
    const expected = new Set(this.endStack.flat());
    const looking = this.endStack.length > 0 ? this.endStack[this.endStack.length - 1]!.map((n) => `'${n}'`).join(' or ') : '';
    const parts = [name === null ? 'Unexpected end of template.' : `Encountered unknown tag '${name}'.`];
    if (looking) {
      if (name !== null && expected.has(name)) {
        parts.push(`You probably made a nesting mistake. Jinja is expecting this tag, but currently looking for ${looking}.`);
      } else parts.push(`Jinja was looking for the following tags: ${looking}.`);
    }
    if (this.tagStack.length > 0) parts.push(`The innermost block that needs to be closed is '${this.tagStack[this.tagStack.length - 1]}'.`);
    this.s.fail(parts.join(' '), { type: 'name', value: name ?? '', offset });
  }

  private parseStatement(): Stmt {
    const t = this.s.current;
    if (t.type !== 'name') this.s.fail('tag name expected');
    if (!KNOWN_TAGS.has(t.value)) this.failUnknownTag(t.value, t.offset);
    this.tagStack.push(t.value);
    try {
      this.s.next();
      return this.parseTag(t.value, t.offset);
    } finally {
      this.tagStack.pop();
    }
  }

  private parseTag(tag: string, at: number): Stmt {
    switch (tag) {
      case 'if': return this.parseIf(at);
      case 'for': return this.parseFor(at);
      case 'set': return this.parseSet(at);
      case 'macro': {
        const name = this.s.expect('name').value;
        const params = this.parseSignature();
        return { kind: 'macro', at, name, params, body: this.parseBody(['endmacro']) };
      }
      case 'call': {
        const params = this.s.isOp('(') ? this.parseSignature() : [];
        const call = this.parseExpression();
        if (call.kind !== 'call') this.s.fail('expected call', { type: 'name', value: '', offset: call.at });
        return { kind: 'callblock', at, call, params, body: this.parseBody(['endcall']) };
      }
      case 'import': {
        const template = this.parseExpression();
        this.s.expect('name', 'as');
        const alias = this.s.expect('name').value;
        return { kind: 'import', at, template, alias, withContext: this.parseContextFlag(false) };
      }
      case 'from': return this.parseFrom(at);
      case 'include': {
        const template = this.parseExpression();
        let ignoreMissing = false;
        if (this.s.isName('ignore') && this.s.look().value === 'missing') {
          this.s.next();
          this.s.next();
          ignoreMissing = true;
        }
        return { kind: 'include', at, template, ignoreMissing, withContext: this.parseContextFlag(true) };
      }
      case 'with': {
        const assigns: [Target, Expr][] = [];
        while (this.s.current.type !== 'block_end') {
          if (assigns.length > 0) this.s.expect('op', ',');
          const target = this.parseTarget();
          this.s.expect('op', '=');
          assigns.push([target, this.parseExpression()]);
        }
        return { kind: 'with', at, assigns, body: this.parseBody(['endwith']) };
      }
      case 'do': return { kind: 'do', at, expr: this.parseTuple() };
      case 'filter': {
        const filters = [this.parseFilter(null, false)];
        return { kind: 'filterblock', at, filters, body: this.parseBody(['endfilter']) };
      }
      case 'block': {
        const name = this.s.expect('name').value;
        this.s.skipName('scoped');
        this.s.skipName('required');
        const body = this.parseBody(['endblock']);
        if (this.s.current.type === 'name') this.s.next();
        return { kind: 'block', at, name, body };
      }
      case 'extends': return { kind: 'extends', at, template: this.parseExpression() };
      case 'break':
      case 'continue':
        if (!this.tagStack.slice(0, -1).includes('for')) this.s.fail(`Encountered unknown tag '${tag}'.`);
        return { kind: 'do', at, expr: { kind: 'const', at, value: tag === 'break' ? BREAK : CONTINUE } };
      default:
        this.failUnknownTag(tag, at);
    }
  }

  /** Body up to an end tag; consumes `{% endX` and leaves the block_end for the caller. */
  private parseBody(end: readonly string[]): Stmt[] {
    this.s.expect('block_end');
    const body = this.subparse(end);
    this.s.next();
    return body;
  }

  private parseIf(at: number): Stmt {
    const test = this.parseTuple({ withCondexpr: false });
    this.s.expect('block_end');
    const body = this.subparse(['elif', 'else', 'endif']);
    const tok = this.s.next();
    let otherwise: Stmt[] = [];
    if (tok.value === 'elif') otherwise = [this.parseIf(tok.offset)];
    else if (tok.value === 'else') otherwise = this.parseBody(['endif']);
    return { kind: 'if', at, test, body, otherwise };
  }

  private parseFor(at: number): Stmt {
    const target = this.parseAssignTarget(['in']);
    this.s.expect('name', 'in');
    const iter = this.parseTuple({ withCondexpr: false, extraEnd: ['recursive'] });
    let filter: Expr | null = null;
    if (this.s.skipName('if')) filter = this.parseExpression();
    this.s.skipName('recursive');
    this.s.expect('block_end');
    const body = this.subparse(['endfor', 'else']);
    const tok = this.s.next();
    const otherwise = tok.value === 'else' ? this.parseBody(['endfor']) : [];
    return { kind: 'for', at, target, iter, filter, body, otherwise };
  }

  private parseSet(at: number): Stmt {
    const target = this.parseAssignTarget([], true);
    if (this.s.skipOp('=')) return { kind: 'set', at, target, value: this.parseTuple() };
    const filters = this.s.isOp('|') ? [this.parseFilter(null)] : [];
    return { kind: 'setblock', at, target, filters, body: this.parseBody(['endset']) };
  }

  private parseFrom(at: number): Stmt {
    const template = this.parseExpression();
    this.s.expect('name', 'import');
    const names: [string, string][] = [];
    let withContext = false;
    for (;;) {
      if (names.length > 0 && !this.s.skipOp(',')) break;
      if ((this.s.isName('with') || this.s.isName('without')) && this.s.look().value === 'context') {
        withContext = this.parseContextFlag(false);
        break;
      }
      if (this.s.current.type !== 'name') break;
      const name = this.s.next().value;
      if (name.startsWith('_')) this.s.fail('names starting with an underline can not be imported');
      const alias = this.s.skipName('as') ? this.s.expect('name').value : name;
      names.push([name, alias]);
    }
    if (names.length === 0) this.s.fail('expected name');
    if (!withContext) withContext = this.parseContextFlag(false);
    return { kind: 'fromimport', at, template, names, withContext };
  }

  private parseContextFlag(dflt: boolean): boolean {
    if ((this.s.isName('with') || this.s.isName('without')) && this.s.look().value === 'context') {
      const w = this.s.next().value === 'with';
      this.s.next();
      return w;
    }
    return dflt;
  }

  private parseSignature(): MacroParam[] {
    this.s.expect('op', '(');
    const params: MacroParam[] = [];
    while (!this.s.isOp(')')) {
      if (params.length > 0) this.s.expect('op', ',');
      const name = this.s.expect('name').value;
      if (this.s.skipOp('=')) params.push({ name, default: this.parseExpression() });
      else {
        if (params.some((p) => p.default)) this.s.fail('non-default argument follows default argument');
        params.push({ name });
      }
    }
    this.s.expect('op', ')');
    return params;
  }

  private parseTarget(): Target {
    const t = this.s.expect('name');
    if (this.s.isOp('.') && this.s.look().type === 'name') {
      this.s.next();
      return { kind: 'nsattr', at: t.offset, name: t.value, attr: this.s.next().value };
    }
    return { kind: 'name', at: t.offset, name: t.value };
  }

  private parseAssignTarget(extraEnd: readonly string[], allowNs = false): Target {
    const at = this.s.current.offset;
    const items: Target[] = [];
    let tuple = false;
    const paren = this.s.skipOp('(');
    for (;;) {
      const t = allowNs ? this.parseTarget() : { kind: 'name' as const, at: this.s.current.offset, name: this.s.expect('name').value };
      items.push(t);
      if (!this.s.skipOp(',')) break;
      tuple = true;
      if (this.s.current.type !== 'name' || extraEnd.includes(this.s.current.value)) break;
    }
    if (paren) this.s.expect('op', ')');
    if (!tuple && !paren) return items[0]!;
    return tuple || items.length > 1 ? { kind: 'tuple', at, items } : items[0]!;
  }
}

/** Sentinels carried by `do` statements for the loopcontrols extension's break and continue. */
export const BREAK = Symbol('break');
export const CONTINUE = Symbol('continue');
