/** The rules both backends share: a run's outcome, its hosts, what a result says about drift. */
import { hostname } from 'node:os';
import type { NodeResult, RunMode } from '../core/model.js';
import type { RunCounts, RunState } from './history.js';
import type { DriftEntry, DriftQuery, DriftState, RunEdge, RunOutcome, RunQuery, StoredResult, StoredRun, StoredRunSummary } from './types.js';

/** The machine a result acted on when it does not say: this one. */
export function localHostName(): string {
  try {
    return hostname() || 'local';
  } catch {
    return 'local';
  }
}

/** The host a result names, or `fallback` (the run's one host) when it names none. */
export function hostOf(r: NodeResult, fallback: string): string {
  const host = (r as { host?: unknown }).host;
  return typeof host === 'string' && host !== '' ? host : fallback;
}

export function withHosts(results: readonly NodeResult[], fallback: string): StoredResult[] {
  return results.map((r) => {
    const host = hostOf(r, fallback);
    return host === (r as { host?: unknown }).host ? (r as StoredResult) : { ...r, host };
  });
}

export function hostsOf(results: readonly NodeResult[], fallback = ''): string[] {
  const hosts = new Set<string>();
  for (const r of results) hosts.add(hostOf(r, fallback));
  return [...hosts].sort();
}

/** One run as both backends return it: results carry their host, and the run lists the hosts they name. */
export function storedRun(summary: StoredRunSummary, results: readonly NodeResult[], extra: { output?: string | null | undefined; edges?: readonly RunEdge[] | null | undefined }): StoredRun {
  const stored = withHosts(results, summary.hosts[0] ?? localHostName());
  return {
    ...summary,
    hosts: summary.hosts.length > 0 ? summary.hosts : hostsOf(stored),
    results: stored,
    ...(extra.output !== undefined && extra.output !== null ? { output: extra.output } : {}),
    ...(extra.edges ? { edges: extra.edges } : {}),
  };
}

export function outcomeOf(s: { state: RunState; counts?: RunCounts | undefined; exitCode?: number | undefined }): RunOutcome {
  if (s.state === 'running' || s.state === 'interrupted') return s.state;
  const c = s.counts;
  if ((c && c.failed > 0) || (s.exitCode !== undefined && s.exitCode !== 0 && s.exitCode !== 2)) return 'failed';
  if (c && c.changed + c.pending > 0) return 'changed';
  return 'ok';
}

