/**
 * The scheduler: runs check → apply per node in dependency order, independent nodes concurrently under
 * a limit, with the requisite semantics of each edge kind and the run modes. Resource errors become
 * failed results; nothing a resource throws escapes this file.
 */
import { type Diagnostic, error } from './diag.js';
import { type InternalInfo, internalComment, internalInfo, isInternal, messageOf } from './errors.js';
import { type Graph, type GraphIndex, indexGraph } from './graph.js';
import { maskResult, redactSecretResult } from './redact.js';
import {
  type ApplyOutcome,
  type CheckOutcome,
  checkAtOnce,
  type Edge,
  type GraphNode,
  hasDeferred,
  isDeferred,
  type NodeResult,
  type NodeStatus,
  type ResourceKind,
  type RunMode,
} from './model.js';

export interface RunOptions<C> {
  readonly mode: RunMode;
  /** Most nodes acting at once; at least 1. */
  readonly jobs: number;
  readonly kinds: ReadonlyMap<string, ResourceKind<C>>;
  readonly ctx: C;
  /** How a node is named in requisite comments ("One or more requisite failed: …"); default its id. */
  readonly label?: (node: GraphNode) => string;
  /** Stop starting nodes after the first failure of any node (failhard for the whole run). */
  readonly stopOnFailure?: boolean;
  readonly onStart?: (node: GraphNode) => void;
  readonly onResult?: (result: NodeResult, done: number, total: number) => void;
}

export type Counts = Record<NodeStatus, number>;

export interface RunReport {
  readonly mode: RunMode;
  /** In the order nodes started. */
  readonly results: readonly NodeResult[];
  readonly counts: Counts;
  readonly start: string;
  readonly durationMs: number;
}

export function emptyCounts(): Counts {
  return { ok: 0, changed: 0, pending: 0, failed: 0, skipped: 0, unresolvable: 0 };
}

export function countResults(results: readonly NodeResult[]): Counts {
  const counts = emptyCounts();
  for (const r of results) counts[r.status]++;
  return counts;
}

/** Indexes the graph and validates every node against its kind: the whole load-time check. */
export function checkGraph<C>(graph: Graph, kinds: ReadonlyMap<string, ResourceKind<C>>): { index?: GraphIndex; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  for (const node of graph.nodes) {
    const kind = kinds.get(node.type);
    if (!kind) {
      const known = [...kinds.keys()].sort().join(', ');
      diagnostics.push(error('R000', `unknown resource type ${JSON.stringify(node.type)} (known: ${known})`, { span: node.span, nodeId: node.id }));
      continue;
    }
    diagnostics.push(...kind.validate(node.params, node));
  }
  const indexed = indexGraph(graph);
  diagnostics.push(...indexed.diagnostics);
  if (diagnostics.length > 0 || !indexed.index) return { diagnostics };
  return { index: indexed.index, diagnostics };
}

/** Runs each kind's preflight (read-only checks through the context) before anything changes. */
export async function preflightGraph<C>(graph: Graph, kinds: ReadonlyMap<string, ResourceKind<C>>, ctx: C): Promise<Diagnostic[]> {
  const out: Diagnostic[] = [];
  for (const node of graph.nodes) {
    const kind = kinds.get(node.type);
    if (!kind?.preflight) continue;
    // Most nodes have nothing to look at (no source file): answered at once, without a promise each.
    const found = kind.preflight(ctx, node.params, node);
    out.push(...(Array.isArray(found) ? found : await found));
  }
  return out;
}

/** A failed verdict for what a resource threw: its own wording, or, for a bug in cairn, marked internal. */
function thrown(e: unknown, prefix = ''): Verdict {
  if (!isInternal(e)) return { result: false, status: 'failed', changes: {}, comment: `${prefix}${messageOf(e)}` };
  const info = internalInfo(e);
  return { result: false, status: 'failed', changes: {}, comment: `${prefix}${internalComment(info)}`, internal: info };
}

const REQUIRING: ReadonlySet<string> = new Set(['require', 'watch', 'depends', 'onchanges']);

function changed(r: NodeResult | undefined): boolean {
  return r !== undefined && (r.status === 'changed' || r.status === 'pending');
}

function failed(r: NodeResult | undefined): boolean {
  return r !== undefined && r.result === false;
}

