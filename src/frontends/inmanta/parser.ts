/** Recursive-descent parser for .cf files. Operator precedence follows the real grammar (low → high): ?:, or, and, comparisons, + -, * / %, **, not, in. */
import type { Span } from '../../core/diag.js';
import { MAX_NESTING } from '../../core/nesting.js';
import { LitAt, type Attribute, type Expr, type KwArg, type RelationEnd, type Stmt, type TypeRef } from './ast.js';
import { InmantaError } from './errors.js';
import { F_FLAVOUR, lex, opNumber, opText, RAW_FLAVOUR, type Token, type Tokens } from './lexer.js';
import { formatted, interpolated } from './strings.js';

const CMP = new Set(['==', '!=', '<', '>', '<=', '>=']);
const BLOCK_END = new Set(['end', 'elif', 'else']);
/** What may follow an operand inside an expression: binary operators, `in`, `not in`, `is defined`, `?`. */
const CONTINUES = new Set([...CMP, '+', '-', '*', '/', '%', '**', '?', 'in', 'not', 'is', 'and', 'or']);

/** A token as the real parser names it in a syntax error: its value (a string without quotes, a number as Python prints it). */
function tokenValue(t: Token): string {
  if (t.kind === 'int') return BigInt(t.text).toString();
  if (t.kind === 'float') {
    const n = Number(t.text);
    return Number.isInteger(n) && Math.abs(n) < 1e16 ? `${n}.0` : String(n);
  }
  return t.text;
}

/** The empty argument list the syntax tree shares (never added to: the tree is not changed once parsed). */
const NONE: Expr[] = [];

const OP_SCOPE = opNumber('::');
const OP_ASSIGN = opNumber('=');
const OP_ADD_TO = opNumber('+=');
const OP_DOT = opNumber('.');
const OP_COMMA = opNumber(',');
const OP_RPAREN = opNumber(')');
const OP_RBRACKET = opNumber(']');
const OP_LBRACKET = opNumber('[');
const OP_LPAREN = opNumber('(');
/** By operator number: 1 for an operator in CONTINUES. */
const CONTINUES_OP = Uint8Array.from({ length: 64 }, (_, i) => (CONTINUES.has(opText(i)) ? 1 : 0));

const CAPITAL = 'Syntax error: Invalid identifier: Entity names must start with a capital';

export function parseFile(file: string, src: string): Stmt[] {
  const toks = lex(file, src);
  tooDeep(toks);
  const parser = new Parser(toks);
  try {
    return parser.file();
  } catch (e) {
    // Deep input that is not brackets (a long chain of `not` or of unary minus): the same error, at the
    // token the parser had reached, never a stack overflow.
    if (e instanceof RangeError && /call stack/i.test(e.message)) throw new InmantaError('ParserException', `Syntax error: nesting deeper than ${MAX_NESTING} levels is not supported here`, parser.where());
    throw e;
  }
}

/** Brackets nested past the shared limit are refused before parsing, at the first one too deep (the lexer finds it). */
function tooDeep(toks: Tokens): void {
  const i = toks.tooDeepAt;
  if (i >= 0) throw new InmantaError('ParserException', `Syntax error: nesting deeper than ${MAX_NESTING} levels is not supported here`, toks.token(i).span);
}

class Parser {
  private pos = 0;
  /** The token at `pos`, made when first asked for there. */
  private cur: Token | undefined;
  private curPos = -1;
  /**
   * The tokens' kinds and operator numbers (complete once lexed), read directly on the paths most of a
   * large model goes through: a small model's parser runs unoptimized, where a call per read costs more
   * than the read. `last` is the end of the file's token.
   */
  private readonly kinds: Uint8Array;
  private readonly subs: Uint8Array;
  private readonly last: number;
  /** The file, and each token's line and column, for the literals' positions (read as `kinds`). */
  private readonly fileName: string;
  private readonly lineNos: Int32Array;
  private readonly cols: Int32Array;
  constructor(private readonly toks: Tokens) {
    this.kinds = toks.kinds;
    this.subs = toks.subs;
    this.last = toks.count - 1;
    this.fileName = toks.file;
    this.lineNos = toks.lineNos;
    this.cols = toks.cols;
  }

