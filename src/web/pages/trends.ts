/** Trends: changes, failures and duration per run over time, drawn by uPlot from /trends.json. */
import type { RunStore } from '../../store/types.js';
import { html } from '../html.js';
import { page } from '../layout.js';

export interface TrendPoint {
  readonly id: number;
  /** Seconds since the epoch (uPlot's time scale). */
  readonly t: number;
  readonly changes: number;
  readonly failures: number;
  readonly durationS: number;
}

export async function trendData(store: RunStore, limit = 500): Promise<TrendPoint[]> {
  const page = await store.listRuns({ limit });
  return page.items
    .filter((r) => r.counts)
    .map((r) => ({
      id: r.id,
      t: Math.floor(Date.parse(r.start) / 1000),
      changes: (r.counts?.changed ?? 0) + (r.counts?.pending ?? 0),
      failures: r.counts?.failed ?? 0,
      durationS: (r.durationMs ?? 0) / 1000,
    }))
    .reverse();
}

export async function trendsPage(store: RunStore): Promise<string> {
  const points = await trendData(store, 20);
  const body = html`<h1>Trends</h1>
<p>Changes, failures and duration of the last runs.</p>
<div id="chart-changes" class="chart" data-series="changes"></div>
<div id="chart-duration" class="chart" data-series="duration"></div>
<noscript><p class="note">The charts need JavaScript; the table below does not.</p></noscript>
<h2>Latest runs</h2>
<table class="runs"><thead><tr><th>Run</th><th>Changes</th><th>Failures</th><th>Duration (s)</th></tr></thead><tbody>
${points.reverse().map((p) => html`<tr><td><a href="/runs/${p.id}">#${p.id}</a></td><td>${p.changes}</td><td>${p.failures}</td><td>${p.durationS.toFixed(2)}</td></tr>`)}
</tbody></table>`;
  return page('Trends', 'trends', body, { scripts: ['uplot.js', 'trends.js'] });
}
