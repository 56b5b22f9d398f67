/** Drift: hosts × resources, the latest known state of each, linking every cell to the run that saw it. */
import { DRIFT_STATES, type DriftEntry, type DriftQuery, type DriftState, type RunStore } from '../../store/types.js';
import { anchor, type Html, html, shortTime } from '../html.js';
import { page } from '../layout.js';

export interface DriftFilters {
  host?: string;
  state?: string;
  type?: string;
  resource?: string;
}

function driftQuery(f: DriftFilters): DriftQuery {
  return {
    ...(f.host ? { host: f.host } : {}),
    ...(f.state && (DRIFT_STATES as readonly string[]).includes(f.state) ? { state: f.state as DriftState } : {}),
    ...(f.type ? { type: f.type } : {}),
    ...(f.resource ? { resource: f.resource } : {}),
  };
}

function cell(e: DriftEntry | undefined): Html {
  if (!e) return html`<td class="cell none"></td>`;
  return html`<td class="cell ${e.state}"><a href="/runs/${e.runId}#${anchor(e.host, e.resource)}" title="${e.state} since ${shortTime(e.since)} (run #${e.sinceRunId}); last seen in run #${e.runId}: ${e.comment}">${e.state}</a><span class="since">since #${e.sinceRunId}</span></td>`;
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
  const resources = [...byResource.keys()].sort();
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
<tbody>${resources.map((r) => {
    const row = byResource.get(r) as Map<string, DriftEntry>;
    return html`<tr><th class="resource">${r}</th>${hosts.map((h) => cell(row.get(h)))}</tr>`;
  })}</tbody></table></div>`}`;
  return page('Drift', 'drift', body);
}