interface Verdict {
  result: boolean | null;
  status: NodeStatus;
  changes: Record<string, unknown>;
  comment: string;
  outputs?: Record<string, unknown>;
  internal?: InternalInfo;
}

/**
 * The changes of every node found in its state: one frozen object rather than an empty one per result (a
 * run keeps its results until they are recorded, and 10,000 empty objects are half a megabyte to copy).
 */
const NO_CHANGES: Record<string, unknown> = Object.freeze({});

/** The verdict on a node its check found in its state. */
function inSync(check: CheckOutcome): Verdict {
  const ok: Verdict = { result: true, status: 'ok', changes: NO_CHANGES, comment: check.comment ?? '' };
  if (check.outputs) ok.outputs = check.outputs;
  return ok;
}

class Run<C> {
  private readonly results = new Map<string, NodeResult>();
  private readonly ordered: NodeResult[] = [];
  /** Unfinished dependencies of each node, by position in the graph. */
  private readonly waiting: Int32Array;
  /** For a node B, the nodes that declared `prereq` on B. */
  private readonly prereqOf = new Map<string, Edge[]>();
  /** Ready nodes by position in the graph, a binary min-heap: earlier nodes start first. */
  private readonly ready: number[] = [];
  private running = 0;
  private stopped = false;
  private runNum = 0;
  private done = 0;
  private finish!: () => void;
  private fail!: (e: unknown) => void;
  /** The values of every secret node (3 characters or more): masked in every other node's result too. */
  private readonly secretValues: readonly string[];

  constructor(
    private readonly graph: Graph,
    private readonly index: GraphIndex,
    private readonly options: RunOptions<C>,
  ) {
    this.waiting = new Int32Array(graph.nodes.length);
    this.secretValues = [...new Set(graph.nodes.flatMap((n) => n.secret?.values ?? []))].filter((v) => v.trim().length >= 3);
    for (const e of graph.edges) {
      if (e.kind !== 'prereq') continue;
      let list = this.prereqOf.get(e.from);
      if (!list) this.prereqOf.set(e.from, (list = []));
      list.push(e);
    }
  }

  execute(): Promise<NodeResult[]> {
    return new Promise((resolve, reject) => {
      this.finish = () => resolve(this.ordered);
      this.fail = reject;
      this.graph.nodes.forEach((n, i) => {
        const count = this.index.before.get(n.id)?.length ?? 0;
        this.waiting[i] = count;
        if (count === 0) this.ready.push(i);
      });
      // Nodes were pushed in graph order, which is already a valid heap.
      if (this.graph.nodes.length === 0) this.finish();
      else this.pump();
    });
  }

  /** True while pump's loop runs: a node completed inside it leaves the next ones to that loop. */
  private pumping = false;

