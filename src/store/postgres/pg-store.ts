/**
 * The PostgreSQL run store: several controllers and people share one history. A run's row is inserted
 * when it begins (so others see it running) and its results are written with its final row in one
 * transaction when it ends. The run lock is a session advisory lock per target host.
 */
import pg from 'pg';
import type { NodeResult, RunMode } from '../../core/model.js';
import { StoreError } from '../errors.js';
import { countResults } from '../history.js';
import { compareDrift, driftFromRow, type DriftRow, hostsOf, localHostName, outcomeOf, pageSize, storedRun, withHosts } from '../query.js';
import { currentProcess } from '../process-identity.js';
import type {
  BeginInfo,
  DriftEntry,
  DriftQuery,
  FinishInfo,
  LockOptions,
  Page,
  PruneOptions,
  ResourceEvent,
  ResourceHistoryQuery,
  RunEdge,
  RunLock,
  RunQuery,
  RunStore,
  StoredRun,
  StoredRunSummary,
  StoreRunHandle,
} from '../types.js';
import { recordRunDrift } from './drift-sql.js';
import { acquireAdvisoryLock } from './pg-lock.js';
import { migrate, newerSchemaError, SCHEMA_VERSION, schemaVersion } from './migrations.js';
import { redactUrl } from './pg-url.js';
import { recordedCommandLine } from '../../core/command-line.js';

/** A timestamp as JavaScript's toISOString writes it. */
const ISO = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** A running row whose session is gone was interrupted. */
const LIVE_STATE = `CASE WHEN r.state = 'running' AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a
  WHERE a.pid = r.lock_backend AND a.backend_start = r.lock_backend_start) THEN 'interrupted' ELSE r.state END`;
const SUMMARY_COLUMNS = `r.id::float8 AS id, ${LIVE_STATE} AS state, r.front_end, r.source, r.mode, r.command, r.started, r.ended,
  r.duration_ms, r.counts, r.exit_code, r.pid, r.controller, r.hosts, r.outcome`;
const RUNS = `(SELECT ${SUMMARY_COLUMNS}, COALESCE(r.outcome, ${LIVE_STATE}) AS live_outcome FROM cairn_runs r) q`;

interface SummaryRow {
  id: number;
  state: 'running' | 'finished' | 'interrupted';
  front_end: string;
  source: string[];
  mode: RunMode;
  command: string;
  started: Date;
  ended: Date | null;
  duration_ms: number | null;
  counts: StoredRunSummary['counts'] | null;
  exit_code: number | null;
  pid: number;
  controller: string;
  hosts: string[];
}

function toSummary(row: SummaryRow): StoredRunSummary {
  const base = {
    id: row.id,
    state: row.state,
    frontEnd: row.front_end,
    source: row.source,
    mode: row.mode,
    command: row.command,
    start: row.started.toISOString(),
    ...(row.ended ? { end: row.ended.toISOString() } : {}),
    ...(row.duration_ms !== null ? { durationMs: row.duration_ms } : {}),
    ...(row.counts ? { counts: row.counts } : {}),
    ...(row.exit_code !== null ? { exitCode: row.exit_code } : {}),
    pid: row.pid,
    host: row.controller,
    hosts: row.hosts,
  };
  return { ...base, outcome: outcomeOf(base) };
}

export interface PgStoreOptions {
  /** Create or upgrade the schema when it is older than this cairn (run commands, `store migrate`). */
  readonly migrate: boolean;
}

export async function openPgStore(url: string, options: PgStoreOptions): Promise<PgRunStore> {
  const location = redactUrl(url);
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000, application_name: 'cairn' });
  let lost: Error | undefined;
  client.on('error', (e) => {
    lost = e;
  });
  try {
    await client.connect();
  } catch (e) {
    await client.end().catch(() => {});
    throw new StoreError('unreachable', `cannot reach the run store at ${location}: ${(e as Error).message || String(e)}`);
  }
  try {
    const version = await schemaVersion(client);
    if (version > SCHEMA_VERSION) throw newerSchemaError(location, version);
    if (version < SCHEMA_VERSION) {
      if (!options.migrate) {
        throw new StoreError('schema', `the run store at ${location} has schema version ${version}, older than this cairn's (${SCHEMA_VERSION}); run \`cairn store migrate\``);
      }
      await migrate(client, location);
    }
  } catch (e) {
    await client.end().catch(() => {});
    throw StoreError.is(e) ? e : new StoreError('unreachable', `cannot use the run store at ${location}: ${(e as Error).message}`);
  }
  return new PgRunStore(client, location, () => lost);
}

