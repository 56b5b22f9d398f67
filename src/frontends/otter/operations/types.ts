/** What a built-in operation is: its script name, arguments, and how it collects, configures or executes. */
import type { Span } from '../../../core/diag.js';
import type { ResourceContext } from '../../../host/types.js';
import type { LogLevel } from '../ast.js';
import type { DriftDetail } from '../engine-types.js';
import type { Value } from '../values.js';

export type ArgType = 'scalar' | 'vector' | 'map' | 'bool' | 'int';

export interface ArgSpec {
  readonly name: string;
  readonly type: ArgType;
  readonly required?: boolean;
  /** Other names scripts use for the same argument. */
  readonly aliases?: readonly string[];
  /** Inedo's DisableVariableExpansion: the operation receives the text as written, `$` and all. */
  readonly noExpand?: boolean;
}

/** The evaluated arguments of one call, by canonical name. */
export interface OpArgs {
  has(name: string): boolean;
  text(name: string, fallback?: string): string;
  bool(name: string, fallback: boolean): boolean;
  int(name: string, fallback: number): number;
  list(name: string, fallback?: readonly string[]): string[];
  map(name: string): ReadonlyMap<string, Value>;
}

export interface OpContext {
  readonly resources: ResourceContext;
  readonly cwd: string;
  readonly simulation: boolean;
  readonly raftDir: string;
  readonly span: Span;
  /** Aborted when an enclosing `with timeout` expires: a running process is killed, a Sleep ends. */
  readonly signal: AbortSignal;
  /** Seconds left before the nearest enclosing timeout, if any (a process started now gets this limit). */
  remaining(): number | undefined;
  /** A raft item's path: `name` or `raft::name` with one of `extensions`; undefined when it is not there. */
  raftItem(name: string, extensions: readonly string[]): Promise<string | undefined>;
  /** The text of a raft item found by `raftItem` (read where the rafts are: the controller). */
  readRaftItem(path: string): Promise<string>;
  log(level: LogLevel, message: string): void;
  /** Whether the run keeps DEBUG messages (when not, a DEBUG message need not be made: it is dropped). */
  readonly debug: boolean;
  /** An absolute path for a script path, relative to the working directory of the context. */
  path(p: string): string;
  /** Expands a template text with the script's variables plus `extra`. */
  expand(text: string, extra: ReadonlyMap<string, Value>): Promise<string>;
  setConfigVariable(name: string, value: string): void;
  /** Marks a value sensitive: masked in every log line from now on. */
  secret(value: string): void;
  /** Creates or assigns a runtime variable (the variables a shell script hands back). */
  setRuntimeVariable(name: string, value: string): void;
}

/** What an ensure operation's collection found: the drifted properties, in the script's names. */
export interface Collected {
  readonly key: string;
  readonly drift: readonly string[];
  readonly details?: readonly DriftDetail[];
}

export interface OpOutcome {
  readonly changed: boolean;
  readonly outputs?: Readonly<Record<string, Value>>;
}

interface OperationBase {
  readonly name: string;
  /** Other script names of the operation (`Wait` for Sleep). */
  readonly aliases?: readonly string[];
  readonly namespace: string;
  /** The argument a positional value fills. */
  readonly positional?: string;
  readonly args: readonly ArgSpec[];
  readonly outputs?: readonly string[];
}

/** Collect + Compare + Configure (seed: ensure operations are collecting, comparing and executing). */
export interface EnsureOperation extends OperationBase {
  readonly type: 'ensure';
  collect(ctx: OpContext, args: OpArgs): Promise<Collected>;
  /** Execute: brings the item to the template, whatever a collection found (at once when it can tell without waiting). */
  configure(ctx: OpContext, args: OpArgs): OpOutcome | Promise<OpOutcome>;
}

/**
 * Executing only (seed: IExecutingOperation): skipped in a collection pass; `intrinsic` operations run
 * their Execute in every pass, collection included.
 */
export interface ExecuteOperation extends OperationBase {
  readonly type: 'execute' | 'intrinsic';
  /** The key shown in results. */
  key(args: OpArgs): string;
  execute(ctx: OpContext, args: OpArgs): Promise<OpOutcome>;
}

/** Collecting only (seed: ICollectingOperation without comparing): runs in a collection pass, never in an execution pass. */
export interface CollectOperation extends OperationBase {
  readonly type: 'collect';
  key(args: OpArgs): string;
  collect(ctx: OpContext, args: OpArgs): Promise<OpOutcome>;
}

export type Operation = EnsureOperation | ExecuteOperation | CollectOperation;
