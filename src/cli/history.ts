/** `cairn history [RUN]` and `cairn history prune`: the recorded runs of a run store. */
import type { RunMode } from '../core/model.js';
import { countResults } from '../core/runtime.js';
import { openRunStore, parseAge, type RunOutcome, type RunQuery, type RunStore, type StoredRunSummary } from '../store/index.js';
import { UserError } from '../engine/errors.js';
import { formatResults, formatSummary } from '../engine/format-text.js';
import { writeOut } from '../engine/stdio.js';

export interface HistoryOptions {
  out: 'text' | 'json';
  store?: string;
  stateDir?: string;
  limit: number;
  host?: string;
  frontEnd?: string;
  mode?: RunMode;
  outcome?: RunOutcome;
  source?: string;
  since?: string;
  until?: string;
  before?: number;
}

function countsText(s: StoredRunSummary): string {
  const c = s.counts;
  if (!c) return '-';
  const changed = s.mode === 'apply' || s.mode === 'simulate' || s.mode === 'destroy' ? `${c.changed} changed` : `${c.pending} ${s.mode === 'collect' ? 'drifted' : 'to change'}`;
  return `${c.ok} ok, ${changed}, ${c.failed} failed, ${c.skipped} skipped`;
}

export function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ')).join('\n');
}

function time(text: string | undefined, flag: string): string | undefined {
  if (text === undefined) return undefined;
  const at = parseAge(text);
  if (!at) throw new UserError(`${flag} ${JSON.stringify(text)}: expected an ISO date (2026-05-01, 2026-05-01T12:00Z) or an age (90m, 12h, 30d, 2w)`);
  return at.toISOString();
}

function queryOf(opts: HistoryOptions): RunQuery {
  const since = time(opts.since, '--since');
  const until = time(opts.until, '--until');
  return {
    limit: opts.limit,
    ...(opts.before !== undefined ? { before: opts.before } : {}),
    ...(opts.host !== undefined ? { host: opts.host } : {}),
    ...(opts.frontEnd !== undefined ? { frontEnd: opts.frontEnd } : {}),
    ...(opts.mode !== undefined ? { mode: opts.mode } : {}),
    ...(opts.outcome !== undefined ? { outcome: opts.outcome } : {}),
    ...(opts.source !== undefined ? { source: opts.source } : {}),
    ...(since !== undefined ? { since } : {}),
    ...(until !== undefined ? { until } : {}),
  };
}

export async function withStore<T>(opts: { store?: string; stateDir?: string }, use: (store: RunStore) => Promise<T>): Promise<T> {
  const store = await openRunStore({ store: opts.store, stateDir: opts.stateDir });
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

export async function showHistory(run: string | undefined, opts: HistoryOptions): Promise<number> {
  return withStore(opts, async (store) => {
    if (run === undefined) {
      const page = await store.listRuns(queryOf(opts));
      const runs = page.items;
      if (opts.out === 'json') {
        writeOut(`${JSON.stringify(runs, null, 2)}\n`);
        return 0;
      }
      if (runs.length === 0) {
        writeOut(`no runs recorded in ${store.location}\n`);
        return 0;
      }
      const rows = [['RUN', 'STARTED', 'MODE', 'STATE', 'EXIT', 'RESULTS', 'SOURCE']];
      for (const s of runs) {
        rows.push([String(s.id), s.start.replace('T', ' ').replace(/\.\d+Z$/, 'Z'), s.mode, s.state, s.exitCode === undefined ? '-' : String(s.exitCode), countsText(s), `${s.frontEnd} ${s.source.join(' ')}`]);
      }
      writeOut(`${table(rows)}\n`);
      if (page.next !== undefined) writeOut(`(more: --before ${page.next})\n`);
      return 0;
    }
    const found = await store.getRun(run);
    if (!found) throw new UserError(`no run ${JSON.stringify(run)} in ${store.location} (cairn history lists the runs)`);
    // With --host, the run as that host saw it: its results and their counts.
    const mine = opts.host === undefined ? found.results : found.results.filter((r) => r.host === opts.host);
    const record = opts.host === undefined ? found : { ...found, results: mine, counts: countResults(mine) };
    if (opts.out === 'json') {
      writeOut(`${JSON.stringify(record, null, 2)}\n`);
      return 0;
    }
    const mode: RunMode = record.mode;
    writeOut(`run ${record.id}: ${record.command}\nstarted ${record.start}, ${record.state}${record.exitCode === undefined ? '' : `, exit ${record.exitCode}`}\n`);
    if (record.hosts.length > 1 || (opts.host !== undefined && record.hosts.length > 0)) writeOut(`hosts: ${record.hosts.join(', ')}\n`);
    if (record.results.length > 0) writeOut(`${formatResults(record.results, mode)}\n`);
    if (record.counts) writeOut(`${formatSummary(mode, record.counts, record.results.length, record.durationMs ?? 0, record.id)}\n`);
    return 0;
  });
}

export interface PruneCliOptions {
  store?: string;
  stateDir?: string;
  keep?: number;
  olderThan?: string;
  lockTimeout: number;
}

/** `cairn history prune --keep N | --older-than D`: under the run lock, so that no run is being written. */
export async function pruneHistory(opts: PruneCliOptions): Promise<number> {
  if (opts.keep === undefined && opts.olderThan === undefined) throw new UserError('history prune: give --keep N or --older-than AGE (or both)');
  const olderThan = time(opts.olderThan, '--older-than');
  return withStore(opts, async (store) => {
    const lock = await store.lock({ timeoutMs: opts.lockTimeout * 1000 });
    try {
      const removed = await store.prune({ ...(opts.keep !== undefined ? { keep: opts.keep } : {}), ...(olderThan !== undefined ? { olderThan: new Date(olderThan) } : {}) });
      writeOut(`removed ${removed} run${removed === 1 ? '' : 's'} from ${store.location}\n`);
      return 0;
    } finally {
      await lock.release();
    }
  });
}
