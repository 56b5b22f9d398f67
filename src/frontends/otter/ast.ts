/** The OtterScript syntax tree: plain readonly objects with a `kind` tag and a source span. */
import type { Span } from '../../core/diag.js';

export type Sigil = '$' | '@' | '%';

/** `[expr]` or `.name` after a vector or map reference. */
export type Accessor = { readonly kind: 'index'; readonly expr: Expr } | { readonly kind: 'prop'; readonly name: string };

/** `$x`, `@list[0]`, `%map.key`, `$Fn(a, b)`; `args` is present only when the reference is written as a call. */
export interface RefExpr {
  readonly kind: 'ref';
  readonly sigil: Sigil;
  readonly name: string;
  readonly args?: readonly Expr[];
  readonly accessors: readonly Accessor[];
  readonly span: Span;
}

/** A part of a text: literal characters, a reference, or `$( expr )`. */
export type TextPart = string | RefExpr | { readonly kind: 'sub'; readonly expr: Expr };

/** An implicit, quoted or swim string; expanded when the statement runs. */
export interface TextExpr {
  readonly kind: 'text';
  readonly parts: readonly TextPart[];
  readonly span: Span;
  /** The source text between the delimiters, unexpanded (for properties that disable variable expansion). */
  readonly raw?: string;
}

export interface VectorExpr {
  readonly kind: 'vector';
  readonly items: readonly Expr[];
  readonly span: Span;
}

export interface MapExpr {
  readonly kind: 'map';
  readonly entries: readonly { readonly key: string; readonly value: Expr }[];
  readonly span: Span;
}

export type Expr = TextExpr | VectorExpr | MapExpr | RefExpr;

export type Predicate =
  | { readonly kind: 'and' | 'or'; readonly items: readonly Predicate[] }
  | { readonly kind: 'not'; readonly pred: Predicate }
  | { readonly kind: 'eq' | 'ne'; readonly left: Expr; readonly right: Expr }
  | { readonly kind: 'true'; readonly expr: Expr };

/** A variable that a statement writes: `$x`, `@list`, `%map[key]`. */
export interface VarTarget {
  readonly sigil: Sigil;
  readonly name: string;
  readonly accessors: readonly Accessor[];
  readonly span: Span;
}

export interface NamedArg {
  readonly name: string;
  readonly value: Expr;
  readonly span: Span;
}

export interface OutputArg {
  readonly name: string;
  readonly target: VarTarget;
  readonly span: Span;
}

interface StatementBase {
  readonly span: Span;
  /** The comments right before the statement; its first line names the block's log scope. */
  readonly description?: string;
}

export interface Block {
  readonly kind: 'block';
  /** Unique within a run (file offset): the "same block" of collect-then-execute is this id. */
  readonly id: string;
  readonly modules: readonly ModuleDecl[];
  readonly body: readonly Statement[];
  readonly span: Span;
  readonly description?: string;
}

export interface ActionStatement extends StatementBase {
  readonly kind: 'action';
  readonly id: string;
  readonly namespace?: string;
  readonly name: string;
  readonly nameSpan: Span;
  readonly positional?: Expr;
  readonly args: readonly NamedArg[];
  readonly outputs: readonly OutputArg[];
}

export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

export interface LogStatement extends StatementBase {
  readonly kind: 'log';
  readonly level: LogLevel;
  readonly message: Expr;
}

export interface SetStatement extends StatementBase {
  readonly kind: 'set';
  readonly modifier?: 'local' | 'global';
  readonly target: VarTarget;
  readonly value: Expr;
}

export interface GlobalStatement extends StatementBase {
  readonly kind: 'global';
  readonly target: VarTarget;
  readonly value?: Expr;
}

export interface IfStatement extends StatementBase {
  readonly kind: 'if';
  readonly predicate: Predicate;
  readonly then: Block;
  readonly else?: Block;
}

export type ContextType = 'server' | 'role' | 'directory';

export interface ForeachStatement extends StatementBase {
  readonly kind: 'foreach';
  /** The loop variable; absent for a context iteration (`foreach server in @list`). */
  readonly variable?: VarTarget;
  readonly contextType?: ContextType;
  readonly source: Expr;
  readonly body: Block;
}

export interface ContextStatement extends StatementBase {
  readonly kind: 'context';
  readonly contextType: ContextType;
  readonly value: Expr;
  readonly body: Block;
}

export interface Directives {
  readonly retry?: number;
  readonly timeout?: number;
  readonly async?: boolean;
  readonly asyncToken?: string;
  readonly lock?: string;
  readonly executionPolicy?: 'always' | 'onChange';
  readonly isolation?: boolean;
  readonly credentials?: string;
}

export interface WithStatement extends StatementBase {
  readonly kind: 'with';
  readonly directives: Directives;
  readonly body: Block;
}

export interface TryStatement extends StatementBase {
  readonly kind: 'try';
  readonly body: Block;
  readonly handler: Block;
}

export interface CallStatement extends StatementBase {
  readonly kind: 'call';
  readonly raft?: string;
  readonly name: string;
  readonly args: readonly NamedArg[];
  readonly outputs: readonly OutputArg[];
}

export interface SimpleStatement extends StatementBase {
  readonly kind: 'error' | 'fail' | 'warn' | 'force-warn' | 'force-normal' | 'break' | 'continue' | 'return';
}

export interface ThrowStatement extends StatementBase {
  readonly kind: 'throw';
  readonly message?: Expr;
}

export interface AwaitStatement extends StatementBase {
  readonly kind: 'await';
  readonly token?: string;
}

export interface BlockStatement extends StatementBase {
  readonly kind: 'anonymous';
  readonly body: Block;
}

export type Statement =
  | ActionStatement
  | LogStatement
  | SetStatement
  | GlobalStatement
  | IfStatement
  | ForeachStatement
  | ContextStatement
  | WithStatement
  | TryStatement
  | CallStatement
  | SimpleStatement
  | ThrowStatement
  | AwaitStatement
  | BlockStatement;

export interface ModuleParam {
  readonly sigil: Sigil;
  readonly name: string;
  readonly default?: Expr;
  readonly out: boolean;
  readonly span: Span;
}

export interface ModuleDecl {
  readonly kind: 'module';
  readonly name: string;
  readonly params: readonly ModuleParam[];
  readonly body: Block;
  readonly span: Span;
}

export interface Script {
  readonly file: string;
  readonly globals: readonly GlobalStatement[];
  readonly body: Block;
}