  /** Where the parser is. */
  where(): Span {
    return this.tok.span;
  }

  private get tok(): Token {
    if (this.curPos !== this.pos) {
      this.cur = this.toks.token(this.pos);
      this.curPos = this.pos;
    }
    return this.cur as Token;
  }
  private peek(n = 1): Token {
    return this.toks.token(this.ahead(n));
  }
  private ahead(n: number): number {
    return Math.min(this.pos + n, this.toks.count - 1);
  }
  /** The text of the token `n` ahead, without making the token. */
  private peekText(n = 1): string {
    return this.toks.text(this.ahead(n));
  }
  /** Whether the text of the token `n` ahead is `text` (`peekText(n) === text`, without making the text). */
  private peekIs(text: string, n = 1): boolean {
    return this.toks.textIs(this.ahead(n), text);
  }
  private peekKind(n = 1): Token['kind'] {
    return this.toks.kind(this.ahead(n));
  }
  /** The kind of the token the parser is at. */
  private kind(): Token['kind'] {
    return this.toks.kind(this.pos);
  }
  private next(): Token {
    const t = this.tok;
    this.skip();
    return t;
  }
  /** Moves past the token the parser is at (never past the end of the file). */
  private skip(): void {
    if (this.toks.kindCode(this.pos) !== 8) this.pos++;
  }
  /** The token is the keyword or operator `text`. */
  private is(text: string): boolean {
    return this.toks.isWord(this.pos, text);
  }
  private accept(text: string): boolean {
    if (!this.is(text)) return false;
    this.pos++;
    return true;
  }
  private fail(t: Token = this.tok): never {
    if (t.kind === 'eof') throw new InmantaError('ParserException', 'Syntax error: Unexpected end of file', t.span);
    if (t.kind === 'kw') throw new InmantaError('ParserException', `Syntax error: invalid identifier, ${t.text} is a reserved keyword`, t.span);
    throw new InmantaError('ParserException', `Syntax error at token ${tokenValue(t)}`, t.after);
  }
  /** Moves past the keyword or operator `text`, which must be there (without making its token). */
  private expect(text: string): void {
    if (!this.is(text)) this.fail();
    this.skip();
  }
  private ident(): Token {
    const t = this.tok;
    if (t.kind !== 'id') this.fail();
    this.checkHyphen(t);
    return this.next();
  }
  private checkHyphen(t: Token): void {
    if (t.text.includes('-')) throw new InmantaError('HyphenException', `The use of '-' in identifiers is not allowed. please rename ${t.text}.`, t.span);
  }
  /** `checkHyphen` of the token at `i`, whose text is `text`. */
  private checkHyphenAt(i: number, text: string): void {
    if (text.includes('-')) this.checkHyphen(this.toks.token(i));
  }
  file(): Stmt[] {
    const out: Stmt[] = [];
    while (this.kinds[this.pos] !== 8) out.push(this.statement(true));
    return out;
  }

  private block(): Stmt[] {
    const out: Stmt[] = [];
    while (!(this.kind() === 'kw' && BLOCK_END.has(this.tok.text))) {
      if (this.kind() === 'eof') this.fail();
      out.push(this.statement(false));
    }
    return out;
  }

