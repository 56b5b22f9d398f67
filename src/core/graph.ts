/** The resource graph: nodes, kinded edges, ordering and cycle detection. */
import { type Diagnostic, error } from './diag.js';
import { collectRefs, type DeferredRef, type Edge, type GraphNode } from './model.js';

export interface Graph {
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly Edge[];
}

/** Indexes of a checked graph, shared by the scheduler and the formatters. */
export interface GraphIndex {
  readonly byId: ReadonlyMap<string, GraphNode>;
  /** Position of each node in `nodes`, the tie-breaker that keeps output stable. */
  readonly order: ReadonlyMap<string, number>;
  /** Edges by the node that declared them. */
  readonly incoming: ReadonlyMap<string, readonly Edge[]>;
  /** For every node, the nodes that must finish before it starts. */
  readonly before: ReadonlyMap<string, readonly string[]>;
  /** The reverse of `before`. */
  readonly after: ReadonlyMap<string, readonly string[]>;
}

/**
 * The ordering edges of a graph, each handed to `link(before, after)`: a dependency runs before its
 * dependent, except `prereq`, where the dependent runs first (it acts before the dependency changes). A
 * deferred value orders like `depends`. A node with a prereq also waits for what its prereq target waits
 * for, so that target can be checked.
 */
function orderingPairs(
  graph: Graph,
  incoming: ReadonlyMap<string, readonly Edge[]>,
  refs: ReadonlyMap<GraphNode, readonly DeferredRef[]>,
  link: (a: string, b: string) => void,
): void {
  let prereqs = false;
  for (const e of graph.edges) {
    if (e.kind === 'prereq') {
      prereqs = true;
      link(e.to, e.from);
    } else link(e.from, e.to);
  }
  for (const [n, list] of refs) {
    for (const ref of list) link(ref.node, n.id);
  }
  if (!prereqs) return;
  for (const e of graph.edges) {
    if (e.kind !== 'prereq') continue;
    for (const dep of incoming.get(e.from) ?? []) {
      if (dep.kind !== 'prereq' && dep.from !== e.to) link(dep.from, e.to);
    }
  }
}

