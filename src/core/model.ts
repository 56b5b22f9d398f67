/** The shared vocabulary of the core: graph nodes, deferred values, resource kinds and result records. */
import type { Diagnostic, Span } from './diag.js';

/** How a node depends on another. The dependent node names its dependency (the edge's `from`). */
export type EdgeKind = 'require' | 'watch' | 'onchanges' | 'onfail' | 'prereq' | 'depends';
export const EDGE_KINDS: readonly EdgeKind[] = ['require', 'watch', 'onchanges', 'onfail', 'prereq', 'depends'];

export interface Edge {
  /** The dependency. */
  readonly from: string;
  /** The node that declared the requisite. */
  readonly to: string;
  readonly kind: EdgeKind;
  /**
   * For require and watch: the node needs only one of its `any` edges of that kind to succeed
   * (Salt's require_any / watch_any); for onchanges and onfail, `any` is already the rule.
   */
  readonly any?: boolean;
  readonly span?: Span;
}

export interface GraphNode {
  readonly id: string;
  /** Resource type, e.g. `file` or `command`. */
  readonly type: string;
  /** Human name shown in output (Salt's `name`); defaults to the id. */
  readonly name: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly span?: Span;
  /** Spans of individual params, for diagnostics that point at the offending value. */
  readonly paramSpans?: Readonly<Record<string, Span>>;
  /** Opaque data a front end keeps with the node (Salt's __sls__, order, …); never read by the core. */
  readonly meta?: Readonly<Record<string, unknown>>;
  /** When this node fails, no further node starts; nodes not started get no result (Salt's failhard). */
  readonly stopOnFailure?: boolean;
  /** A secret node: its results never show or keep its values or content, only that they changed (see redact.ts). */
  readonly secret?: { readonly values: readonly string[] };
}

/** A reference to a field of another node's outputs (Converge's lookup). */
export interface DeferredRef {
  readonly node: string;
  readonly field: string;
}

/**
 * A param value known only after other nodes have run. `render` receives the referenced values in the
 * order of `refs` and returns the param value.
 */
export interface Deferred {
  readonly $deferred: true;
  readonly refs: readonly DeferredRef[];
  readonly render: (values: readonly unknown[]) => unknown;
  /** How to show the value before it is known, e.g. `{{lookup "x.stdout"}}`. */
  readonly display: string;
}

export function isDeferred(v: unknown): v is Deferred {
  return typeof v === 'object' && v !== null && (v as { $deferred?: unknown }).$deferred === true;
}

export function deferred(refs: readonly DeferredRef[], render: Deferred['render'], display: string): Deferred {
  return { $deferred: true, refs, render, display };
}

/** Every deferred reference in a params object, at any depth. */
export function collectRefs(value: unknown, out: DeferredRef[] = []): DeferredRef[] {
  if (typeof value !== 'object' || value === null) return out;
  if (isDeferred(value)) {
    for (const ref of value.refs) out.push(ref);
  } else if (Array.isArray(value)) {
    for (const v of value) collectRefs(v, out);
  } else {
    for (const k in value) collectRefs((value as Record<string, unknown>)[k], out);
  }
  return out;
}

/** Whether a value holds a deferred value at any depth. Walked without copying: it runs for every node. */
export function hasDeferred(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (isDeferred(value)) return true;
  if (Array.isArray(value)) {
    for (const v of value) if (hasDeferred(v)) return true;
    return false;
  }
  for (const k in value) if (hasDeferred((value as Record<string, unknown>)[k])) return true;
  return false;
}

/**
 * Run modes. `check` is plan/test; `collect` records drift only; `simulate` applies against a host that
 * changes nothing; `destroy` undoes what an apply made (a Zapusk destroy).
 */
export type RunMode = 'apply' | 'check' | 'collect' | 'simulate' | 'destroy';
export const RUN_MODES: readonly RunMode[] = ['apply', 'check', 'collect', 'simulate', 'destroy'];

/** What a kind's check found. */
export interface CheckOutcome {
  readonly inSync: boolean;
  /** The changes an apply would make (or, in sync, none). A file diff goes under `diff`. */
  readonly changes?: Record<string, unknown>;
  readonly comment?: string;
  /** Fields other nodes may look up (Converge's TaskStatus fields). */
  readonly outputs?: Record<string, unknown>;
  /** Private data handed from check to apply (e.g. the current content already read). */
  readonly state?: unknown;
  /** False when the kind cannot tell drift without acting (a command without guards): skipped in collect mode. */
  readonly collectable?: boolean;
}

export interface ApplyOutcome {
  /** False when the apply failed; the comment says why. */
  readonly ok: boolean;
  readonly changes?: Record<string, unknown>;
  readonly comment?: string;
  readonly outputs?: Record<string, unknown>;
}