  private pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    try {
      const jobs = Math.max(1, this.options.jobs);
      while (this.running < jobs && this.ready.length > 0 && !this.stopped) {
        const node = this.graph.nodes[this.popReady()] as GraphNode;
        this.running++;
        const runNum = this.runNum++;
        this.options.onStart?.(node);
        const now = this.runNodeNow(node, runNum);
        if (now) this.complete(now);
        else
          this.runNode(node, runNum).then(
            (r) => this.complete(r),
            (e) => this.fail(e),
          );
      }
    } catch (e) {
      this.fail(e);
    } finally {
      this.pumping = false;
    }
  }

  private pos(id: string): number {
    return this.index.order.get(id) ?? 0;
  }

  private pushReady(p: number): void {
    const h = this.ready;
    h.push(p);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const up = h[parent] as number;
      if (up <= p) break;
      h[i] = up;
      i = parent;
    }
    h[i] = p;
  }

  private popReady(): number {
    const h = this.ready;
    const top = h[0] as number;
    const last = h.pop() as number;
    if (h.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= h.length) break;
        const r = l + 1;
        const c = r < h.length && (h[r] as number) < (h[l] as number) ? r : l;
        if ((h[c] as number) >= last) break;
        h[i] = h[c] as number;
        i = c;
      }
      h[i] = last;
    }
    return top;
  }

  private complete(full: NodeResult): void {
    this.running--;
    this.results.set(full.id, full);
    // A secret node's values stay here, for the nodes that refer to them; what leaves is redacted.
    const secret = this.index.byId.get(full.id)?.secret;
    // Any other node's result that quotes a secret value (a command that read a secret file) reads `********` there.
    const r = secret ? redactSecretResult(full, secret.values) : this.secretValues.length > 0 ? maskResult(full, this.secretValues) : full;
    this.ordered.push(r);
    this.done++;
    this.options.onResult?.(r, this.done, this.graph.nodes.length);
    for (const next of this.index.after.get(r.id) ?? []) {
      const p = this.pos(next);
      const left = (this.waiting[p] as number) - 1;
      this.waiting[p] = left;
      if (left === 0) this.pushReady(p);
    }
    if (r.result === false && (this.options.stopOnFailure || this.index.byId.get(r.id)?.stopOnFailure)) this.stopped = true;
    if (this.done === this.graph.nodes.length || (this.stopped && this.running === 0)) {
      this.ordered.sort((a, b) => a.run_num - b.run_num);
      this.finish();
    } else this.pump();
  }

  /** Wall clock at the run's start and the monotonic clock then: a node's start is derived, not read. */
  private readonly wall0 = Date.now() - monotonicMs();

  private isoMs = Number.NaN;
  private iso = '';

  /** The ISO time of a millisecond; nodes starting in the same millisecond share one string. */
  private isoAt(ms: number): string {
    if (ms !== this.isoMs) {
      this.isoMs = ms;
      this.iso = new Date(ms).toISOString();
    }
    return this.iso;
  }

  /**
   * A node settled at once: its kind can tell from immediate reads that it is in its state, and no
   * requisite or deferred value has a say. Its result is the one runNode would give; undefined (anything
   * else, an error included) leaves the node to runNode.
   */
  private runNodeNow(node: GraphNode, runNum: number): NodeResult | undefined {
    const kind = this.options.kinds.get(node.type);
    if (kind?.checkNow === undefined || !this.plainlyMet(node) || hasDeferred(node.params)) return undefined;
    const t0 = monotonicMs();
    const check = checkAtOnce(kind, this.options.ctx, node.params, node);
    return check === undefined ? undefined : this.resultOf(node, runNum, t0, inSync(check));
  }

  /** Only plain requires, all met, and no prereq on it: none of the requisite checks can apply. */
  private plainlyMet(node: GraphNode): boolean {
    if (this.prereqOf.has(node.id)) return false;
    const incoming = this.index.incoming.get(node.id);
    return incoming === undefined || incoming.every((e) => e.kind === 'require' && !e.any && !failed(this.results.get(e.from)));
  }

  private async runNode(node: GraphNode, runNum: number): Promise<NodeResult> {
    const t0 = monotonicMs();
    return this.resultOf(node, runNum, t0, await this.decide(node));
  }

  /** The result record of a node that started at `t0` (monotonic) and ends now with verdict `v`. */
  private resultOf(node: GraphNode, runNum: number, t0: number, v: Verdict): NodeResult {
    const r: { -readonly [K in keyof NodeResult]: NodeResult[K] } = {
      id: node.id,
      name: node.name,
      type: node.type,
      result: v.result,
      status: v.status,
      changes: v.changes,
      comment: v.comment,
      start: this.isoAt(Math.round(this.wall0 + t0)),
      duration: Math.round((monotonicMs() - t0) * 1000) / 1000,
      run_num: runNum,
    };
    if (v.outputs) r.outputs = v.outputs;
    if (node.span) r.span = node.span;
    if (v.internal) r.internal = v.internal;
    return r;
  }

  /** The requisite checks, then the node's own work. */
  private decide(node: GraphNode): Promise<Verdict> {
    // Most nodes have only plain requires, met: none of the requisite checks can apply to them.
    if (this.plainlyMet(node)) return this.own(node);
    return this.requisites(node, this.index.incoming.get(node.id) ?? []);
  }

  private async requisites(node: GraphNode, incoming: readonly Edge[]): Promise<Verdict> {
    const failedReqs = incoming.filter((e) => REQUIRING.has(e.kind) && !e.any && failed(this.results.get(e.from))).map((e) => e.from);
    for (const kind of ['require', 'watch'] as const) {
      const anyOf = incoming.filter((e) => e.kind === kind && e.any);
      if (anyOf.length > 0 && anyOf.every((e) => failed(this.results.get(e.from)))) failedReqs.push(...anyOf.map((e) => e.from));
    }
    for (const e of this.prereqOf.get(node.id) ?? []) if (failed(this.results.get(e.to))) failedReqs.push(e.to);
    if (failedReqs.length > 0) {
      return skip(false, `One or more requisite failed: ${[...new Set(failedReqs)].map((id) => this.label(id)).join(', ')}`);
    }
    const onchanges = incoming.filter((e) => e.kind === 'onchanges');
    if (onchanges.length > 0 && !onchanges.some((e) => changed(this.results.get(e.from)))) {
      return skip(true, 'State was not run because none of the onchanges reqs changed');
    }
    const onfail = incoming.filter((e) => e.kind === 'onfail');
    if (onfail.length > 0 && !onfail.some((e) => failed(this.results.get(e.from)))) {
      return skip(true, 'State was not run because onfail req did not change');
    }
    const prereqs = incoming.filter((e) => e.kind === 'prereq');
    const watched = incoming.filter((e) => e.kind === 'watch' && changed(this.results.get(e.from)));
    return this.own(node, prereqs, watched);
  }

  /** The node's own work, once its requisites allow it: resolve params, prereq gate, check/apply, watch. */
  private own(node: GraphNode, prereqs: readonly Edge[] = [], watched: readonly Edge[] = []): Promise<Verdict> {
    const kind = this.options.kinds.get(node.type);
    if (!kind) throw new Error(`internal: no kind ${node.type} for ${node.id}; checkGraph was not run`);

    const params = this.resolve(node);
    if (typeof params === 'string') {
      if (this.options.mode === 'apply' || this.options.mode === 'simulate' || params.startsWith(RENDER_FAILED)) return Promise.resolve({ result: false, status: 'failed', changes: {}, comment: params });
      return Promise.resolve({ result: null, status: 'unresolvable', changes: {}, comment: params });
    }
    // No prereq gate and no watch action to follow: the check (and apply) is the whole of it.
    if (prereqs.length === 0 && (watched.length === 0 || !kind.watch)) return this.checkAndApply(kind, node, params);
    return this.gated(kind, node, params, prereqs, watched);
  }

  private async gated(kind: ResourceKind<C>, node: GraphNode, params: Record<string, unknown>, prereqs: readonly Edge[], watched: readonly Edge[]): Promise<Verdict> {
    if (prereqs.length > 0) {
      const gate = await this.prereqGate(prereqs);
      if (gate) return gate;
    }
    const verdict = await this.checkAndApply(kind, node, params);
    if (watched.length === 0 || !kind.watch || verdict.result === false) return verdict;
    return this.runWatch(kind, node, params, verdict, watched.map((e) => e.from));
  }

  private label(id: string): string {
    const n = this.index.byId.get(id);
    return n && this.options.label ? this.options.label(n) : id;
  }

  /** A node with prereq runs only when one of its prereq targets would change. */
  private async prereqGate(prereqs: readonly Edge[]): Promise<Verdict | undefined> {
    for (const e of prereqs) {
      const target = this.index.byId.get(e.from) as GraphNode;
      const kind = this.options.kinds.get(target.type);
      const params = this.resolve(target);
      if (!kind || typeof params === 'string') continue;
      try {
        const c = await kind.check(this.options.ctx, params, target);
        if (!c.inSync) return undefined;
      } catch (err) {
        return thrown(err, `prereq check of ${target.id} failed: `);
      }
    }
    return skip(true, 'No changes detected');
  }

  private async checkAndApply(kind: ResourceKind<C>, node: GraphNode, params: Record<string, unknown>): Promise<Verdict> {
    const { mode, ctx } = this.options;
    let check: CheckOutcome;
    try {
      check = await kind.check(ctx, params, node);
    } catch (err) {
      return thrown(err);
    }
    const checkOutputs = check.outputs;
    if (check.inSync) return inSync(check);
    if (mode === 'collect' && check.collectable === false) {
      return { result: true, status: 'skipped', changes: {}, comment: check.comment ? `Not collected: ${check.comment}` : 'Not collected: this resource cannot tell drift without acting' };
    }
    if (mode === 'check' || mode === 'collect') {
      return { result: null, status: 'pending', changes: check.changes ?? {}, comment: check.comment ?? '', ...(checkOutputs ? { outputs: checkOutputs } : {}) };
    }
    let applied: ApplyOutcome;
    try {
      applied = await kind.apply(ctx, params, check, node);
    } catch (err) {
      return thrown(err);
    }
    const outputs = checkOutputs || applied.outputs ? { ...checkOutputs, ...applied.outputs } : undefined;
    const changes = applied.changes ?? check.changes ?? {};
    if (!applied.ok) return { result: false, status: 'failed', changes, comment: applied.comment ?? 'apply failed', ...(outputs ? { outputs } : {}) };
    const status: NodeStatus = Object.keys(changes).length > 0 ? 'changed' : 'ok';
    return { result: true, status, changes, comment: applied.comment ?? check.comment ?? '', ...(outputs ? { outputs } : {}) };
  }

  private async runWatch(kind: ResourceKind<C>, node: GraphNode, params: Record<string, unknown>, before: Verdict, by: readonly string[]): Promise<Verdict> {
    const { mode, ctx } = this.options;
    if (mode === 'check' || mode === 'collect') {
      return { ...before, result: null, status: 'pending', comment: joinComments(before.comment, `would run its watch action because ${by.map((id) => this.label(id)).join(', ')} changed`) };
    }
    if (before.status === 'changed') return before;
    let w: ApplyOutcome;
    try {
      w = await kind.watch!(ctx, params, node);
    } catch (err) {
      return { ...before, ...thrown(err), changes: before.changes };
    }
    const changes = { ...before.changes, ...w.changes };
    const outputs = before.outputs || w.outputs ? { ...before.outputs, ...w.outputs } : undefined;
    return {
      result: w.ok,
      status: w.ok ? (Object.keys(changes).length > 0 ? 'changed' : 'ok') : 'failed',
      changes,
      comment: joinComments(before.comment, w.comment ?? ''),
      ...(outputs ? { outputs } : {}),
    };
  }

  /** Params with deferred values replaced; a string says why they cannot be known. */
  private resolve(node: GraphNode): Record<string, unknown> | string {
    if (!hasDeferred(node.params)) return node.params as Record<string, unknown>;
    let problem: string | undefined;
    const walk = (value: unknown): unknown => {
      if (isDeferred(value)) {
        const values = value.refs.map((ref) => {
          const dep = this.results.get(ref.node);
          const v = dep?.outputs?.[ref.field];
          if (v === undefined || v === null) {
            problem ??=
              dep?.result === false
                ? `cannot resolve ${value.display}: ${this.label(ref.node)} failed`
                : `unresolvable: ${value.display} is known only after ${this.label(ref.node)} has been applied`;
          }
          return v;
        });
        if (problem !== undefined) return undefined;
        try {
          return value.render(values);
        } catch (err) {
          // The values are known but the front end cannot render them: the node fails, in every mode.
          problem = `${RENDER_FAILED}${value.display}: ${messageOf(err)}`;
          return undefined;
        }
      }
      if (Array.isArray(value)) return value.map(walk);
      if (typeof value === 'object' && value !== null) {
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(value)) out[k] = walk(v);
        return out;
      }
      return value;
    };
    const resolved = walk(node.params) as Record<string, unknown>;
    return problem ?? resolved;
  }
}

/** A monotonic clock in milliseconds (what performance.now() gives, without loading perf_hooks at start-up). */
function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** How a deferred value that could not be rendered is reported. */
const RENDER_FAILED = 'cannot render ';

function skip(result: boolean, comment: string): Verdict {
  return { result, status: 'skipped', changes: {}, comment };
}

function joinComments(a: string, b: string): string {
  return a && b ? `${a}; ${b}` : a || b;
}

/** Runs a checked graph. Never rejects for a resource problem; only for a bug in the core. */
export async function runGraph<C>(graph: Graph, index: GraphIndex, options: RunOptions<C>): Promise<RunReport> {
  const start = new Date().toISOString();
  const t0 = monotonicMs();
  const results = await new Run(graph, index, options).execute();
  return { mode: options.mode, results, counts: countResults(results), start, durationMs: monotonicMs() - t0 };
}