  private statement(top: boolean): Stmt {
    // Most statements of a large model start with a name: read from the token arrays, without a token object.
    const toks = this.toks;
    const kinds = this.kinds;
    const k = kinds[this.pos] as number;
    if (k === 2) return this.keywordStatement(top);
    // The operator after the first token, by number (-1: none; a name is never the end of the file's token).
    const op = (k === 0 || k === 1) && kinds[this.pos + 1] === 7 ? (this.subs[this.pos + 1] as number) : -1;
    if ((k === 1 || (k === 0 && op === OP_SCOPE)) && top && this.looksLikeRelation()) return this.relation();
    const span = toks.spanAt(this.pos);
    if (k === 0 && (op === OP_ASSIGN || op === OP_ADD_TO || op === OP_DOT)) {
      const save = this.pos;
      const path = [this.ident().text];
      while (this.accept('.')) path.push(this.ident().text);
      if (this.is('=') || this.is('+=')) {
        if (this.is('+=') && path.length === 1) throw new InmantaError('ParserException', `Syntax error: Can not perform += on variable ${path[0]}`, span);
        const op = this.next().text as '=' | '+=';
        return { kind: 'assign', target: path, op, value: this.expr(), span };
      }
      this.pos = save;
    }
    // Any expression is a statement; whatever cannot continue it starts the next one, newline or not.
    return { kind: 'expr', expr: this.expr(), span };
  }

  /** A statement that starts with a keyword. */
  private keywordStatement(top: boolean): Stmt {
    const t = this.tok;
    if ((this.peekIs('=') || this.peekIs('+=')) && !['true', 'false', 'null'].includes(t.text)) {
      throw new InmantaError('ParserException', `Syntax error: invalid identifier, ${t.text} is a reserved keyword`, t.span);
    }
    switch (t.text) {
      case 'import':
        if (top) return this.importStmt();
        break;
      case 'entity':
        if (top) return this.entity();
        break;
      case 'implementation':
        if (top) return this.implementation();
        break;
      case 'implement':
        if (top) return this.implement();
        break;
      case 'typedef':
        if (top) return this.typedef();
        break;
      case 'index':
        if (top) return this.index();
        break;
      case 'for':
        return this.forStmt();
      case 'if':
        return this.ifStmt();
      default:
        break;
    }
    // A keyword that starts no statement here is a syntax error where it stands.
    return this.fail();
  }

  private looksLikeRelation(): boolean {
    // As `classNameLength(0)` then `.`, a name and `[`, by the tokens' numbers read from the arrays (a
    // position past the end of the file's token reads that token).
    const kinds = this.kinds;
    const subs = this.subs;
    const last = this.last;
    let j = this.pos + 1;
    for (;;) {
      const at = j < last ? j : last;
      const k = kinds[j + 1 < last ? j + 1 : last];
      if (kinds[at] !== 7 || subs[at] !== OP_SCOPE || (k !== 0 && k !== 1)) break;
      j += 2;
    }
    const dot = j < last ? j : last;
    const name = j + 1 < last ? j + 1 : last;
    const open = j + 2 < last ? j + 2 : last;
    return kinds[dot] === 7 && subs[dot] === OP_DOT && kinds[name] === 0 && kinds[open] === 7 && subs[open] === OP_LBRACKET;
  }

  /** Tokens a (possibly qualified) class name starting `from` tokens ahead spans: `a::b::C` is 5, `C` is 1. */
  private classNameLength(from: number): number {
    let n = from + 1;
    while (this.peekIs('::', n) && (this.peekKind(n + 1) === 'id' || this.peekKind(n + 1) === 'cid')) n += 2;
    return n;
  }

  private qualified(): { name: string; last: Token } {
    const name = this.qualifiedName();
    return { name, last: this.toks.token(this.lastPart) };
  }

  /** Where the last name of the latest `qualifiedName` is. */
  private lastPart = 0;