function time(t: string | Date | undefined): number | undefined {
  if (t === undefined) return undefined;
  const ms = t instanceof Date ? t.getTime() : Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Whether a listed run passes the filters of a query (the cursor and the page size aside). */
export function matchesRunQuery(s: StoredRunSummary, q: RunQuery): boolean {
  const start = Date.parse(s.start);
  const since = time(q.since);
  const until = time(q.until);
  if (since !== undefined && start < since) return false;
  if (until !== undefined && start >= until) return false;
  if (q.frontEnd !== undefined && s.frontEnd !== q.frontEnd) return false;
  if (q.mode !== undefined && s.mode !== q.mode) return false;
  if (q.outcome !== undefined && s.outcome !== q.outcome) return false;
  if (q.host !== undefined && !s.hosts.includes(q.host)) return false;
  if (q.source !== undefined && !s.source.some((x) => x.includes(q.source as string))) return false;
  return true;
}

export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 500;

export function pageSize(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_PAGE;
  return Math.max(1, Math.min(MAX_PAGE, Math.floor(limit)));
}

/**
 * What a result says about its resource's state, or undefined when it says nothing (skipped, unresolvable,
 * or a simulated run that never touched the machine).
 */
export function driftStateOf(status: string, mode: RunMode): DriftState | undefined {
  if (mode === 'simulate') return undefined;
  // A destroy undid what was managed: its resources are no longer known to be in sync (or drifted).
  if (mode === 'destroy') return status === 'failed' ? 'failed' : status === 'skipped' ? undefined : 'unknown';
  switch (status) {
    case 'ok':
    case 'changed':
      return 'ok';
    case 'pending':
      return 'drifted';
    case 'failed':
      return 'failed';
    default:
      return undefined;
  }
}

type DriftRun = { id: number; start: string; mode: RunMode };

/**
 * The drift rule for one result: the resource's new row, or undefined when the result says nothing and
 * a state is already known. `since` stays while the state stays.
 */
function nextDriftRow(prev: DriftRow | undefined, r: NodeResult, host: string, run: DriftRun, into?: DriftRow): DriftRow | undefined {
  const state = driftStateOf(r.status, run.mode);
  if (state === undefined && prev) return undefined;
  const s = state ?? 'unknown';
  const same = prev !== undefined && prev[4] === s;
  const since = same ? prev[9] : run.start;
  const sinceRunId = same ? prev[10] : run.id;
  if (into === undefined) return [host, r.id, r.type, r.name, s, r.status, r.comment, run.id, run.start, since, sinceRunId];
  // The row rewritten where it is (a large index is folded without a new row per resource).
  into[2] = r.type;
  into[3] = r.name;
  into[4] = s;
  into[5] = r.status;
  into[6] = r.comment;
  into[7] = run.id;
  into[8] = run.start;
  into[9] = since;
  into[10] = sinceRunId;
  return into;
}

/** The key of a resource's latest state: its host and its id. */
export function driftKey(host: string, resource: string): string {
  return `${host}\u0000${resource}`;
}

/**
 * Folds one run's results into the latest-state map (key `host\0resource`), as both backends do. A result
 * that names no host is the run's `fallback` host's.
 */
export function foldDrift(latest: Map<string, DriftEntry>, run: DriftRun, results: readonly NodeResult[], fallback = ''): void {
  for (const r of results) {
    const host = hostOf(r, fallback);
    const key = driftKey(host, r.id);
    const prev = latest.get(key);
    const row = nextDriftRow(prev && driftToRow(prev), r, host, run);
    if (row) latest.set(key, driftFromRow(row));
  }
}

/**
 * foldDrift over the index's rows as they are stored, in their order (a large index is folded without an
 * object per entry). A run over the same resources as the one before meets their rows in the same order:
 * each result is matched against the row after the last one matched, and the rows are indexed by key only
 * when that misses again after one pass over the rows (or finds a new resource). A new resource's row is
 * added at the end.
 */
export function foldDriftRows(rows: DriftRow[], run: DriftRun, results: readonly NodeResult[], fallback = ''): void {
  driftRowsFolder(rows, run, fallback)(results);
}

/**
 * foldDriftRows for results that come a piece at a time, in run order: call the folder with each piece.
 * `touched` is told the run id a row held before this run rewrote it.
 */
export function driftRowsFolder(rows: DriftRow[], run: DriftRun, fallback = '', touched?: (previousRunId: number) => void): (results: readonly NodeResult[]) => void {
  let byKey: Map<string, number> | undefined;
  const indexed = (): Map<string, number> => {
    if (byKey === undefined) {
      byKey = new Map();
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i] as DriftRow;
        byKey.set(driftKey(row[0], row[1]), i);
      }
    }
    return byKey;
  };
  // The first miss is looked for by one pass over the rows, without building the index: a run whose rows
  // follow other runs' (another front end's, another host's in the same store) misses only at its start.
  let scanned = false;
  const find = (host: string, id: string): number => {
    if (byKey === undefined && !scanned) {
      scanned = true;
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i] as DriftRow;
        if (row[1] === id && row[0] === host) return i;
      }
    }
    return indexed().get(driftKey(host, id)) ?? -1;
  };
  let next = 0;
  return (results) => {
    for (const r of results) {
      const host = hostOf(r, fallback);
      const here = rows[next];
      const i = here !== undefined && here[1] === r.id && here[0] === host ? next : find(host, r.id);
      const before = i >= 0 && touched !== undefined ? (rows[i] as DriftRow)[7] : undefined;
      const row = i >= 0 ? nextDriftRow(rows[i], r, host, run, rows[i]) : nextDriftRow(undefined, r, host, run);
      if (row !== undefined && before !== undefined) touched?.(Number(before));
      if (i >= 0) {
        next = i + 1;
      } else if (row) {
        indexed().set(driftKey(host, r.id), rows.length);
        rows.push(row);
      }
    }
  };
}

export function matchesDriftQuery(e: DriftEntry, q: DriftQuery): boolean {
  if (q.host !== undefined && e.host !== q.host) return false;
  if (q.state !== undefined && e.state !== q.state) return false;
  if (q.type !== undefined && e.type !== q.type) return false;
  if (q.resource !== undefined && !e.resource.includes(q.resource)) return false;
  return true;
}

/**
 * A drift entry as a tuple, the form both backends move it in: the file index holds 10,000s of them and
 * the database returns them as one JSON array (tuples parse and write about twice as fast as objects).
 */
export type DriftRow = [string, string, string, string, DriftEntry['state'], string, string, number, string, string, number];

export const driftToRow = (e: DriftEntry): DriftRow => [e.host, e.resource, e.type, e.name, e.state, e.status, e.comment, e.runId, e.seen, e.since, e.sinceRunId];

/** Run ids may come back from the database as text (bigint): they are numbers here. */
export const driftFromRow = ([host, resource, type, name, state, status, comment, runId, seen, since, sinceRunId]: DriftRow): DriftEntry => ({
  host,
  resource,
  type,
  name,
  state,
  status,
  comment,
  runId: Number(runId),
  seen,
  since,
  sinceRunId: Number(sinceRunId),
});

export function compareDrift(a: DriftEntry, b: DriftEntry): number {
  return a.host < b.host ? -1 : a.host > b.host ? 1 : a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0;
}

/** Parses `--older-than`: `30d`, `12h`, `90m`, `2w`, or an ISO date; undefined when it is none of them. */
export function parseAge(text: string, now: number = Date.now()): Date | undefined {
  const m = /^(\d+)\s*(m|h|d|w)$/.exec(text.trim());
  if (m) {
    const unit = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[m[2] as 'm' | 'h' | 'd' | 'w'];
    return new Date(now - Number(m[1]) * unit);
  }
  if (/^\d{4}-\d{2}-\d{2}/.test(text.trim())) {
    const ms = Date.parse(text.trim());
    if (!Number.isNaN(ms)) return new Date(ms);
  }
  return undefined;
}