/** Checks ids, edge ends and cycles; returns the indexes or the diagnostics. */
export function indexGraph(graph: Graph): { index?: GraphIndex; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const byId = new Map<string, GraphNode>();
  const order = new Map<string, number>();
  graph.nodes.forEach((n, i) => {
    const first = byId.get(n.id);
    if (first) {
      const at = first.span ? ` (first defined at ${first.span.file}:${first.span.line}:${first.span.col})` : '';
      diagnostics.push(error('G001', `duplicate node id ${JSON.stringify(n.id)}${at}`, { span: n.span, nodeId: n.id }));
      return;
    }
    byId.set(n.id, n);
    order.set(n.id, i);
  });
  const incoming = new Map<string, Edge[]>();
  for (const e of graph.edges) {
    const to = byId.get(e.to);
    if (!to) {
      diagnostics.push(error('G002', `edge from unknown node ${JSON.stringify(e.to)}`, { span: e.span, nodeId: e.to }));
      continue;
    }
    if (!byId.has(e.from)) {
      diagnostics.push(error('G003', `${JSON.stringify(e.to)} has ${e.kind} on unknown node ${JSON.stringify(e.from)}`, { span: e.span ?? to.span, nodeId: e.to }));
      continue;
    }
    if (e.from === e.to) {
      diagnostics.push(error('G004', `${JSON.stringify(e.to)} cannot ${e.kind} itself`, { span: e.span ?? to.span, nodeId: e.to }));
      continue;
    }
    // A new list is made holding its first item: an empty one that is pushed to gets room for 17.
    const list = incoming.get(e.to);
    if (list) list.push(e);
    else incoming.set(e.to, [e]);
  }
  // The nodes whose params refer to others' results (most refer to none).
  const refs = new Map<GraphNode, readonly DeferredRef[]>();
  for (const n of graph.nodes) {
    const list = collectRefs(n.params);
    if (list.length > 0) refs.set(n, list);
    for (const ref of list) {
      if (!byId.has(ref.node)) {
        diagnostics.push(error('G005', `${JSON.stringify(n.id)} refers to unknown node ${JSON.stringify(ref.node)}`, { span: n.span, nodeId: n.id }));
      } else if (ref.node === n.id) {
        diagnostics.push(error('G004', `${JSON.stringify(n.id)} cannot refer to its own result`, { span: n.span, nodeId: n.id }));
      }
    }
  }
  if (diagnostics.length > 0) return { diagnostics };

  const before = new Map<string, string[]>();
  const after = new Map<string, string[]>();
  // Duplicate pairs are dropped: a short list is searched, a long one gets a set of its own.
  const seen = new Map<string, Set<string>>();
  // Most graphs list a node after what it waits for: when every pair goes forward in graph order, the
  // order itself is a topological one and there is no cycle to look for.
  let forward = true;
  orderingPairs(graph, incoming, refs, (a, b) => {
    const bl = before.get(b);
    if (!bl) before.set(b, [a]);
    else {
      if (bl.length < 16) {
        if (bl.includes(a)) return;
      } else {
        let set = seen.get(b);
        if (!set) seen.set(b, (set = new Set(bl)));
        if (set.has(a)) return;
        set.add(a);
      }
      bl.push(a);
    }
    const al = after.get(a);
    if (al) al.push(b);
    else after.set(a, [b]);
    if (forward && (order.get(a) as number) >= (order.get(b) as number)) forward = false;
  });
  const cycle = forward ? undefined : findCycle(graph.nodes, after);
  if (cycle) {
    const start = byId.get(cycle[0] ?? '');
    diagnostics.push(
      error('G006', `dependency cycle: ${cycleText(cycle)}`, { span: start?.span, nodeId: cycle[0] }),
    );
    return { diagnostics };
  }
  return { index: { byId, order, incoming, before, after }, diagnostics };
}

/** Nodes of a cycle named in its message, at most; a longer cycle shows its start and end. */
const CYCLE_SHOWN = 20;

/** `"a" -> "b" -> "a"`; a long cycle keeps its first and last nodes and says how many it leaves out. */
export function cycleText(cycle: readonly string[]): string {
  const q = (id: string) => JSON.stringify(id);
  if (cycle.length <= CYCLE_SHOWN) return cycle.map(q).join(' -> ');
  const head = cycle.slice(0, CYCLE_SHOWN / 2).map(q);
  const tail = cycle.slice(-CYCLE_SHOWN / 2).map(q);
  const left = cycle.length - head.length - tail.length;
  return `${head.join(' -> ')} -> … ${left} more nodes … -> ${tail.join(' -> ')} (${cycle.length - 1} nodes in all)`;
}

/** Iterative three-colour DFS; returns the node ids of one cycle, first node repeated at the end. */
export function findCycle(nodes: readonly GraphNode[], after: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const WHITE = 0;
  const GREY = 1;
  const BLACK = 2;
  const colour = new Map<string, number>();
  for (const root of nodes) {
    if ((colour.get(root.id) ?? WHITE) !== WHITE) continue;
    const stack: Array<{ id: string; next: number }> = [{ id: root.id, next: 0 }];
    colour.set(root.id, GREY);
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      if (!top) break;
      const succ = after.get(top.id) ?? [];
      if (top.next >= succ.length) {
        colour.set(top.id, BLACK);
        stack.pop();
        continue;
      }
      const s = succ[top.next++] as string;
      const c = colour.get(s) ?? WHITE;
      if (c === GREY) {
        const from = stack.findIndex((f) => f.id === s);
        return [...stack.slice(from).map((f) => f.id), s];
      }
      if (c === WHITE) {
        colour.set(s, GREY);
        stack.push({ id: s, next: 0 });
      }
    }
  }
  return undefined;
}