  /** A (possibly qualified) name starting at a name token; `lastPart` is then the position of its last part. */
  private qualifiedName(): string {
    const toks = this.toks;
    const kinds = this.kinds;
    const first = this.pos;
    this.pos++;
    let name = toks.text(first);
    if (kinds[first] === 0 && name.includes('-')) this.checkHyphenAt(first, name);
    let last = first;
    // `::` is never the end of the file's token: the token after it is there.
    while (kinds[this.pos] === 7 && this.subs[this.pos] === OP_SCOPE) {
      const k = kinds[this.pos + 1];
      if (k !== 0 && k !== 1) break;
      last = this.pos + 1;
      this.pos += 2;
      const part = toks.text(last);
      if (k === 0 && part.includes('-')) this.checkHyphenAt(last, part);
      name = toks.qualified(name, part);
    }
    this.lastPart = last;
    return name;
  }

  private className(): string {
    if (this.kind() !== 'id' && this.kind() !== 'cid') this.fail();
    const { name, last } = this.qualified();
    if (last.kind !== 'cid') this.fail(last);
    return name;
  }

  private importStmt(): Stmt {
    const span = this.next().span;
    if (this.kind() !== 'id') this.fail();
    const { name } = this.qualified();
    if (this.accept('as')) return { kind: 'import', name, alias: this.ident().text, span };
    return { kind: 'import', name, span };
  }

  private typeRef(entityAttribute = false): TypeRef {
    const t = this.tok;
    let name: string;
    if (t.kind === 'kw' && t.text === 'dict') {
      this.skip();
      name = 'dict';
    } else if (t.kind === 'id' || t.kind === 'cid') {
      const q = this.qualified();
      // An attribute's type is a primitive or a typedef, written lower-case: a class name there is a syntax error.
      if (entityAttribute && q.last.kind === 'cid') this.fail(q.last);
      name = q.name;
    } else this.fail();
    let list = false;
    if (this.is('[') && this.peekIs(']')) {
      this.skip();
      this.skip();
      list = true;
    }
    const nullable = this.accept('?');
    return { name, list, nullable, span: t.span };
  }

  private entity(): Stmt {
    const span = this.next().span;
    const nameTok = this.tok;
    if (nameTok.kind !== 'cid' && nameTok.kind !== 'id') this.fail();
    this.checkHyphen(nameTok);
    this.skip();
    const parents: string[] = [];
    if (this.accept('extends')) {
      do {
        const first = this.tok;
        if (first.kind !== 'id' && first.kind !== 'cid') this.fail();
        const { name, last } = this.qualified();
        if (last.kind !== 'cid' && (this.is(',') || this.is(':'))) throw new InmantaError('ParserException', CAPITAL, first.span);
        if (last.kind !== 'cid') this.fail();
        parents.push(name);
      } while (this.accept(','));
    }
    this.expect(':');
    if (this.kind() === 'str') this.next(); // docstring
    const attrs: Attribute[] = [];
    while (!this.is('end')) {
      if (this.kind() === 'eof') this.fail();
      const type = this.typeRef(true);
      const name = this.tok;
      if (name.kind !== 'id') this.fail();
      this.checkHyphen(name);
      this.skip();
      if (this.accept('=')) attrs.push({ type, name: name.text, default: this.expr(), span: name.span });
      else attrs.push({ type, name: name.text, span: name.span });
    }
    this.expect('end');
    // The real grammar takes a lower-case name and rejects it once the whole definition is read.
    if (nameTok.kind !== 'cid') throw new InmantaError('ParserException', CAPITAL, nameTok.span);
    return { kind: 'entity', name: nameTok.text, parents, attrs, span };
  }

  private multiplicity(): { lower: number; upper: number | undefined } {
    this.expect('[');
    const num = (): number => {
      const t = this.tok;
      if (t.kind !== 'int') this.fail();
      this.skip();
      return Number(t.text);
    };
    let lower = 0;
    let upper: number | undefined;
    if (this.accept(':')) upper = num();
    else {
      lower = num();
      if (this.accept(':')) upper = this.kind() === 'int' ? num() : undefined;
      else upper = lower;
    }
    this.expect(']');
    return { lower, upper };
  }