/** A resource kind as the core sees it; `C` is the context it acts through (a host), opaque to the core. */
export interface ResourceKind<C = unknown> {
  readonly type: string;
  /** Problems with params that are known before running (wrong types, missing source files). Deferred values are not yet known. */
  validate(params: Readonly<Record<string, unknown>>, node: GraphNode): readonly Diagnostic[];
  /** Optional checks that need the context but change nothing (source file present?), run before anything changes. */
  preflight?(ctx: C, params: Readonly<Record<string, unknown>>, node: GraphNode): readonly Diagnostic[] | Promise<readonly Diagnostic[]>;
  check(ctx: C, params: Readonly<Record<string, unknown>>, node: GraphNode): Promise<CheckOutcome>;
  /**
   * The check answered at once, where the kind can tell from immediate reads alone that the resource is in
   * its state (the common no-op): the in-sync outcome `check` would give, or undefined to leave it to
   * `check`. Never changes anything; whatever it cannot settle at once it leaves to `check`.
   */
  checkNow?(ctx: C, params: Readonly<Record<string, unknown>>, node: GraphNode): CheckOutcome | undefined;
  apply(ctx: C, params: Readonly<Record<string, unknown>>, check: CheckOutcome, node: GraphNode): Promise<ApplyOutcome>;
  /** Salt's mod_watch: what to do when a watched dependency changed (restart, re-run). */
  watch?(ctx: C, params: Readonly<Record<string, unknown>>, node: GraphNode): Promise<ApplyOutcome>;
}

/**
 * A kind's at-once check (`checkNow`): its in-sync outcome, or undefined for anything it cannot settle at
 * once, an error included (the check that follows reports that).
 */
export function checkAtOnce<C>(kind: ResourceKind<C>, ctx: C, params: Readonly<Record<string, unknown>>, node: GraphNode): CheckOutcome | undefined {
  if (kind.checkNow === undefined) return undefined;
  try {
    const now = kind.checkNow(ctx, params, node);
    return now?.inSync === true ? now : undefined;
  } catch {
    return undefined;
  }
}

/** The outcome category of one node, used for summaries and colour. */
export type NodeStatus = 'ok' | 'changed' | 'pending' | 'failed' | 'skipped' | 'unresolvable';

/** The uniform result record of one node. */
export interface NodeResult {
  readonly id: string;
  readonly name: string;
  readonly type: string;
  /** true: in the desired state (or made so); false: failed; null: would change (check modes) or unknown. */
  readonly result: boolean | null;
  readonly status: NodeStatus;
  readonly changes: Record<string, unknown>;
  readonly comment: string;
  /** ISO time the node started. */
  readonly start: string;
  /** Milliseconds. */
  readonly duration: number;
  /** 0-based order in which nodes started (Salt's __run_num__). */
  readonly run_num: number;
  readonly outputs?: Record<string, unknown>;
  readonly span?: Span;
  /** Set when the node failed because of a bug in cairn: the message and the stack, kept in the run record. */
  readonly internal?: { readonly message: string; readonly stack: string };
}

export function isChanged(r: NodeResult): boolean {
  return r.status === 'changed' || r.status === 'pending';
}

/** The `result` a status stands for: false for a failure, null for a change not made (or not knowable), else true. */
export function resultOf(status: NodeStatus): boolean | null {
  return status === 'failed' ? false : status === 'pending' || status === 'unresolvable' ? null : true;
}

/** The one result builder for records not made by the scheduler (imperative steps and operations). */
export function stepResult(r: Omit<NodeResult, 'result' | 'start' | 'duration'> & { readonly started: number; readonly ended: number }): NodeResult {
  const { started, ended, ...rest } = r;
  // The fields are added to the fresh copy rather than spread into another one: the same keys in the same
  // order, without a second copy per record (which costs more than the rest of a no-op step).
  const out = rest as { -readonly [K in keyof NodeResult]: NodeResult[K] };
  out.result = resultOf(r.status);
  out.start = isoTimeOf(started);
  out.duration = Math.max(0, ended - started);
  return out;
}

/**
 * stepResult for a record whose fields come one by one (an OtterScript operation's): made in one literal,
 * without the copy, with the keys in the order stepResult gives a record written in this order.
 */
export function stepResultOf(id: string, name: string, type: string, status: NodeStatus, changes: Record<string, unknown>, comment: string, started: number, ended: number, runNum: number, span: Span): NodeResult {
  return { id, name, type, status, changes, comment, run_num: runNum, span, result: resultOf(status), start: isoTimeOf(started), duration: Math.max(0, ended - started) };
}

let isoMs = Number.NaN;
let iso = '';

/** The ISO time of a millisecond; steps that start in the same millisecond share one string. */
function isoTimeOf(ms: number): string {
  if (ms !== isoMs) {
    isoMs = ms;
    iso = new Date(ms).toISOString();
  }
  return iso;
}
