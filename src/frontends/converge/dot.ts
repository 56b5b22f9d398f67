/**
 * `graph`: the module tree and the dependency graph as Graphviz DOT, laid out as Converge draws it: a
 * cluster per module holding every node inside it (switch and case nodes too), tasks as components, files
 * as tabs, an edge from each dependency to its dependent, from each node of a case to the case, from each
 * case to its switch and to the next case, and from each module to the module that includes it. Params
 * and the edges to the nodes that read them are drawn only when asked for (`--show-params`).
 */
import { maskValues } from '../../core/redact.js';
import type { GraphNode } from '../../core/model.js';
import type { ConvergeProgram } from './compile.js';
import { goS } from '../../lang/go/fmt.js';

function label(node: GraphNode, ctype: string): string {
  const shown = typeof node.meta?.destination === 'string' ? node.meta.destination : undefined;
  if (ctype === 'file.content') return `File: ${shown ?? String(node.params.path)}`;
  if (ctype === 'file.directory') return `Directory: ${shown ?? String(node.params.path)}`;
  if (ctype === 'wait.port') return `Wait: ${String(node.params.host ?? '')}:${String(node.params.port ?? 0)}`;
  return node.id.split('/').pop() ?? node.id;
}

function shape(type: string): string | undefined {
  if (type === 'task' || type === 'healthcheck.task') return 'component';
  if (type === 'file.content' || type === 'file.directory') return 'tab';
  if (type === 'module') return 'folder';
  return undefined;
}

function q(s: string): string {
  return `"${s.replace(/\n/g, '\\n')}"`;
}

function attrs(shapeName: string | undefined, text: string): string {
  const parts = [...(shapeName ? [` shape=${q(shapeName)} `] : []), ` label=${q(text)} `];
  return `[${parts.join(',')}]`;
}

function parentOf(id: string): string {
  return id.slice(0, id.lastIndexOf('/'));
}

export interface GraphOptions {
  /** Draw param nodes and their edges, as `converge graph --show-params` does. */
  readonly showParams?: boolean;
}

export interface GraphView {
  /** `module` is the id of the module whose cluster holds the node ('' for the root module). */
  readonly nodes: Array<{ id: string; type: string; label: string; module: string }>;
  readonly edges: Array<{ from: string; to: string; kind: string }>;
}

export function graphView(p: ConvergeProgram, options: GraphOptions = {}): GraphView {
  const moduleIds = new Set(p.modules.map((m) => m.id));
  const home = (id: string): string => {
    let m = parentOf(id);
    while (m !== '' && !moduleIds.has(m)) m = parentOf(m);
    return m;
  };
  const nodes: GraphView['nodes'] = [];
  const edges: GraphView['edges'] = [];
  for (const m of p.modules) {
    nodes.push({ id: m.id, type: 'module', label: `Module: ${m.id === 'root' ? '/' : (m.id.split('/').pop() ?? m.id)}`, module: m.id === 'root' ? '' : home(m.id) });
    if (options.showParams) {
      for (const [name, value] of m.params) nodes.push({ id: `${m.id}/param.${name}`, type: 'param', label: maskValues(`param.${name}: ${goS(value, 'json')}`, p.secrets), module: m.id });
    }
  }
  for (const n of p.graph.nodes) {
    // A node that looks values up is not prepared when the graph is drawn: it has no type-specific look.
    const ctype = (p.lookups.get(n.id)?.size ?? 0) > 0 ? 'deferred' : (p.types.get(n.id) ?? n.type);
    nodes.push({ id: n.id, type: ctype, label: label(n, ctype), module: home(n.id) });
  }
  for (const e of p.viewEdges) edges.push({ from: e.from, to: e.to, kind: e.kind });
  if (options.showParams) {
    for (const n of p.graph.nodes) for (const param of p.paramUses.get(n.id) ?? []) edges.push({ from: param, to: n.id, kind: 'param' });
  }
  for (const m of p.modules) if (m.id !== 'root') edges.push({ from: m.id, to: home(m.id), kind: 'module' });
  return { nodes, edges };
}

export function formatDot(p: ConvergeProgram, options: GraphOptions = {}): string {
  const view = graphView(p, options);
  let out = 'digraph {\n\n';
  p.modules.forEach((m, i) => {
    out += `subgraph cluster_${i} {\n`;
    for (const n of view.nodes) {
      const inCluster = n.type === 'module' ? n.id === m.id : n.module === m.id;
      if (inCluster) out += `${q(n.id)} ${attrs(shape(n.type), n.label)};\n`;
    }
    out += '}\n';
  });
  for (const e of view.edges) out += `${q(e.from)} -> ${q(e.to)} [ label="" ];\n`;
  return `${out}}\n`;
}
