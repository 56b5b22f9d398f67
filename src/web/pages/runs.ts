/** The runs list: filterable by a plain GET form, paged by a cursor, rendered on the server. */
import { RUN_MODES, type RunMode } from '../../core/model.js';
import { RUN_OUTCOMES, type RunOutcome, type RunQuery, type RunStore, type StoredRunSummary } from '../../store/types.js';
import { duration, type Html, html, query, shortTime } from '../html.js';
import { page } from '../layout.js';

const MODES: readonly RunMode[] = RUN_MODES;
const FRONT_ENDS = ['graph', 'salt', 'converge', 'zapusk', 'otter', 'inmanta'];

export interface RunFilters {
  front_end?: string;
  host?: string;
  mode?: string;
  outcome?: string;
  source?: string;
  since?: string;
  until?: string;
  before?: string;
  limit?: string;
}

export function runQuery(f: RunFilters): RunQuery {
  const time = (t: string | undefined): string | undefined => (t && !Number.isNaN(Date.parse(t)) ? new Date(t).toISOString() : undefined);
  const before = f.before && /^\d+$/.test(f.before) ? Number(f.before) : undefined;
  const since = time(f.since);
  const until = time(f.until);
  return {
    limit: f.limit && /^\d+$/.test(f.limit) ? Number(f.limit) : 50,
    ...(before !== undefined ? { before } : {}),
    ...(f.front_end ? { frontEnd: f.front_end } : {}),
    ...(f.host ? { host: f.host } : {}),
    ...(f.mode && (MODES as readonly string[]).includes(f.mode) ? { mode: f.mode as RunMode } : {}),
    ...(f.outcome && (RUN_OUTCOMES as readonly string[]).includes(f.outcome) ? { outcome: f.outcome as RunOutcome } : {}),
    ...(f.source ? { source: f.source } : {}),
    ...(since ? { since } : {}),
    ...(until ? { until } : {}),
  };
}

function select(name: string, label: string, values: readonly string[], current: string | undefined): Html {
  return html`<label>${label} <select name="${name}"><option value="">any</option>${values.map((v) => html`<option${v === current ? html` selected` : ''}>${v}</option>`)}</select></label>`;
}

function filterForm(f: RunFilters): Html {
  return html`<form class="filters" method="get" action="/runs">
${select('front_end', 'Front end', FRONT_ENDS, f.front_end)}
${select('mode', 'Mode', MODES, f.mode)}
${select('outcome', 'Outcome', RUN_OUTCOMES, f.outcome)}
<label>Host <input name="host" value="${f.host ?? ''}" size="12"></label>
<label>Source <input name="source" value="${f.source ?? ''}" size="14"></label>
<label>Since <input name="since" value="${f.since ?? ''}" placeholder="2026-01-31" size="11"></label>
<label>Until <input name="until" value="${f.until ?? ''}" size="11"></label>
<button type="submit">Filter</button> <a href="/runs">clear</a>
</form>`;
}

export function outcomeBadge(outcome: string): Html {
  return html`<span class="badge ${outcome}">${outcome}</span>`;
}

function countsCell(s: StoredRunSummary): Html {
  const c = s.counts;
  if (!c) return html`<td class="counts">–</td>`;
  const part = (n: number, cls: string, label: string): Html | string => (n > 0 ? html`<span class="${cls}">${n} ${label}</span> ` : '');
  return html`<td class="counts">${part(c.ok, 'ok', 'ok')}${part(c.changed, 'changed', 'changed')}${part(c.pending, 'pending', s.mode === 'collect' ? 'drifted' : 'to change')}${part(c.failed, 'failed', 'failed')}${part(c.skipped + c.unresolvable, 'skipped', 'skipped')}</td>`;
}

function row(s: StoredRunSummary): Html {
  return html`<tr class="run ${s.outcome}" data-run="${s.id}">
<td><a href="/runs/${s.id}">#${s.id}</a></td>
<td>${shortTime(s.start)}</td>
<td>${s.frontEnd}</td>
<td>${s.mode}</td>
<td>${outcomeBadge(s.outcome)}</td>
${countsCell(s)}
<td>${duration(s.durationMs)}</td>
<td>${s.hosts.join(', ')}</td>
<td class="source">${s.source.join(' ')}</td>
</tr>`;
}

export async function runsPage(store: RunStore, f: RunFilters): Promise<string> {
  const q = runQuery(f);
  const result = await store.listRuns(q);
  const keep = { front_end: f.front_end, host: f.host, mode: f.mode, outcome: f.outcome, source: f.source, since: f.since, until: f.until };
  const running = result.items.some((r) => r.outcome === 'running');
  const body = html`<h1>Runs</h1>
${filterForm(f)}
${result.items.length === 0
  ? html`<p class="empty">No runs match.</p>`
  : html`<table class="runs"><thead><tr><th>Run</th><th>Started</th><th>Front end</th><th>Mode</th><th>Outcome</th><th>Results</th><th>Duration</th><th>Hosts</th><th>Source</th></tr></thead>
<tbody>${result.items.map(row)}</tbody></table>`}
<nav class="pages">${q.before !== undefined ? html`<a href="/runs${query(keep)}">« newest</a>` : ''}
${result.next !== undefined ? html`<a rel="next" href="/runs${query({ ...keep, before: result.next })}">older »</a>` : ''}</nav>`;
  return page('Runs', 'runs', body, running ? { refresh: 5 } : {});
}
