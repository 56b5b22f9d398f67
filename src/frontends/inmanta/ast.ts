/** The Inmanta syntax tree: readonly objects tagged by `kind`, each with the span where it starts (plain objects, but for `LitAt`). */
import type { Span } from '../../core/diag.js';

export interface TypeRef {
  readonly name: string;
  readonly list: boolean;
  readonly nullable: boolean;
  readonly span: Span;
}

/** A piece of an interpolated or formatted string: literal text, or a variable/attribute path with a format spec. */
export type StrPart = string | { readonly path: readonly string[]; readonly spec: readonly StrPart[]; readonly conv?: string };

/** A literal's value. */
export type LitValue = null | boolean | number | string | { readonly float: number };

/**
 * A literal as the parser reads it from the source: its position is kept as numbers and spelled out as a
 * span when asked for (nothing asks for most: a large model's literal arguments), one object per literal
 * instead of two.
 */
export class LitAt {
  declare readonly kind: 'lit';
  readonly value: LitValue;
  private readonly file: string;
  private readonly line: number;
  private readonly col: number;
  constructor(value: LitValue, file: string, line: number, col: number) {
    this.kind = 'lit';
    this.value = value;
    this.file = file;
    this.line = line;
    this.col = col;
  }
  get span(): Span {
    return { file: this.file, line: this.line, col: this.col };
  }
}

export type Expr =
  | { readonly kind: 'lit'; readonly value: LitValue; readonly span: Span }
  | { readonly kind: 'undef'; readonly span: Span }
  | { readonly kind: 'fmt'; readonly parts: readonly StrPart[]; readonly span: Span }
  | { readonly kind: 'ref'; readonly name: string; readonly span: Span }
  | { readonly kind: 'attr'; readonly obj: Expr; readonly name: string; readonly span: Span }
  | { readonly kind: 'mapget'; readonly obj: Expr; readonly key: Expr; readonly span: Span }
  | { readonly kind: 'query'; readonly type: string; readonly args: readonly KwArg[]; readonly span: Span }
  | { readonly kind: 'selector'; readonly obj: Expr; readonly rel: string; readonly args: readonly KwArg[]; readonly span: Span }
  | { readonly kind: 'call'; readonly name: string; readonly args: readonly Expr[]; readonly kwargs: readonly KwArg[]; readonly starstar: readonly Expr[]; readonly span: Span }
  | { readonly kind: 'new'; readonly type: string; readonly kwargs: readonly KwArg[]; readonly starstar: readonly Expr[]; readonly span: Span }
  | { readonly kind: 'list'; readonly items: readonly Expr[]; readonly span: Span }
  | { readonly kind: 'dict'; readonly entries: readonly (readonly [string, Expr])[]; readonly span: Span }
  | { readonly kind: 'bin'; readonly op: string; readonly left: Expr; readonly right: Expr; readonly span: Span }
  | { readonly kind: 'not'; readonly operand: Expr; readonly span: Span }
  | { readonly kind: 'neg'; readonly operand: Expr; readonly span: Span }
  | { readonly kind: 'defined'; readonly obj: Expr | undefined; readonly name: string; readonly span: Span }
  | { readonly kind: 'cond'; readonly test: Expr; readonly then: Expr; readonly else: Expr; readonly span: Span }
  | { readonly kind: 'comp'; readonly value: Expr; readonly fors: readonly { readonly name: string; readonly iter: Expr }[]; readonly guards: readonly Expr[]; readonly span: Span };

/** `name=value` in a call; where it is written is its value's span (a large model holds many of them). */
export interface KwArg {
  readonly name: string;
  readonly value: Expr;
}

export interface Attribute {
  readonly type: TypeRef;
  readonly name: string;
  readonly default?: Expr;
  readonly span: Span;
}

export interface RelationEnd {
  readonly entity: string;
  readonly name?: string;
  /** Where the end's name is written: the real compiler locates the relation attribute there. */
  readonly nameSpan?: Span;
  readonly lower?: number;
  /** undefined = unbounded. */
  readonly upper?: number | undefined;
  readonly span: Span;
}

export type Stmt =
  | { readonly kind: 'assign'; readonly target: readonly string[]; readonly op: '=' | '+='; readonly value: Expr; readonly span: Span }
  | { readonly kind: 'expr'; readonly expr: Expr; readonly span: Span }
  | { readonly kind: 'for'; readonly name: string; readonly iter: Expr; readonly body: readonly Stmt[]; readonly span: Span }
  | { readonly kind: 'if'; readonly branches: readonly { readonly test: Expr; readonly body: readonly Stmt[] }[]; readonly orelse: readonly Stmt[]; readonly span: Span }
  | { readonly kind: 'entity'; readonly name: string; readonly parents: readonly string[]; readonly attrs: readonly Attribute[]; readonly span: Span }
  | { readonly kind: 'relation'; readonly left: RelationEnd; readonly right: RelationEnd; readonly annotations: readonly Expr[]; readonly span: Span }
  | { readonly kind: 'implementation'; readonly name: string; readonly entity: string; readonly body: readonly Stmt[]; readonly span: Span }
  | { readonly kind: 'implement'; readonly entity: string; readonly impls: readonly string[]; readonly parents: boolean; readonly when?: Expr; readonly span: Span }
  | { readonly kind: 'typedef'; readonly name: string; readonly base: TypeRef; readonly regex?: string; readonly cond?: Expr; readonly span: Span }
  | { readonly kind: 'index'; readonly entity: string; readonly attrs: readonly string[]; readonly span: Span }
  | { readonly kind: 'import'; readonly name: string; readonly alias?: string; readonly span: Span };

export type DefinitionKind = 'entity' | 'relation' | 'implementation' | 'implement' | 'typedef' | 'index' | 'import';
