/**
 * The runtime stage of the Salt front end: low chunks → core graph → one run → Salt's running dict,
 * then the `listen` mod_watch runs Salt does at the end.
 */
import type { Span } from '../../../core/diag.js';
import { DiagnosticError } from '../../../core/diag.js';
import { type GraphNode, isChanged, type NodeResult } from '../../../core/model.js';
import { checkGraph, preflightGraph, runGraph } from '../../../core/runtime.js';
import type { ResourceContext } from '../../../host/types.js';
import { type Kind, kinds as sharedKinds } from '../../../resources/index.js';
import type { Chunk, ChunkFailure } from '../compile/index.js';
import { refsOf, targets } from '../compile/requisites.js';
import type { TranslateContext } from '../states/index.js';
import { buildGraph, tagOf } from './graph.js';
import { newTracker, saltKinds } from './kinds.js';
import { localTime, RunNumbers, type SaltResult, saltResults } from './results.js';

export type { SaltResult } from './results.js';
export { executionOrder, tagOf } from './graph.js';

export interface SaltRunOptions {
  readonly test: boolean;
  readonly failhard: boolean;
  readonly jobs: number;
  readonly ctx: ResourceContext;
  readonly translate: TranslateContext;
  readonly spanOf?: (id: string) => Span | undefined;
  /** States that fail without being called (compile's lost requisites and unknown functions). */
  readonly failures?: ReadonlyMap<Chunk, ChunkFailure>;
  readonly kinds?: ReadonlyMap<string, Kind>;
  readonly onStart?: (node: GraphNode) => void;
  readonly onResult?: (result: NodeResult, done: number, total: number) => void;
}

export interface SaltRun {
  readonly running: Record<string, SaltResult>;
  /** The core results, for the run store. */
  readonly results: NodeResult[];
}

/** Listeners whose listened-to states changed, as Salt's call_listen finds them. */
function listeners(chunks: readonly Chunk[], changed: (c: Chunk) => boolean): Chunk[] {
  const out: Chunk[] = [];
  const add = (c: Chunk) => {
    if (!out.includes(c)) out.push(c);
  };
  for (const c of chunks) {
    for (const ref of refsOf(c, 'listen')) if (targets(ref, chunks).some(changed)) add(c);
    if (changed(c)) for (const ref of refsOf(c, 'listen_in')) for (const t of targets(ref, chunks)) add(t);
  }
  return out;
}

export async function runChunks(chunks: readonly Chunk[], opts: SaltRunOptions): Promise<SaltRun> {
  const base = opts.kinds ?? sharedKinds;
  const sg = buildGraph(chunks, { ...opts.translate, lowstate: chunks }, { failhard: opts.failhard, test: opts.test, ...(opts.spanOf ? { spanOf: opts.spanOf } : {}), ...(opts.failures ? { failures: opts.failures } : {}) });
  const tracker = newTracker();
  const kinds = saltKinds(base, sg.info, tracker);
  const checked = checkGraph(sg.graph, kinds);
  if (!checked.index) throw new DiagnosticError(checked.diagnostics);
  const pre = await preflightGraph(sg.graph, kinds, opts.ctx);
  if (pre.length > 0) throw new DiagnosticError(pre);
  const report = await runGraph(sg.graph, checked.index, {
    mode: opts.test ? 'check' : 'apply',
    jobs: opts.jobs,
    kinds,
    ctx: opts.ctx,
    label: (node) => `${String(node.meta?.sls)}.${String(node.meta?.id)}`,
    onStart: opts.onStart,
    onResult: (r, done, total) => {
      tracker.running.set(r.id, r);
      opts.onResult?.(r, done, total);
    },
  });
  const nums = new RunNumbers();
  // Several jobs finish in any order; Salt numbers states in its execution order, which the node order is.
  let finished = report.results;
  if (opts.jobs > 1) {
    const rank = new Map(sg.graph.nodes.map((n, i) => [n.id, i]));
    finished = [...report.results].sort((a, b) => (rank.get(a.id) ?? 0) - (rank.get(b.id) ?? 0));
  }
  const running = saltResults(finished, sg, tracker, opts.test, nums);
  const results = [...report.results];
  const stopped = report.results.length < sg.graph.nodes.length;
  if (!stopped) {
    const changed = (c: Chunk) => {
      const r = tracker.running.get(tagOf(c));
      return r !== undefined && isChanged(r);
    };
    for (const c of listeners(sg.chunks, changed)) {
      const low: Chunk = { ...c, fun: 'mod_watch', __id__: `listener_${c.__id__}` };
      const tag = tagOf(low);
      if (tag in running) continue;
      const info = sg.info.get(tagOf(c));
      const node = sg.graph.nodes.find((n) => n.id === tagOf(c));
      if (!info || !node) continue;
      const start = new Date().toISOString();
      const t0 = performance.now();
      let ret: { result: boolean | null; comment: string; changes: Record<string, unknown> };
      if (c.state === 'cmd' && opts.test) ret = { result: null, comment: `Command "${c.name}" would have been executed`, changes: {} };
      else if (c.state === 'cmd') {
        const kind = base.get(node.type);
        const w = kind?.watch ? await kind.watch(opts.ctx, node.params, node) : { ok: true, comment: '' };
        ret = { result: w.ok, comment: w.comment ?? '', changes: w.changes ?? {} };
      } else ret = { result: true, comment: typeof c.comment === 'string' ? c.comment : 'Watch statement fired.', changes: { 'Requisites with changes': [] } };
      const duration = Math.round((performance.now() - t0) * 1000) / 1000;
      running[tag] = {
        changes: ret.changes,
        comment: ret.comment,
        name: c.name,
        result: ret.result,
        __sls__: c.__sls__,
        __run_num__: nums.take(),
        start_time: localTime(start),
        duration,
        __id__: low.__id__,
      };
      results.push({
        id: tag,
        name: c.name,
        type: node.type,
        result: ret.result,
        status: ret.result === false ? 'failed' : opts.test ? 'pending' : Object.keys(ret.changes).length > 0 ? 'changed' : 'ok',
        changes: ret.changes,
        comment: ret.comment,
        start,
        duration,
        run_num: results.length,
      });
    }
  }
  return { running, results };
}
