/** One run: per host and resource the status, comment, changes and diff; the front end's own output. */
import type { StoredResult, StoredRun } from '../../store/types.js';
import { anchor, duration, type Html, html, shortTime } from '../html.js';
import { page } from '../layout.js';
import { outcomeBadge } from './runs.js';

/** A unified diff with each line marked as added, removed or a hunk header. */
export function renderDiff(diff: string): Html {
  const lines = diff.replace(/\n$/, '').split('\n');
  return html`<pre class="diff">${lines.map((l) => {
    const cls = l.startsWith('+++') || l.startsWith('---') ? 'file' : l.startsWith('@@') ? 'hunk' : l.startsWith('+') ? 'add' : l.startsWith('-') ? 'del' : 'ctx';
    return html`<span class="${cls}">${l}</span>\n`;
  })}</pre>`;
}

function changesCell(r: StoredResult): Html {
  const { diff, ...rest } = r.changes as Record<string, unknown>;
  const keys = Object.keys(rest);
  return html`${keys.length > 0 ? html`<pre class="changes">${JSON.stringify(rest, null, 2)}</pre>` : ''}${typeof diff === 'string' && diff !== '' ? renderDiff(diff) : ''}`;
}

function resultRow(r: StoredResult): Html {
  return html`<tr id="${anchor(r.host, r.id)}" class="result ${r.status}">
<td><span class="badge ${r.status}">${r.status}</span></td>
<td class="resource"><span class="type">${r.type}</span> <span class="name">${r.name}</span>${r.name !== r.id ? html`<div class="id">${r.id}</div>` : ''}
<div class="more"><a href="/resources?host=${encodeURIComponent(r.host)}&amp;resource=${encodeURIComponent(r.id)}">history</a></div></td>
<td class="comment">${r.comment}</td>
<td>${changesCell(r)}</td>
<td class="dur">${duration(Math.round(r.duration))}</td>
</tr>`;
}

/** The results of a run, a section per host; also what the live view sends as it changes. */
export function resultsFragment(run: StoredRun): Html {
  if (run.results.length === 0) return html`<p class="empty">${run.state === 'running' ? 'No results yet.' : 'No results recorded.'}</p>`;
  const hosts = [...new Set(run.results.map((r) => r.host))].sort();
  const c = run.results.reduce<Record<string, number>>((acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }), {});
  return html`<p class="tally">${run.results.length} results: ${Object.entries(c).map(([k, n]) => html`<span class="${k}">${n} ${k}</span> `)}</p>
${hosts.map(
  (h) => html`<section class="host"><h2>Host <span class="hostname">${h}</span></h2>
<table class="results"><thead><tr><th>Status</th><th>Resource</th><th>Comment</th><th>Changes</th><th>Time</th></tr></thead>
<tbody>${run.results.filter((r) => r.host === h).map(resultRow)}</tbody></table></section>`,
)}`;
}

export function runPage(run: StoredRun): string {
  const live = run.state === 'running';
  const body = html`<h1>Run #${run.id} ${outcomeBadge(run.outcome)}</h1>
<dl class="summary">
<dt>Command</dt><dd><code>${run.command}</code></dd>
<dt>Front end</dt><dd>${run.frontEnd} · ${run.mode}</dd>
<dt>Source</dt><dd>${run.source.join(' ')}</dd>
<dt>Started</dt><dd>${shortTime(run.start)}${run.durationMs !== undefined ? html` · took ${duration(run.durationMs)}` : ''}${run.exitCode !== undefined ? html` · exit ${run.exitCode}` : ''}</dd>
<dt>Controller</dt><dd>${run.host}</dd>
<dt>Hosts</dt><dd>${run.hosts.join(', ') || '–'}</dd>
</dl>
<p class="links"><a href="/runs/${run.id}/graph">Graph</a> · <a href="/runs">All runs</a></p>
<div id="results"${live ? html` data-live="/runs/${run.id}/events"` : ''}>${resultsFragment(run)}</div>
${run.output ? html`<details class="output" open><summary>Output of the run</summary><pre>${run.output}</pre></details>` : ''}`;
  return page(`Run #${run.id}`, 'runs', body, live ? { scripts: ['live.js'], refresh: 3 } : {});
}
