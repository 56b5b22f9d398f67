/** What an expression is evaluated in: the compilation, the scheduling unit, the scope and the statement's staged steps. */
import type { Compilation } from './compilation.js';
import type { Instance } from './instance.js';
import type { Scope } from './namespace.js';
import type { Unit } from './scheduler.js';
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

/** The separate steps of one statement: each plugin call, index query, attribute read and condition runs on its own. */
export interface Staged {
  readonly vars: Map<object, Var>;
  /** An error a step ran into; the statement reports it when it reads that step's result. */
  readonly failed: Map<object, unknown>;
  /** Constructors and plugin calls already made by any step of the statement. */
  readonly memo: Map<object, Map<string, unknown>>;
}

export function newStaged(): Staged {
  return { vars: new Map(), failed: new Map(), memo: new Map() };
}
