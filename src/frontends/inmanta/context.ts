/** What an expression is evaluated in: the compilation, the scheduling unit, the scope and the statement's staged steps. */
import type { Compilation } from './compilation.js';
import type { Instance } from './instance.js';
import type { Scope } from './namespace.js';
import { Memo, type Unit } from './scheduler.js';
import type { Var } from './vars.js';

export interface Ctx {
  readonly c: Compilation;
  readonly unit: Unit;
  readonly scope: Scope;
  /** Distinguishes memoised results of one expression evaluated per element (comprehensions). */
  readonly key: string;
  /** The instance whose implementation is running, if any. */
  readonly creator: Instance | undefined;
  /** Results of the steps a statement was split into when it was scheduled (plugin calls, index queries, ...). */
  readonly staged?: Staged;
}

/**
 * The separate steps of one statement: each plugin call, index query, attribute read and condition runs on
 * its own. As a memo it holds the constructors and plugin calls already made by any step of the statement.
 */
export class Staged extends Memo {
  private vars: Map<object, Var> | undefined;
  private failures: Map<object, unknown> | undefined;
  /** The result variable of the step prepared for a syntax node. */
  varOf(node: object): Var | undefined {
    return this.vars?.get(node);
  }
  setVar(node: object, v: Var): void {
    (this.vars ??= new Map()).set(node, v);
  }
  /** An error a step ran into; the statement reports it when it reads that step's result. */
  failed(node: object): unknown {
    return this.failures?.get(node);
  }
  fail(node: object, err: unknown): void {
    (this.failures ??= new Map()).set(node, err);
  }
}

export function newStaged(): Staged {
  return new Staged();
}
