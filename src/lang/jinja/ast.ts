/** The Jinja syntax tree: plain readonly objects tagged by `kind`, each with its source offset. */

export type Expr =
  | { readonly kind: 'const'; readonly at: number; readonly value: unknown }
  | { readonly kind: 'name'; readonly at: number; readonly name: string }
  | { readonly kind: 'list'; readonly at: number; readonly items: readonly Expr[] }
  | { readonly kind: 'tuple'; readonly at: number; readonly items: readonly Expr[] }
  | { readonly kind: 'dict'; readonly at: number; readonly pairs: readonly (readonly [Expr, Expr])[] }
  | { readonly kind: 'getattr'; readonly at: number; readonly obj: Expr; readonly attr: string }
  | { readonly kind: 'getitem'; readonly at: number; readonly obj: Expr; readonly index: Expr }
  | { readonly kind: 'slice'; readonly at: number; readonly start?: Expr; readonly stop?: Expr; readonly step?: Expr }
  | { readonly kind: 'call'; readonly at: number; readonly fn: Expr; readonly args: CallArgs }
  | { readonly kind: 'filter'; readonly at: number; readonly value: Expr | null; readonly name: string; readonly args: CallArgs }
  | { readonly kind: 'test'; readonly at: number; readonly value: Expr; readonly name: string; readonly args: CallArgs; readonly negated: boolean }
  | { readonly kind: 'binop'; readonly at: number; readonly op: string; readonly left: Expr; readonly right: Expr }
  | { readonly kind: 'unary'; readonly at: number; readonly op: 'not' | '-' | '+'; readonly operand: Expr }
  | { readonly kind: 'and' | 'or'; readonly at: number; readonly left: Expr; readonly right: Expr }
  | { readonly kind: 'compare'; readonly at: number; readonly first: Expr; readonly ops: readonly (readonly [string, Expr])[] }
  | { readonly kind: 'concat'; readonly at: number; readonly items: readonly Expr[] }
  | { readonly kind: 'condexpr'; readonly at: number; readonly test: Expr; readonly body: Expr; readonly otherwise: Expr | null };

export interface CallArgs {
  readonly args: readonly Expr[];
  readonly kwargs: readonly (readonly [string, Expr])[];
  readonly star?: Expr;
  readonly dstar?: Expr;
}

/** Assignment targets: a name, `ns.attr`, or a tuple of names. */
export type Target =
  | { readonly kind: 'name'; readonly at: number; readonly name: string }
  | { readonly kind: 'nsattr'; readonly at: number; readonly name: string; readonly attr: string }
  | { readonly kind: 'tuple'; readonly at: number; readonly items: readonly Target[] };

export interface MacroParam {
  readonly name: string;
  readonly default?: Expr;
}

export type Stmt =
  | { readonly kind: 'output'; readonly at: number; readonly text: string }
  | { readonly kind: 'print'; readonly at: number; readonly expr: Expr }
  | { readonly kind: 'if'; readonly at: number; readonly test: Expr; readonly body: readonly Stmt[]; readonly otherwise: readonly Stmt[] }
  | {
      readonly kind: 'for';
      readonly at: number;
      readonly target: Target;
      readonly iter: Expr;
      readonly filter: Expr | null;
      readonly body: readonly Stmt[];
      readonly otherwise: readonly Stmt[];
    }
  | { readonly kind: 'set'; readonly at: number; readonly target: Target; readonly value: Expr }
  | { readonly kind: 'setblock'; readonly at: number; readonly target: Target; readonly filters: readonly Expr[]; readonly body: readonly Stmt[] }
  | { readonly kind: 'macro'; readonly at: number; readonly name: string; readonly params: readonly MacroParam[]; readonly body: readonly Stmt[] }
  | {
      readonly kind: 'callblock';
      readonly at: number;
      readonly call: Expr;
      readonly params: readonly MacroParam[];
      readonly body: readonly Stmt[];
    }
  | { readonly kind: 'import'; readonly at: number; readonly template: Expr; readonly alias: string; readonly withContext: boolean }
  | {
      readonly kind: 'fromimport';
      readonly at: number;
      readonly template: Expr;
      readonly names: readonly (readonly [string, string])[];
      readonly withContext: boolean;
    }
  | { readonly kind: 'include'; readonly at: number; readonly template: Expr; readonly ignoreMissing: boolean; readonly withContext: boolean }
  | { readonly kind: 'with'; readonly at: number; readonly assigns: readonly (readonly [Target, Expr])[]; readonly body: readonly Stmt[] }
  | { readonly kind: 'do'; readonly at: number; readonly expr: Expr }
  | { readonly kind: 'filterblock'; readonly at: number; readonly filters: readonly Expr[]; readonly body: readonly Stmt[] }
  | { readonly kind: 'block'; readonly at: number; readonly name: string; readonly body: readonly Stmt[] }
  | { readonly kind: 'extends'; readonly at: number; readonly template: Expr };

export interface TemplateAst {
  readonly file: string;
  readonly source: string;
  readonly body: readonly Stmt[];
}
