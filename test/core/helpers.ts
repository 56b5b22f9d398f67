/** An in-memory resource kind for engine tests: each node's state is a value in a shared map. */
import type { Graph } from '../../src/core/graph.js';
import type { ApplyOutcome, CheckOutcome, Edge, EdgeKind, GraphNode, ResourceKind } from '../../src/core/model.js';
import { checkGraph, type RunOptions, runGraph } from '../../src/core/runtime.js';

export interface World {
  state: Map<string, unknown>;
  log: string[];
  watched: string[];
}

/** params: key, want (desired value), fail (apply fails), checkFail (check throws), delay (ms), out (outputs). */
export function memKind(_world?: World): ResourceKind<World> {
  const wait = (ms: unknown) => (typeof ms === 'number' && ms > 0 ? new Promise((r) => setTimeout(r, ms)) : undefined);
  return {
    type: 'mem',
    validate: (params, node) =>
      typeof params.key === 'string' ? [] : [{ code: 'R001', severity: 'error', message: `mem ${node.id}: missing required param "key"`, nodeId: node.id }],
    async check(w, params, node): Promise<CheckOutcome> {
      w.log.push(`check ${node.id}`);
      await wait(params.delay);
      if (params.checkFail) throw new Error(`cannot read ${String(params.key)}`);
      const cur = w.state.get(params.key as string);
      const out = { value: cur, ...(params.out as Record<string, unknown> | undefined) };
      if (cur === params.want) return { inSync: true, comment: 'in sync', outputs: out };
      return { inSync: false, changes: { old: cur ?? null, new: params.want }, comment: 'would set', outputs: params.out as Record<string, unknown> };
    },
    async apply(w, params, _c, node): Promise<ApplyOutcome> {
      w.log.push(`apply ${node.id}`);
      await wait(params.delay);
      if (params.fail) return { ok: false, comment: 'boom' };
      w.state.set(params.key as string, params.want);
      return { ok: true, changes: { new: params.want }, comment: 'set', outputs: { value: params.want, ...(params.out as object) } };
    },
    async watch(w, _params, node): Promise<ApplyOutcome> {
      w.watched.push(node.id);
      return { ok: true, changes: { restarted: true }, comment: 'restarted' };
    },
  };
}

export function node(id: string, params: Record<string, unknown>): GraphNode {
  return { id, type: 'mem', name: id, params: { key: id, ...params } };
}

export function edge(from: string, to: string, kind: EdgeKind): Edge {
  return { from, to, kind };
}

export function newWorld(init: Record<string, unknown> = {}): World {
  return { state: new Map(Object.entries(init)), log: [], watched: [] };
}

export async function run(graph: Graph, world: World, mode: RunOptions<World>['mode'] = 'apply', jobs = 4) {
  const kinds = new Map([['mem', memKind(world)]]);
  const { index, diagnostics } = checkGraph(graph, kinds);
  if (!index) throw new Error(diagnostics.map((d) => d.message).join('\n'));
  const report = await runGraph(graph, index, { mode, jobs, kinds, ctx: world });
  const by = Object.fromEntries(report.results.map((r) => [r.id, r]));
  return { report, by };
}
