/** A resource's history across runs on one host. */
import type { RunStore } from '../../store/types.js';
import { anchor, html, query, shortTime } from '../html.js';
import { page } from '../layout.js';
import { renderDiff } from './run.js';

export async function resourcePage(store: RunStore, host: string, resource: string, before: string | undefined): Promise<string> {
  const b = before && /^\d+$/.test(before) ? Number(before) : undefined;
  const hist = await store.resourceHistory({ host, resource, limit: 50, ...(b !== undefined ? { before: b } : {}) });
  const body = html`<h1>History of <span class="name">${resource}</span> on <span class="hostname">${host}</span></h1>
${hist.items.length === 0
  ? html`<p class="empty">No run recorded this resource on this host.</p>`
  : html`<table class="results"><thead><tr><th>Run</th><th>Started</th><th>Mode</th><th>Status</th><th>Comment</th><th>Diff</th></tr></thead><tbody>
${hist.items.map((e) => {
  const diff = (e.result.changes as { diff?: unknown }).diff;
  return html`<tr class="result ${e.result.status}"><td><a href="/runs/${e.runId}#${anchor(host, resource)}">#${e.runId}</a></td><td>${shortTime(e.start)}</td><td>${e.frontEnd} ${e.mode}</td>
<td><span class="badge ${e.result.status}">${e.result.status}</span></td><td class="comment">${e.result.comment}</td><td>${typeof diff === 'string' && diff ? renderDiff(diff) : ''}</td></tr>`;
})}</tbody></table>`}
${hist.next !== undefined ? html`<nav class="pages"><a rel="next" href="/resources${query({ host, resource, before: hist.next })}">older »</a></nav>` : ''}`;
  return page(`History of ${resource}`, 'drift', body);
}
