/** Converge's own model between the HCL and the core graph: modules (scopes) and their nodes. */
import type { Span } from '../../core/diag.js';
import type { HclValue } from '../../lang/hcl1/index.js';

/** A module instance: the root file or one `module` block, with its params and its nodes by `kind.name`. */
export interface Scope {
  /** `root` or `root/module.NAME/...`. */
  readonly id: string;
  readonly file: string;
  readonly params: Map<string, unknown>;
  readonly nodes: Map<string, RawNode>;
  readonly parent?: Scope;
  readonly span?: Span;
  /** A switch or case body: its nodes share the enclosing module's params and see its nodes. */
  readonly branch?: boolean;
}

/** One resource block (`task "x" {...}`) before rendering. */
export interface RawNode {
  readonly id: string;
  /** Converge's resource type, e.g. `file.content`. */
  readonly ctype: string;
  readonly name: string;
  readonly scope: Scope;
  readonly fields: ReadonlyMap<string, HclValue>;
  readonly span: Span;
  /** Set when the node sits in a switch branch that is not taken: the raw predicate of its case. */
  readonly skipped?: string;
  /** For a `macro.case` node: its raw predicate (`true` for the default branch). */
  readonly predicate?: string;
}

/** How nodes show in `graph`: the module tree next to the resources. */
export interface ModuleInfo {
  readonly id: string;
  readonly source: string;
  readonly span?: Span;
  /** The values the caller passed (the module block's params, or `-p` for the root), in the order given. */
  readonly given: ReadonlyArray<readonly [string, unknown]>;
  /** The module's params and their values, in declaration order. */
  readonly params: ReadonlyMap<string, unknown>;
  /** The values of every `sensitive` param of the program (one list, shared by all modules). */
  readonly secrets: readonly string[];
}
