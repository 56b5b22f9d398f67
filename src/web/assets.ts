/**
 * The dashboard's own assets (kept here so they ship inside the bundle) and the libraries it serves from
 * their installed packages. Nothing is loaded from another site.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const APP_CSS = `
:root { --ok: #2e7d32; --changed: #1565c0; --pending: #ef6c00; --failed: #c62828; --skipped: #757575; --unknown: #9e9e9e; --bg: #fafafa; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, sans-serif; color: #212121; background: var(--bg); }
header { display: flex; gap: 2em; align-items: center; padding: .6em 1.2em; background: #263238; color: #fff; }
header .brand { font-weight: 700; letter-spacing: .05em; }
header nav a { color: #cfd8dc; margin-right: 1.2em; text-decoration: none; }
header nav a[aria-current=page] { color: #fff; border-bottom: 2px solid #fff; }
main { padding: 1em 1.2em; }
h1 { font-size: 1.4em; margin: .2em 0 .6em; } h2 { font-size: 1.1em; }
table { border-collapse: collapse; background: #fff; }
th, td { border: 1px solid #e0e0e0; padding: .3em .5em; text-align: left; vertical-align: top; }
thead th { background: #eceff1; }
.filters { display: flex; flex-wrap: wrap; gap: .6em 1em; align-items: center; margin-bottom: 1em; }
.badge { display: inline-block; padding: 0 .5em; border-radius: .8em; color: #fff; font-size: .85em; background: var(--skipped); }
.badge.ok { background: var(--ok); } .badge.changed { background: var(--changed); } .badge.pending, .badge.drifted { background: var(--pending); }
.badge.failed, .badge.interrupted { background: var(--failed); } .badge.running { background: #6a1b9a; }
.counts .ok, .tally .ok { color: var(--ok); } .counts .changed, .tally .changed { color: var(--changed); }
.counts .pending, .tally .pending, .tally .drifted { color: var(--pending); } .counts .failed, .tally .failed { color: var(--failed); }
.source, .id { color: #616161; font-family: ui-monospace, monospace; font-size: .9em; }
.resource .type { color: #616161; } .resource .name { font-family: ui-monospace, monospace; }
.more { font-size: .85em; }
pre { margin: 0; white-space: pre-wrap; word-break: break-word; font: 12px/1.35 ui-monospace, monospace; }
pre.diff { background: #fff; border: 1px solid #e0e0e0; padding: .3em; max-width: 70em; }
pre.diff .add { color: #1b5e20; background: #e8f5e9; } pre.diff .del { color: #b71c1c; background: #ffebee; }
pre.diff .hunk { color: #6a1b9a; } pre.diff .file { color: #424242; font-weight: 600; }
details.output pre { background: #263238; color: #eceff1; padding: .8em; }
dl.summary { display: grid; grid-template-columns: max-content 1fr; gap: .2em 1em; }
dl.summary dt { color: #616161; } dl.summary dd { margin: 0; }
.grid-wrap { overflow: auto; max-height: 80vh; }
table.drift td.cell { text-align: center; min-width: 5.5em; font-size: .85em; }
table.drift td.cell a { color: #fff; text-decoration: none; display: block; }
table.drift td.cell .since { display: block; color: rgba(255,255,255,.85); font-size: .8em; }
table.drift td.ok { background: var(--ok); } table.drift td.drifted { background: var(--pending); }
table.drift td.failed { background: var(--failed); } table.drift td.unknown { background: var(--unknown); }
table.drift th.resource { font-family: ui-monospace, monospace; font-weight: 400; white-space: nowrap; }
.pages { margin: 1em 0; display: flex; gap: 1em; }
.empty, .note { color: #757575; }
svg.graph { background: #fff; border: 1px solid #e0e0e0; }
svg.graph .node rect { fill: #eceff1; stroke: #90a4ae; stroke-width: 1.5; }
svg.graph .node text { font: 12px ui-monospace, monospace; fill: #fff; }
svg.graph .node.ok rect { fill: var(--ok); } svg.graph .node.changed rect { fill: var(--changed); }
svg.graph .node.pending rect { fill: var(--pending); } svg.graph .node.failed rect { fill: var(--failed); }
svg.graph .node.skipped rect, svg.graph .node.unresolvable rect { fill: var(--skipped); }
svg.graph .edge { fill: none; stroke-width: 1.6; }
.edge-require { stroke: #546e7a; fill: #546e7a; color: #546e7a; } .edge-watch { stroke: #8e24aa; fill: #8e24aa; color: #8e24aa; }
.edge-onchanges { stroke: #1e88e5; fill: #1e88e5; color: #1e88e5; } .edge-onfail { stroke: #e53935; fill: #e53935; color: #e53935; }
.edge-prereq { stroke: #fb8c00; fill: #fb8c00; color: #fb8c00; } .edge-depends { stroke: #43a047; fill: #43a047; color: #43a047; }
svg.graph path.edge { fill: none; }
.edge-key { font-weight: 600; margin-right: .6em; stroke: none; }
.chart { margin: 1em 0; }
`;

/** The live view: results of a running run arrive as HTML fragments over server-sent events. */
const LIVE_JS = `(() => {
  const box = document.getElementById('results');
  const url = box && box.dataset.live;
  if (!url || !window.EventSource) return;
  const es = new EventSource(url);
  es.addEventListener('results', (ev) => { box.innerHTML = ev.data; box.dataset.updates = String(Number(box.dataset.updates || 0) + 1); });
  es.addEventListener('done', () => { es.close(); location.reload(); });
})();
`;

/** Trends: two uPlot charts from /trends.json. */
const TRENDS_JS = `(() => {
  if (!window.uPlot) return;
  fetch('/trends.json', { credentials: 'same-origin' }).then((r) => r.json()).then((pts) => {
    const t = pts.map((p) => p.t);
    const width = Math.min(1000, document.querySelector('main').clientWidth - 20);
    const mk = (id, title, series, data) => new uPlot({ title, width, height: 220, series: [{}, ...series], scales: { x: { time: true } } }, [t, ...data], document.getElementById(id));
    mk('chart-changes', 'Changes and failures per run', [{ label: 'changes', stroke: '#1565c0' }, { label: 'failures', stroke: '#c62828' }], [pts.map((p) => p.changes), pts.map((p) => p.failures)]);
    mk('chart-duration', 'Duration per run (s)', [{ label: 'duration', stroke: '#2e7d32' }], [pts.map((p) => p.durationS)]);
    document.body.dataset.charts = 'drawn';
  });
})();
`;

export interface Asset {
  readonly type: string;
  readonly body: string | Buffer;
}

function fromPackage(pkg: string, file: string): () => Buffer {
  let cached: Buffer | undefined;
  return () => (cached ??= readFileSync(join(dirname(fileURLToPath(import.meta.resolve(`${pkg}/package.json`))), file)));
}

const uplotJs = fromPackage('uplot', 'dist/uPlot.iife.min.js');
const uplotCss = fromPackage('uplot', 'dist/uPlot.min.css');

export function asset(name: string): Asset | undefined {
  switch (name) {
    case 'app.css':
      return { type: 'text/css; charset=utf-8', body: APP_CSS };
    case 'live.js':
      return { type: 'text/javascript; charset=utf-8', body: LIVE_JS };
    case 'trends.js':
      return { type: 'text/javascript; charset=utf-8', body: TRENDS_JS };
    case 'uplot.js':
      return { type: 'text/javascript; charset=utf-8', body: uplotJs() };
    case 'uplot.css':
      return { type: 'text/css; charset=utf-8', body: uplotCss() };
    default:
      return undefined;
  }
}