  private relationEnd(withName: boolean): RelationEnd {
    const span = this.tok.span;
    const entity = this.className();
    if (!withName) return { entity, span };
    this.expect('.');
    const nameTok = this.ident();
    const m = this.multiplicity();
    return { entity, name: nameTok.text, nameSpan: nameTok.span, lower: m.lower, upper: m.upper, span };
  }

  private relation(): Stmt {
    const span = this.tok.span;
    const left = this.relationEnd(true);
    const annotations: Expr[] = [];
    if (!this.accept('--')) {
      annotations.push(this.expr());
      while (this.accept(',')) annotations.push(this.expr());
    }
    // The right end is named when a `.name [..]` follows the class.
    const n = this.classNameLength(0);
    const named = this.peekIs('.', n) && this.peekIs('[', n + 2);
    const right = this.relationEnd(named);
    return { kind: 'relation', left, right, annotations, span };
  }

  private implementation(): Stmt {
    const span = this.next().span;
    const name = this.ident().text;
    this.expect('for');
    const entity = this.className();
    this.expect(':');
    if (this.kind() === 'str') this.next();
    const body = this.block();
    this.expect('end');
    return { kind: 'implementation', name, entity, body, span };
  }

  private implement(): Stmt {
    const span = this.next().span;
    const entity = this.className();
    this.expect('using');
    const impls: string[] = [];
    let parents = false;
    do {
      if (this.accept('parents')) parents = true;
      else if (this.kind() === 'id') impls.push(this.qualified().name);
      else this.fail();
    } while (this.accept(','));
    if (this.accept('when')) return { kind: 'implement', entity, impls, parents, when: this.expr(), span };
    return { kind: 'implement', entity, impls, parents, span };
  }

  private typedef(): Stmt {
    const span = this.next().span;
    const name = this.ident().text;
    this.expect('as');
    const base = this.typeRef();
    this.expect('matching');
    if (this.kind() === 'regex') return { kind: 'typedef', name, base, regex: this.next().text, span };
    return { kind: 'typedef', name, base, cond: this.expr(), span };
  }

  private index(): Stmt {
    const span = this.next().span;
    const entity = this.className();
    this.expect('(');
    const attrs = [this.ident().text];
    while (this.accept(',')) attrs.push(this.ident().text);
    this.expect(')');
    return { kind: 'index', entity, attrs, span };
  }

  private forStmt(): Stmt {
    const span = this.next().span;
    const name = this.ident().text;
    this.expect('in');
    const iter = this.expr();
    this.expect(':');
    const body = this.block();
    this.expect('end');
    return { kind: 'for', name, iter, body, span };
  }

  private ifStmt(): Stmt {
    const span = this.next().span;
    const branches: { test: Expr; body: Stmt[] }[] = [];
    const test = this.expr();
    this.expect(':');
    branches.push({ test, body: this.block() });
    let orelse: Stmt[] = [];
    while (this.accept('elif')) {
      const t = this.expr();
      this.expect(':');
      branches.push({ test: t, body: this.block() });
    }
    if (this.accept('else')) {
      this.expect(':');
      orelse = this.block();
    }
    this.expect('end');
    return { kind: 'if', branches, orelse, span };
  }

  // ---- expressions ----

  expr(): Expr {
    // A lone literal or name before `,`, `)` or `]` (most arguments) is its own expression: no operator can follow.
    const pos = this.pos;
    const k = this.kinds[pos] as number;
    // A string, an int, a float or a name (never the end of the file's token), followed by an operator token.
    if ((k === 5 || k === 3 || k === 4 || k === 0) && this.kinds[pos + 1] === 7) {
      const after = this.subs[pos + 1];
      if (after === OP_COMMA || after === OP_RPAREN || after === OP_RBRACKET) return this.primary();
    }
    let first: Expr | undefined;
    if (k === 0 || k === 1 || k === 3 || k === 4 || k === 5) {
      // An operand that no operator follows (a name, a constructor, a call, a literal) is what the operator
      // levels below would return: read it directly, and only when an operator follows go through them
      // (handing them the operand, the leftmost one they would have read).
      first = this.postfix();
      if (!this.continuesExpression()) return first;
    }
    const test = this.orExpr(first);
    if (!this.is('?')) return test;
    this.skip();
    const then = this.expr();
    this.expect(':');
    return { kind: 'cond', test, then, else: this.expr(), span: test.span };
  }