export class PgRunStore implements RunStore {
  readonly kind = 'postgres' as const;

  constructor(
    readonly client: pg.Client,
    readonly location: string,
    private readonly lostConnection: () => Error | undefined,
  ) {}

  async lock(options: LockOptions): Promise<RunLock> {
    // The run's row names this session (pg_backend_pid), which holds the lock: when it ends, the run was interrupted.
    return this.guard('lock a run', () => acquireAdvisoryLock(this.client, localHostName(), options));
  }

  async beginRun(info: BeginInfo): Promise<StoreRunHandle> {
    const who = currentProcess();
    const start = info.start === undefined ? new Date().toISOString() : typeof info.start === 'string' ? info.start : info.start.toISOString();
    const row = await this.guard('record the start of a run', () =>
      this.client.query<{ id: number }>(
        `INSERT INTO cairn_runs (state, front_end, source, mode, command, started, pid, controller, lock_backend, lock_backend_start)
         VALUES ('running', $1, $2, $3, $4, $5, $6, $7, pg_backend_pid(), (SELECT backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()))
         RETURNING id::float8 AS id`,
        [info.frontEnd, [...info.source], info.mode, info.command ?? recordedCommandLine(), start, who.pid, who.host],
      ),
    );
    return { id: Number(row.rows[0]?.id), start };
  }

  async progress(handle: StoreRunHandle, added: readonly NodeResult[]): Promise<void> {
    if (added.length === 0) return;
    try {
      await this.client.query("UPDATE cairn_runs SET partial = COALESCE(partial, '[]'::jsonb) || $2::jsonb WHERE id = $1", [handle.id, JSON.stringify(withHosts(added, localHostName()))]);
    } catch {
      // The live view is best effort; the record written at the end is what counts.
    }
  }

  async finishRun(handle: StoreRunHandle, info: FinishInfo): Promise<void> {
    const results = withHosts(info.stored ? info.results.map(info.stored) : info.results, localHostName());
    const end = info.end === undefined ? new Date().toISOString() : typeof info.end === 'string' ? info.end : info.end.toISOString();
    const counts = countResults(results);
    const hosts = hostsOf(results);
    const durationMs = Math.max(0, Date.parse(end) - Date.parse(handle.start));
    const outcome = outcomeOf({ state: 'finished', counts, exitCode: info.exitCode });
    const c = this.client;
    await this.guard(`record run ${handle.id}`, async () => {
      await c.query('BEGIN');
      try {
        const run = await c.query<{ mode: RunMode }>(
          `UPDATE cairn_runs SET state = 'finished', ended = $2, duration_ms = $3, counts = $4, exit_code = $5, hosts = $6,
             outcome = $7, output = $8, edges = $9, partial = NULL WHERE id = $1 RETURNING mode`,
          [handle.id, end, durationMs, counts, info.exitCode, hosts, outcome, info.output ?? null, info.edges ? JSON.stringify(info.edges.map((e) => ({ from: e.from, to: e.to, kind: e.kind }))) : null],
        );
        await c.query(
          `INSERT INTO cairn_results (run_id, seq, host, resource, status, record)
           SELECT $1, s.ord - 1, s.x->>'host', s.x->>'id', s.x->>'status', s.x FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS s(x, ord)`,
          [handle.id, JSON.stringify(results)],
        );
        await recordRunDrift(c, { id: handle.id, start: handle.start, mode: run.rows[0]?.mode ?? 'apply' }, results);
        await c.query('COMMIT');
      } catch (e) {
        await c.query('ROLLBACK').catch(() => {});
        throw e;
      }
    });
  }

