/** Keeping `cairn_latest` (the drift table) up to date, with the same rule as the file store's foldDrift. */
import type pg from 'pg';
import type { RunMode } from '../../core/model.js';
import { driftKey, driftStateOf } from '../query.js';
import type { DriftEntry, StoredResult } from '../types.js';

/** Writes whole entries (a rebuild); an existing row is replaced. */
export async function upsertDrift(c: pg.ClientBase, entries: readonly DriftEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await c.query(
    `INSERT INTO cairn_latest AS l (host, resource, type, name, state, status, comment, run_id, seen, since, since_run_id)
     SELECT d.host, d.resource, d.type, d.name, d.state, d.status, d.comment, d."runId", d.seen, d.since, d."sinceRunId"
     FROM jsonb_to_recordset($1::jsonb) AS d(host text, resource text, type text, name text, state text, status text,
       comment text, "runId" bigint, seen timestamptz, since timestamptz, "sinceRunId" bigint)
     ON CONFLICT (host, resource) DO UPDATE SET type = excluded.type, name = excluded.name, state = excluded.state,
       status = excluded.status, comment = excluded.comment, run_id = excluded.run_id, seen = excluded.seen,
       since = excluded.since, since_run_id = excluded.since_run_id`,
    [JSON.stringify(entries)],
  );
}

/**
 * Folds one finished run into the drift table: a result that tells the state moves the row (keeping its
 * `since` while the state is unchanged); one that tells nothing (skipped, a simulation) only adds a row
 * for a resource never seen before, as `unknown`.
 */
export async function recordRunDrift(c: pg.ClientBase, run: { id: number; start: string; mode: RunMode }, results: readonly StoredResult[]): Promise<void> {
  await c.query('UPDATE cairn_latest_version SET n = n + 1');
  // One row per resource and host: the last result wins, as in foldDrift.
  const told = new Map<string, object>();
  const silent = new Map<string, object>();
  for (const r of results) {
    const key = driftKey(r.host, r.id);
    const state = driftStateOf(r.status, run.mode);
    const row = { host: r.host, resource: r.id, type: r.type, name: r.name, state: state ?? 'unknown', status: r.status, comment: r.comment };
    if (state === undefined) {
      if (!told.has(key)) silent.set(key, row);
    } else {
      told.set(key, row);
      silent.delete(key);
    }
  }
  const columns = `FROM jsonb_to_recordset($1::jsonb) AS d(host text, resource text, type text, name text, state text, status text, comment text)`;
  if (told.size > 0) {
    await c.query(
      `INSERT INTO cairn_latest AS l (host, resource, type, name, state, status, comment, run_id, seen, since, since_run_id)
       SELECT d.host, d.resource, d.type, d.name, d.state, d.status, d.comment, $2, $3, $3, $2 ${columns}
       ON CONFLICT (host, resource) DO UPDATE SET type = excluded.type, name = excluded.name, state = excluded.state,
         status = excluded.status, comment = excluded.comment, run_id = excluded.run_id, seen = excluded.seen,
         since = CASE WHEN l.state = excluded.state THEN l.since ELSE excluded.since END,
         since_run_id = CASE WHEN l.state = excluded.state THEN l.since_run_id ELSE excluded.since_run_id END
       WHERE l.seen <= excluded.seen`,
      [JSON.stringify([...told.values()]), run.id, run.start],
    );
  }
  if (silent.size > 0) {
    await c.query(
      `INSERT INTO cairn_latest (host, resource, type, name, state, status, comment, run_id, seen, since, since_run_id)
       SELECT d.host, d.resource, d.type, d.name, d.state, d.status, d.comment, $2, $3, $3, $2 ${columns}
       ON CONFLICT (host, resource) DO NOTHING`,
      [JSON.stringify([...silent.values()]), run.id, run.start],
    );
  }
}
