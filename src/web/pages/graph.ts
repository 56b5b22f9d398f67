/**
 * The graph of a run, laid out by dagre on the server and drawn as SVG: nodes coloured by their outcome,
 * edges by requisite kind, each node linking to its result. No script is needed to see it.
 */
import dagre from '@dagrejs/dagre';
import type { StoredRun } from '../../store/types.js';
import { anchor, type Html, html } from '../html.js';
import { page } from '../layout.js';

const NODE_H = 34;
const CHAR_W = 7.2;
const KINDS = ['require', 'watch', 'onchanges', 'onfail', 'prereq', 'depends'];

function label(type: string, name: string): string {
  const text = `${type} ${name}`;
  return text.length > 48 ? `${text.slice(0, 47)}…` : text;
}

export function graphSvg(run: StoredRun, host: string): Html {
  const results = run.results.filter((r) => r.host === host);
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: 'LR', nodesep: 14, ranksep: 50, marginx: 10, marginy: 10 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const r of results) g.setNode(r.id, { width: Math.max(80, label(r.type, r.name).length * CHAR_W + 20), height: NODE_H });
  const edges = (run.edges ?? []).filter((e) => g.hasNode(e.from) && g.hasNode(e.to));
  edges.forEach((e, i) => g.setEdge(e.from, e.to, { kind: e.kind }, `e${i}`));
  dagre.layout(g);
  const size = g.graph();
  const width = Math.ceil(size.width ?? 100);
  const height = Math.ceil(size.height ?? 60);
  const byId = new Map(results.map((r) => [r.id, r]));
  return html`<svg class="graph" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="graph of run ${run.id}">
<defs>${KINDS.map((k) => html`<marker id="arrow-${k}" class="edge-${k}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z"/></marker>`)}</defs>
${g.edges().map((ref: { v: string; w: string; name?: string }) => {
  const e = g.edge(ref) as { points?: { x: number; y: number }[]; kind?: string };
  const kind = KINDS.includes(e.kind ?? '') ? (e.kind as string) : 'require';
  const d = (e.points ?? []).map((p, i) => `${i === 0 ? 'M' : 'L'} ${p.x.toFixed(1)} ${p.y.toFixed(1)}`).join(' ');
  return html`<path class="edge edge-${kind}" d="${d}" marker-end="url(#arrow-${kind})" data-kind="${kind}"><title>${ref.v} ${kind} ${ref.w}</title></path>`;
})}
${g.nodes().map((id: string) => {
  const n = g.node(id) as { x: number; y: number; width: number; height: number };
  const r = byId.get(id);
  if (!r) return '';
  return html`<a href="/runs/${run.id}#${anchor(host, id)}" class="node ${r.status}" data-node="${id}" data-status="${r.status}">
<rect x="${(n.x - n.width / 2).toFixed(1)}" y="${(n.y - n.height / 2).toFixed(1)}" width="${n.width.toFixed(1)}" height="${n.height}" rx="6"/>
<text x="${n.x.toFixed(1)}" y="${(n.y + 4).toFixed(1)}" text-anchor="middle">${label(r.type, r.name)}</text><title>${id}: ${r.status}, ${r.comment}</title></a>`;
})}
</svg>`;
}

export function graphPage(run: StoredRun, hostParam: string | undefined): string {
  const hosts = [...new Set(run.results.map((r) => r.host))].sort();
  const host = hostParam && hosts.includes(hostParam) ? hostParam : hosts[0];
  const body = html`<h1>Graph of run <a href="/runs/${run.id}">#${run.id}</a></h1>
${hosts.length > 1 ? html`<p class="hosts">Host: ${hosts.map((h) => (h === host ? html`<strong>${h}</strong> ` : html`<a href="/runs/${run.id}/graph?host=${encodeURIComponent(h)}">${h}</a> `))}</p>` : ''}
<p class="legend">Nodes: ${['ok', 'changed', 'pending', 'failed', 'skipped', 'unresolvable'].map((s) => html`<span class="badge ${s}">${s}</span> `)}
Edges: ${KINDS.map((k) => html`<span class="edge-key edge-${k}">${k}</span> `)}</p>
${host === undefined ? html`<p class="empty">This run has no results to draw.</p>` : html`<div class="graph-wrap">${graphSvg(run, host)}</div>`}
${run.edges === undefined && host !== undefined ? html`<p class="note">This front end did not record requisites for the run: nodes only.</p>` : ''}`;
  return page(`Graph of run #${run.id}`, 'runs', body);
}
