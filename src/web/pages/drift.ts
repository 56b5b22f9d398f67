/** Drift: hosts × resources, the latest known state of each, linking every cell to the run that saw it. */
import { DRIFT_STATES, type DriftEntry, type DriftQuery, type DriftState, type RunStore } from '../../store/types.js';
import { anchor, escapeHtml, Html, html, query } from '../html.js';
import { page } from '../layout.js';

export interface DriftFilters {
  host?: string;
  state?: string;
  type?: string;
  resource?: string;
  /** The first resource row shown (paging). */
  from?: string;
}

function driftQuery(f: DriftFilters): DriftQuery {
  return {
    ...(f.host ? { host: f.host } : {}),
    ...(f.state && (DRIFT_STATES as readonly string[]).includes(f.state) ? { state: f.state as DriftState } : {}),
    ...(f.type ? { type: f.type } : {}),
    ...(f.resource ? { resource: f.resource } : {}),
  };
}

/** Resources (rows) per page: 100 rows × 50 hosts is 5,000 cells. */
const ROWS_PER_PAGE = 100;

/** A cell as plain concatenation: a page holds thousands, and every value is still escaped. */
function cell(e: DriftEntry | undefined): string {
  if (!e) return '<td class="cell none"></td>';
  const state = escapeHtml(e.state);
  const run = escapeHtml(String(e.runId));
  const since = escapeHtml(String(e.sinceRunId));
  return (
    `<td class="cell ${state}"><a href="/runs/${run}#${anchor(e.host, e.resource)}" title="${state} since ${escapeHtml(e.since.slice(0, 16).replace('T', ' '))} ` +
    `(run #${since}), last seen in run #${run}">${state}</a><span class="since">since #${since}</span></td>`
  );
}

function rowHtml(resource: string, hosts: readonly string[], row: ReadonlyMap<string, DriftEntry>): string {
  let out = `<tr><th class="resource">${escapeHtml(resource)}</th>`;
  for (const h of hosts) out += cell(row.get(h));
  return `${out}</tr>`;
}

export async function driftPage(store: RunStore, f: DriftFilters): Promise<string> {
  const entries = await store.drift(driftQuery(f));
  const hosts = [...new Set(entries.map((e) => e.host))].sort();
  const byResource = new Map<string, Map<string, DriftEntry>>();
  for (const e of entries) {
    let row = byResource.get(e.resource);
    if (!row) byResource.set(e.resource, (row = new Map()));
    row.set(e.host, e);
  }
  const all = [...byResource.keys()].sort();
  const from = Math.max(0, Number(/^\d+$/.test(f.from ?? '') ? f.from : 0));
  const resources = all.slice(from, from + ROWS_PER_PAGE);
  const keep = { host: f.host, state: f.state, type: f.type, resource: f.resource };
  const counts = DRIFT_STATES.map((s) => [s, entries.filter((e) => e.state === s).length] as const);
  const body = html`<h1>Drift</h1>
<form class="filters" method="get" action="/drift">
<label>Host <input name="host" value="${f.host ?? ''}" size="12"></label>
<label>State <select name="state"><option value="">any</option>${DRIFT_STATES.map((s) => html`<option${s === f.state ? html` selected` : ''}>${s}</option>`)}</select></label>
<label>Type <input name="type" value="${f.type ?? ''}" size="8"></label>
<label>Resource <input name="resource" value="${f.resource ?? ''}" size="14"></label>
<button type="submit">Filter</button> <a href="/drift">clear</a>
</form>
<p class="tally">${entries.length} resource states on ${hosts.length} hosts: ${counts.map(([s, n]) => html`<span class="${s}">${n} ${s}</span> `)}</p>
${entries.length === 0
  ? html`<p class="empty">Nothing recorded yet.</p>`
  : html`<div class="grid-wrap"><table class="drift"><thead><tr><th>Resource</th>${hosts.map((h) => html`<th class="host">${h}</th>`)}</tr></thead>
<tbody>${new Html(resources.map((r) => rowHtml(r, hosts, byResource.get(r) as Map<string, DriftEntry>)).join(''))}</tbody></table></div>
<nav class="pages">${from > 0 ? html`<a href="/drift${query({ ...keep, from: Math.max(0, from - ROWS_PER_PAGE) || undefined })}">« previous resources</a>` : ''}
<span>resources ${from + 1}–${from + resources.length} of ${all.length}</span>
${from + ROWS_PER_PAGE < all.length ? html`<a rel="next" href="/drift${query({ ...keep, from: from + ROWS_PER_PAGE })}">next resources »</a>` : ''}</nav>`}`;
  return page('Drift', 'drift', body);
}
