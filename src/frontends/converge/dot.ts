/**
 * `graph`: the module tree and the dependency graph as Graphviz DOT, laid out as Converge draws it: a
 * cluster per module, tasks as components, files as tabs, an edge from each dependency to its dependent
 * and from each module to the module that includes it. Params are not drawn.
 */
import type { GraphNode } from '../../core/model.js';
import type { ConvergeProgram } from './compile.js';

function label(node: GraphNode, ctype: string): string {
  if (ctype === 'file.content') return `File: ${String(node.params.path)}`;
  if (ctype === 'file.directory') return `Directory: ${String(node.params.path)}`;
  return node.id.split('/').pop() ?? node.id;
}

function shape(ctype: string): string | undefined {
  if (ctype === 'task') return 'component';
  if (ctype === 'file.content' || ctype === 'file.directory') return 'tab';
  return undefined;
}

function q(s: string): string {
  return `"${s.replace(/\n/g, '\\n')}"`;
}

function attrs(shapeName: string | undefined, text: string): string {
  const parts = [...(shapeName ? [` shape=${q(shapeName)} `] : []), ` label=${q(text)} `];
  return `[${parts.join(',')}]`;
}

function parentModule(id: string): string {
  return id.slice(0, id.lastIndexOf('/'));
}

export interface GraphView {
  readonly nodes: Array<{ id: string; type: string; label: string; module: string }>;
  readonly edges: Array<{ from: string; to: string; kind: string }>;
}

export function graphView(p: ConvergeProgram): GraphView {
  const nodes: GraphView['nodes'] = [];
  for (const m of p.modules) nodes.push({ id: m.id, type: 'module', label: `Module: ${m.id === 'root' ? '/' : (m.id.split('/').pop() ?? m.id)}`, module: m.id === 'root' ? '' : parentModule(m.id) });
  for (const n of p.graph.nodes) {
    const ctype = p.types.get(n.id) ?? n.type;
    nodes.push({ id: n.id, type: ctype, label: label(n, ctype), module: parentModule(n.id) });
  }
  const edges: GraphView['edges'] = p.graph.edges.map((e) => ({ from: e.from, to: e.to, kind: e.kind }));
  for (const m of p.modules) if (m.id !== 'root') edges.push({ from: m.id, to: parentModule(m.id), kind: 'module' });
  return { nodes, edges };
}

export function formatDot(p: ConvergeProgram): string {
  const view = graphView(p);
  let out = 'digraph {\n\n';
  p.modules.forEach((m, i) => {
    out += `subgraph cluster_${i} {\n`;
    for (const n of view.nodes) {
      const inCluster = n.type === 'module' ? n.id === m.id : n.module === m.id;
      if (inCluster) out += `${q(n.id)} ${attrs(n.type === 'module' ? 'folder' : shape(n.type), n.label)};\n`;
    }
    out += '}\n';
  });
  for (const e of view.edges) out += `${q(e.from)} -> ${q(e.to)} [ label="" ];\n`;
  return `${out}}\n`;
}