  /** Whether the token is an operator that one of the levels of `expr` takes after an operand. */
  private continuesExpression(): boolean {
    const k = this.kinds[this.pos];
    if (k === 7) return CONTINUES_OP[this.subs[this.pos] as number] === 1;
    return k === 2 && CONTINUES.has(this.toks.text(this.pos));
  }

  /** `first`: the leftmost operand, already read (see `expr`). */
  private orExpr(first?: Expr): Expr {
    let left = this.andExpr(first);
    while (this.is('or')) {
      this.skip();
      left = { kind: 'bin', op: 'or', left, right: this.andExpr(), span: left.span };
    }
    return left;
  }

  private andExpr(first?: Expr): Expr {
    let left = this.cmpExpr(first);
    while (this.is('and')) {
      this.skip();
      left = { kind: 'bin', op: 'and', left, right: this.cmpExpr(), span: left.span };
    }
    return left;
  }

  /** Comparisons associate to the left as in the real grammar: `1 < 2 < 3` is `(1 < 2) < 3`. */
  private cmpExpr(first?: Expr): Expr {
    let left = this.addExpr(first);
    while (this.kind() === 'op' && CMP.has(this.tok.text)) {
      const op = this.next().text;
      left = { kind: 'bin', op, left, right: this.addExpr(), span: left.span };
    }
    return left;
  }

  private addExpr(first?: Expr): Expr {
    let left = this.mulExpr(first);
    while (this.is('+') || this.is('-')) {
      const op = this.next().text;
      left = { kind: 'bin', op, left, right: this.mulExpr(), span: left.span };
    }
    return left;
  }

  private mulExpr(first?: Expr): Expr {
    let left = this.powExpr(first);
    while (this.is('*') || this.is('/') || this.is('%')) {
      const op = this.next().text;
      left = { kind: 'bin', op, left, right: this.powExpr(), span: left.span };
    }
    return left;
  }

  private powExpr(first?: Expr): Expr {
    const left = first ? this.inExpr(first) : this.unary();
    if (!this.is('**')) return left;
    this.skip();
    return { kind: 'bin', op: '**', left, right: this.powExpr(), span: left.span };
  }

  private unary(): Expr {
    const t = this.tok;
    if (this.is('not')) {
      this.skip();
      return { kind: 'not', operand: this.unary(), span: t.span };
    }
    if (this.is('-')) {
      this.skip();
      return { kind: 'neg', operand: this.unary(), span: t.span };
    }
    return this.inExpr();
  }

  private inExpr(first?: Expr): Expr {
    const left = first ?? this.postfix();
    if (this.is('in')) {
      this.skip();
      return { kind: 'bin', op: 'in', left, right: this.postfix(), span: left.span };
    }
    if (this.is('not') && this.peekIs('in') && this.peekKind() === 'kw') {
      this.skip();
      this.skip();
      return { kind: 'bin', op: 'not in', left, right: this.postfix(), span: left.span };
    }
    if (this.is('is')) {
      this.skip();
      this.expect('defined');
      if (left.kind === 'ref' && !left.name.includes('::')) return { kind: 'defined', obj: undefined, name: left.name, span: left.span };
      if (left.kind === 'attr') return { kind: 'defined', obj: left.obj, name: left.name, span: left.span };
      if (left.kind === 'mapget') {
        // `m[k] is defined`: the key is there and its value is neither null nor an empty list.
        const span = left.span;
        const has: Expr = { kind: 'bin', op: 'in', left: left.key, right: left.obj, span };
        const notNull: Expr = { kind: 'bin', op: '!=', left, right: { kind: 'lit', value: null, span }, span };
        const notEmpty: Expr = { kind: 'bin', op: '!=', left, right: { kind: 'list', items: [], span }, span };
        return { kind: 'bin', op: 'and', left: { kind: 'bin', op: 'and', left: has, right: notNull, span }, right: notEmpty, span };
      }
      this.fail();
    }
    return left;
  }

