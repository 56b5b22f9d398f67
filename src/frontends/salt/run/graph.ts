/**
 * Low chunks → core graph. Nodes are emitted in Salt's execution order (chunks in order, each one's
 * requisites evaluated depth first, as call_chunk does), so a one-at-a-time run starts them exactly in
 * the order Salt would and `__run_num__` matches.
 */
import type { Span } from '../../../core/diag.js';
import type { Edge, EdgeKind, GraphNode } from '../../../core/model.js';
import type { Graph } from '../../../core/graph.js';
import type { Chunk, ChunkFailure } from '../compile/index.js';
import { RUN_REQUISITES, refsOf, targets } from '../compile/requisites.js';
import { type StateImpl, stateImpl, type TranslateContext, type Translation } from '../states/index.js';

export function tagOf(c: Pick<Chunk, 'state' | '__id__' | 'name' | 'fun'>): string {
  return `${c.state}_|-${c.__id__}_|-${c.name}_|-${c.fun}`;
}

export interface NodeInfo {
  readonly chunk: Chunk;
  readonly impl: StateImpl | undefined;
  /** A translation failure: the state fails with this comment. */
  readonly fail?: string;
  /** Salt fails this state without calling it: a lost requisite or a state function that does not exist. */
  readonly failure?: ChunkFailure['kind'];
  /** Chunks this one watches (for test.mod_watch's "Requisites with changes"). */
  readonly watches: Chunk[];
}

export interface SaltGraph {
  readonly graph: Graph;
  readonly info: Map<string, NodeInfo>;
  /** Chunks in execution order (deduplicated by tag). */
  readonly chunks: Chunk[];
}

const EDGE: Record<string, { kind: EdgeKind; any?: boolean }> = {
  require: { kind: 'require' },
  require_any: { kind: 'require', any: true },
  watch: { kind: 'watch' },
  watch_any: { kind: 'watch', any: true },
  prereq: { kind: 'prereq' },
  onfail: { kind: 'onfail' },
  onfail_any: { kind: 'onfail' },
  onchanges: { kind: 'onchanges' },
  onchanges_any: { kind: 'onchanges' },
};

/** Requisite targets of a chunk in the order call_chunk runs them. */
function depsOf(c: Chunk, chunks: readonly Chunk[]): Array<{ requisite: string; chunk: Chunk }> {
  const out: Array<{ requisite: string; chunk: Chunk }> = [];
  for (const requisite of [...RUN_REQUISITES, 'prerequired']) {
    for (const ref of refsOf(c, requisite)) for (const t of targets(ref, chunks)) if (t !== c) out.push({ requisite, chunk: t });
  }
  return out;
}

export function executionOrder(chunks: readonly Chunk[], failures?: ReadonlyMap<Chunk, ChunkFailure>): Chunk[] {
  const seen = new Set<string>();
  const unique = chunks.filter((c) => {
    const t = tagOf(c);
    if (seen.has(t)) return false;
    seen.add(t);
    return true;
  });
  const state = new Map<Chunk, number>();
  const order: Chunk[] = [];
  const visit = (c: Chunk): void => {
    if (state.has(c)) return;
    state.set(c, 1);
    // A state with a lost requisite fails where it stands: Salt runs none of its requisites first.
    if (failures?.get(c)?.kind === 'lost') {
      state.set(c, 2);
      order.push(c);
      return;
    }
    for (const d of depsOf(c, unique)) {
      // A prereq target is only checked first; what it requires runs before the prereq state.
      if (d.requisite === 'prereq') {
        for (const dd of depsOf(d.chunk, unique)) if (dd.requisite !== 'prerequired' && dd.chunk !== c) visit(dd.chunk);
      } else visit(d.chunk);
    }
    state.set(c, 2);
    order.push(c);
  };
  for (const c of unique) visit(c);
  return order;
}

export function buildGraph(
  chunks: readonly Chunk[],
  ctx: TranslateContext,
  options: { failhard: boolean; test: boolean; spanOf?: (id: string) => Span | undefined; failures?: ReadonlyMap<Chunk, ChunkFailure> },
): SaltGraph {
  const ordered = executionOrder(chunks, options.failures);
  const nodes: GraphNode[] = [];
  const edges: Edge[] = [];
  const info = new Map<string, NodeInfo>();
  for (const c of ordered) {
    const id = tagOf(c);
    const failure = options.failures?.get(c);
    const impl = failure ? undefined : stateImpl(c.state, c.fun);
    const t: Translation = failure ? { fail: failure.comment } : impl ? impl.translate(c, ctx) : { fail: `State '${c.state}.${c.fun}' was not found in SLS '${c.__sls__}'\nReason: '${c.state}.${c.fun}' is not available.\n` };
    const watches: Chunk[] = [];
    for (const d of failure?.kind === 'lost' ? [] : depsOf(c, ordered)) {
      const e = EDGE[d.requisite];
      if (!e) continue;
      let kind = e.kind;
      if (kind === 'watch') {
        if (impl?.modWatch) watches.push(d.chunk);
        else kind = 'require';
      }
      edges.push({ from: tagOf(d.chunk), to: id, kind, ...(e.any ? { any: true } : {}) });
    }
    const failhard = !options.test && (c.failhard === true || (c.failhard === undefined && options.failhard));
    const node: GraphNode =
      'fail' in t
        ? { id, type: 'test', name: c.name, params: { name: c.name, action: 'fail_without_changes', comment: t.fail } }
        : { id, type: t.type, name: c.name, params: t.params };
    const span = options.spanOf?.(c.__id__);
    // `show_changes: False` hides the diff from the record too: the runtime keeps only hashes of it.
    const hidden = c.state === 'file' && c.show_changes === false ? { secret: { values: [] } } : {};
    nodes.push({ ...node, ...(span ? { span } : {}), meta: { sls: c.__sls__, id: c.__id__, state: c.state, fun: c.fun }, ...(failhard ? { stopOnFailure: true } : {}), ...hidden });
    info.set(id, { chunk: c, impl, watches, ...('fail' in t ? { fail: t.fail } : {}), ...(failure ? { failure: failure.kind } : {}) });
  }
  return { graph: { nodes, edges }, info, chunks: ordered };
}