  /**
   * Copies a run from another store (`cairn store import`). `origin` names it there; a run already
   * imported from the same origin is skipped, so an import can be repeated. Returns the new id, or
   * undefined when it was skipped.
   */
  async importRun(run: StoredRun, origin: string): Promise<number | undefined> {
    const c = this.client;
    return this.guard(`import run ${origin}`, async () => {
      await c.query('BEGIN');
      try {
        const row = await c.query<{ id: number }>(
          `INSERT INTO cairn_runs (state, front_end, source, mode, command, started, ended, duration_ms, counts, exit_code, pid, controller,
             hosts, outcome, output, origin, edges)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
           ON CONFLICT (origin) DO NOTHING RETURNING id::float8 AS id`,
          [run.state === 'finished' ? 'finished' : 'running', run.frontEnd, [...run.source], run.mode, run.command, run.start, run.end ?? null,
            run.durationMs ?? null, run.counts ?? null, run.exitCode ?? null, run.pid, run.host, [...run.hosts],
            run.state === 'finished' ? run.outcome : null, run.output ?? null, origin, run.edges ? JSON.stringify(run.edges) : null],
        );
        const id = row.rows[0]?.id;
        if (id !== undefined && run.state === 'finished') {
          await c.query(
            `INSERT INTO cairn_results (run_id, seq, host, resource, status, record)
             SELECT $1, s.ord - 1, s.x->>'host', s.x->>'id', s.x->>'status', s.x FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS s(x, ord)`,
            [id, JSON.stringify(run.results)],
          );
          await recordRunDrift(c, { id, start: run.start, mode: run.mode }, run.results);
        }
        await c.query('COMMIT');
        return id;
      } catch (e) {
        await c.query('ROLLBACK').catch(() => {});
        throw e;
      }
    });
  }

  async listRuns(query: RunQuery = {}): Promise<Page<StoredRunSummary>> {
    const where: string[] = [];
    const args: unknown[] = [];
    const arg = (v: unknown): string => {
      args.push(v);
      return `$${args.length}`;
    };
    if (query.before !== undefined) where.push(`q.id < ${arg(query.before)}`);
    if (query.since !== undefined) where.push(`q.started >= ${arg(new Date(query.since))}`);
    if (query.until !== undefined) where.push(`q.started < ${arg(new Date(query.until))}`);
    if (query.frontEnd !== undefined) where.push(`q.front_end = ${arg(query.frontEnd)}`);
    if (query.mode !== undefined) where.push(`q.mode = ${arg(query.mode)}`);
    if (query.outcome !== undefined) where.push(`q.live_outcome = ${arg(query.outcome)}`);
    if (query.host !== undefined) where.push(`${arg(query.host)} = ANY(q.hosts)`);
    if (query.source !== undefined) where.push(`EXISTS (SELECT 1 FROM unnest(q.source) s WHERE strpos(s, ${arg(query.source)}) > 0)`);
    const size = pageSize(query.limit);
    const sql = `SELECT * FROM ${RUNS} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY q.id DESC LIMIT ${size + 1}`;
    const rows = await this.guard('list runs', () => this.client.query<SummaryRow>(sql, args));
    const items = rows.rows.slice(0, size).map(toSummary);
    const last = items[items.length - 1];
    return rows.rows.length > size && last ? { items, next: last.id } : { items };
  }

  async getRun(id: number | string): Promise<StoredRun | undefined> {
    const wanted = await this.runId(id);
    if (wanted === undefined) return undefined;
    const row = await this.guard('read a run', () =>
      this.client.query<SummaryRow & { output: string | null; partial: NodeResult[] | null; edges: RunEdge[] | null }>(`SELECT q.*, r.output, r.partial, r.edges FROM ${RUNS} JOIN cairn_runs r ON r.id = q.id WHERE q.id = $1`, [wanted]),
    );
    const found = row.rows[0];
    if (!found) return undefined;
    const summary = toSummary(found);
    const results =
      found.state === 'finished'
        ? (await this.client.query<{ record: NodeResult }>('SELECT record FROM cairn_results WHERE run_id = $1 ORDER BY seq', [wanted])).rows.map((r) => r.record)
        : (found.partial ?? []);
    return storedRun(summary, results, { output: found.output, edges: found.edges });
  }

  async drift(query: DriftQuery = {}): Promise<DriftEntry[]> {
    const whole = Object.values(query).every((v) => v === undefined);
    if (!whole) return this.readDrift(query);
    // The whole table is what the dashboard reads over and over: kept while its version number stands.
    const version = await this.guard('read drift', () => this.client.query<{ n: string }>('SELECT n FROM cairn_latest_version'));
    const n = version.rows[0]?.n ?? '';
    if (this.driftCache?.version !== n) this.driftCache = { version: n, entries: await this.readDrift({}) };
    return [...this.driftCache.entries];
  }

  private driftCache: { version: string; entries: readonly DriftEntry[] } | undefined;