  /**
   * Attribute access and lookups, as far as the real grammar lets them chain: `.name` only on a variable
   * reference (`a`, `a.b`); `[key]` on a reference or another map lookup; `[k=v]` (a relation selector) on
   * `a.b`. After anything else (a call, a constructor, a parenthesised expression, an index lookup) the
   * expression ends here.
   */
  private postfix(): Expr {
    const first = this.toks.kindCode(this.pos);
    let e = this.primary();
    let shape: 'var' | 'lookup' | 'other' = (first === 0 || first === 1) && e.kind === 'ref' ? 'var' : 'other';
    for (;;) {
      if (shape === 'var' && this.is('.')) {
        this.skip();
        const name = this.ident();
        e = { kind: 'attr', obj: e, name: name.text, span: e.span };
      } else if (shape !== 'other' && this.is('[')) {
        this.skip();
        if (shape === 'var' && e.kind === 'attr' && this.kind() === 'id' && this.peekIs('=')) {
          const args = this.kwargsUntil(']', true).kwargs;
          e = { kind: 'selector', obj: e.obj, rel: e.name, args, span: e.span };
          shape = 'other';
        } else {
          const key = this.expr();
          this.expect(']');
          e = { kind: 'mapget', obj: e, key, span: e.span };
          shape = 'lookup';
        }
      } else return e;
    }
  }

  /**
   * Arguments up to `close`. With `keywordsOnly` (constructors, index lookups: the grammar's param_list) only
   * `name=value` and `**dict` are allowed, and anything else is a syntax error where it stands.
   */
  private kwargsUntil(close: ')' | ']', keywordsOnly = false): { args: Expr[]; kwargs: KwArg[]; starstar: Expr[] } {
    // Most calls have no positional or ** arguments: the syntax tree shares one empty list for them.
    let args = NONE;
    const kwargs: KwArg[] = [];
    let starstar = NONE;
    const toks = this.toks;
    const kinds = this.kinds;
    const subs = this.subs;
    const closing = close === ')' ? OP_RPAREN : OP_RBRACKET;
    while (kinds[this.pos] !== 7 || subs[this.pos] !== closing) {
      const i = this.pos;
      const k = kinds[i];
      // A name is never the end of the file's token: the token after it is there.
      const named = k === 0 && kinds[i + 1] === 7 && subs[i + 1] === OP_ASSIGN;
      const star = !named && this.is('**');
      if (keywordsOnly && !star && !named) this.fail(k === 0 ? this.peek() : this.tok);
      if (star) {
        this.skip();
        if (starstar === NONE) starstar = [];
        starstar.push(this.expr());
      } else if (named) {
        const name = toks.text(i);
        if (name.includes('-')) this.checkHyphenAt(i, name);
        this.pos += 2;
        kwargs.push({ name, value: this.expr() });
      } else {
        if (args === NONE) args = [];
        args.push(this.expr());
      }
      if (kinds[this.pos] !== 7 || subs[this.pos] !== OP_COMMA) break;
      this.pos++;
    }
    this.expect(close);
    // The list kept is as long as its arguments: growing it by pushes left room for a dozen more, which the
    // collector would copy with it for as long as the syntax tree is kept.
    return { args, kwargs: kwargs.length > 0 ? kwargs.slice() : kwargs, starstar };
  }

  private primary(): Expr {
    const toks = this.toks;
    const i = this.pos;
    // Literals are read from the tokens without a token object.
    switch (this.kinds[i]) {
      case 3:
        this.pos++;
        return new LitAt(Number(toks.text(i)), this.fileName, this.lineNos[i] as number, this.cols[i] as number);
      case 4:
        this.pos++;
        return new LitAt({ float: Number(toks.text(i)) }, this.fileName, this.lineNos[i] as number, this.cols[i] as number);
      case 5: {
        this.pos++;
        const flavour = this.subs[i];
        const text = toks.stringAt(i);
        if (flavour === F_FLAVOUR) return formatted(text, toks.spanAt(i));
        if (flavour === RAW_FLAVOUR || !text.includes('{{')) return new LitAt(text, this.fileName, this.lineNos[i] as number, this.cols[i] as number);
        return interpolated(text, toks.spanAt(i));
      }
      case 0:
      case 1:
        return this.namePrimary(toks.spanAt(i));
      default:
        break;
    }
    const t = this.tok;
    switch (t.kind) {
      case 'kw':
        return this.keywordPrimary(t);
      case 'op':
        if (t.text === '(') {
          this.skip();
          const e = this.expr();
          this.expect(')');
          return e;
        }
        if (t.text === '[') return this.listOrComprehension();
        if (t.text === '{') return this.dictLiteral();
        break;
      default:
        break;
    }
    return this.fail();
  }

  private keywordPrimary(t: Token): Expr {
    this.skip();
    if (t.text === 'true' || t.text === 'false') return { kind: 'lit', value: t.text === 'true', span: t.span };
    if (t.text === 'null') return { kind: 'lit', value: null, span: t.span };
    if (t.text === 'undef') return { kind: 'undef', span: t.span };
    if (t.text === 'dict' && this.is('(')) return this.call('dict', t.span);
    return this.fail(t);
  }

  private namePrimary(span: Span): Expr {
    const name = this.qualifiedName();
    const next = this.kinds[this.pos] === 7 ? this.subs[this.pos] : -1;
    if (this.kinds[this.lastPart] === 1) {
      if (next === OP_LPAREN) {
        this.pos++;
        const { kwargs, starstar } = this.kwargsUntil(')', true);
        return { kind: 'new', type: name, kwargs, starstar, span };
      }
      if (next === OP_LBRACKET) {
        this.pos++;
        return { kind: 'query', type: name, args: this.kwargsUntil(']', true).kwargs, span };
      }
      // A type used as a value (e.g. in a relation annotation) is kept as a reference.
      return { kind: 'ref', name, span };
    }
    if (next === OP_LPAREN) return this.call(name, span);
    return { kind: 'ref', name, span };
  }

  private call(name: string, span: Span): Expr {
    this.expect('(');
    const { args, kwargs, starstar } = this.kwargsUntil(')');
    return { kind: 'call', name, args, kwargs, starstar, span };
  }

  private listOrComprehension(): Expr {
    const span = this.next().span;
    if (this.accept(']')) return { kind: 'list', items: [], span };
    const first = this.expr();
    if (this.is('for')) {
      const fors: { name: string; iter: Expr }[] = [];
      const guards: Expr[] = [];
      while (this.accept('for')) {
        const name = this.ident().text;
        this.expect('in');
        fors.push({ name, iter: this.orExpr() });
      }
      while (this.accept('if')) guards.push(this.orExpr());
      this.expect(']');
      return { kind: 'comp', value: first, fors, guards, span };
    }
    const items = [first];
    while (this.accept(',')) {
      if (this.is(']')) break;
      items.push(this.expr());
    }
    this.expect(']');
    return { kind: 'list', items, span };
  }

  private dictLiteral(): Expr {
    const span = this.next().span;
    const entries: [string, Expr][] = [];
    while (!this.is('}')) {
      const k = this.tok;
      if (k.kind !== 'str') this.fail();
      this.skip();
      this.expect(':');
      entries.push([k.text, this.expr()]);
      if (!this.accept(',')) break;
    }
    this.expect('}');
    return { kind: 'dict', entries, span };
  }
}