  private async readDrift(query: DriftQuery): Promise<DriftEntry[]> {
    const where: string[] = [];
    const args: unknown[] = [];
    const add = (sql: string, v: unknown): void => {
      args.push(v);
      where.push(sql.replace('?', `$${args.length}`));
    };
    if (query.host !== undefined) add('host = ?', query.host);
    if (query.state !== undefined) add('state = ?', query.state);
    if (query.type !== undefined) add('type = ?', query.type);
    if (query.resource !== undefined) add('strpos(resource, ?) > 0', query.resource);
    // One JSON value of tuples instead of 10,000s of rows: the driver's per-row and per-timestamp parsing
    // costs more than the query; times come as ISO text as JavaScript writes them.
    const rows = await this.guard('read drift', () =>
      this.client.query<{ rows: DriftRow[] }>(
        `SELECT coalesce(json_agg(json_build_array(host, resource, type, name, state, status, comment, run_id, ${ISO('seen')}, ${ISO('since')},
           since_run_id)), '[]') AS rows FROM cairn_latest ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`,
        args,
      ),
    );
    return (rows.rows[0]?.rows ?? [])
      .map(driftFromRow)
      .sort(compareDrift);
  }

  async resourceHistory(query: ResourceHistoryQuery): Promise<Page<ResourceEvent>> {
    const size = pageSize(query.limit);
    const args: unknown[] = [query.host, query.resource];
    if (query.before !== undefined) args.push(query.before);
    const rows = await this.guard('read a resource history', () =>
      this.client.query<{ run_id: number; started: Date; mode: RunMode; front_end: string; record: NodeResult }>(
        `SELECT DISTINCT ON (x.run_id) x.run_id::float8 AS run_id, r.started, r.mode, r.front_end, x.record
         FROM cairn_results x JOIN cairn_runs r ON r.id = x.run_id
         WHERE x.host = $1 AND x.resource = $2 ${query.before !== undefined ? 'AND x.run_id < $3' : ''}
         ORDER BY x.run_id DESC, x.seq LIMIT ${size + 1}`,
        args,
      ),
    );
    const items = rows.rows.slice(0, size).map((r) => ({
      runId: r.run_id,
      start: r.started.toISOString(),
      mode: r.mode,
      frontEnd: r.front_end,
      result: withHosts([r.record], query.host)[0] as ResourceEvent['result'],
    }));
    const last = items[items.length - 1];
    return rows.rows.length > size && last ? { items, next: last.runId } : { items };
  }

  async prune(options: PruneOptions): Promise<number> {
    const cond: string[] = [];
    const args: unknown[] = [];
    if (options.keep !== undefined) {
      args.push(options.keep);
      cond.push(`r.id NOT IN (SELECT id FROM cairn_runs ORDER BY id DESC LIMIT $${args.length})`);
    }
    if (options.olderThan !== undefined) {
      args.push(options.olderThan);
      cond.push(`r.started < $${args.length}`);
    }
    if (cond.length === 0) return 0;
    const res = await this.guard('prune runs', () =>
      this.client.query(
        `DELETE FROM cairn_runs r WHERE (${cond.join(' OR ')}) AND ${LIVE_STATE} <> 'running'
           AND r.id <> (SELECT max(id) FROM cairn_runs)`,
        args,
      ),
    );
    return res.rowCount ?? 0;
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => {});
  }

  private async runId(id: number | string): Promise<number | undefined> {
    if (typeof id === 'number') return Number.isSafeInteger(id) && id > 0 ? id : undefined;
    const text = id.trim();
    if (text === 'last' || text === 'latest') {
      const r = await this.guard('read runs', () => this.client.query<{ id: number | null }>('SELECT max(id)::float8 AS id FROM cairn_runs'));
      return r.rows[0]?.id ?? undefined;
    }
    const m = /^#?(\d{1,15})$/.exec(text);
    return m && Number(m[1]) > 0 ? Number(m[1]) : undefined;
  }

  /** Runs a database step; a lost connection or a server error becomes a StoreError naming the step. */
  private async guard<T>(what: string, step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (e) {
      if (StoreError.is(e)) throw e;
      const why = this.lostConnection()?.message ?? (e as Error).message ?? String(e);
      throw new StoreError('unreachable', `cannot ${what} in the run store at ${this.location}: ${why}`);
    }
  }
}
