/**
 * The PostgreSQL schema, as a list of numbered migrations. The database records the version it is at in
 * `cairn_schema`; cairn brings an older one up to date in one transaction, under an advisory lock so that
 * two controllers starting at once do not both migrate, and refuses a newer one (written by a later cairn).
 */
import type pg from 'pg';
import { StoreError } from '../errors.js';
import { foldDrift } from '../query.js';
import type { DriftEntry, StoredResult } from '../types.js';
import { upsertDrift } from './drift-sql.js';

interface Migration {
  readonly version: number;
  readonly what: string;
  up(client: pg.ClientBase): Promise<void>;
}

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    what: 'runs and their results',
    async up(c) {
      await c.query(`
        CREATE TABLE cairn_runs (
          id bigserial PRIMARY KEY,
          state text NOT NULL,
          front_end text NOT NULL,
          source text[] NOT NULL,
          mode text NOT NULL,
          command text NOT NULL,
          started timestamptz NOT NULL,
          ended timestamptz,
          duration_ms integer,
          counts jsonb,
          exit_code integer,
          pid integer NOT NULL,
          controller text NOT NULL,
          hosts text[] NOT NULL DEFAULT '{}',
          outcome text,
          output text,
          edges jsonb,
          partial jsonb,
          lock_backend integer,
          lock_backend_start timestamptz,
          origin text UNIQUE
        );
        CREATE INDEX cairn_runs_started ON cairn_runs (started);
        CREATE TABLE cairn_results (
          run_id bigint NOT NULL REFERENCES cairn_runs (id) ON DELETE CASCADE,
          seq integer NOT NULL,
          host text NOT NULL,
          resource text NOT NULL,
          status text NOT NULL,
          record jsonb NOT NULL,
          PRIMARY KEY (run_id, seq)
        );
        CREATE INDEX cairn_results_resource ON cairn_results (host, resource, run_id DESC);
      `);
    },
  },
  {
    version: 2,
    what: 'the latest state of every resource per host (drift)',
    async up(c) {
      await c.query(`
        CREATE TABLE cairn_latest (
          host text NOT NULL,
          resource text NOT NULL,
          type text NOT NULL,
          name text NOT NULL,
          state text NOT NULL,
          status text NOT NULL,
          comment text NOT NULL,
          run_id bigint NOT NULL,
          seen timestamptz NOT NULL,
          since timestamptz NOT NULL,
          since_run_id bigint NOT NULL,
          PRIMARY KEY (host, resource)
        );
        -- Bumped in the transaction that changes cairn_latest: readers keep what they read while it stands.
        CREATE TABLE cairn_latest_version (n bigint NOT NULL);
        INSERT INTO cairn_latest_version VALUES (0);
      `);
      // Runs recorded under version 1 are folded in, oldest first, as new runs will be.
      const runs = await c.query<{ id: string; started: Date; mode: string }>(`SELECT id, started, mode FROM cairn_runs WHERE state = 'finished' ORDER BY id`);
      const latest = new Map<string, DriftEntry>();
      for (const run of runs.rows) {
        const results = await c.query<{ record: StoredResult }>('SELECT record FROM cairn_results WHERE run_id = $1 ORDER BY seq', [run.id]);
        foldDrift(latest, { id: Number(run.id), start: run.started.toISOString(), mode: run.mode as never }, results.rows.map((r) => r.record));
      }
      await upsertDrift(c, [...latest.values()]);
    },
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;
/** The advisory lock key pair (`cair`, 1) that serialises migrations. */
const MIGRATE_LOCK = [0x63616972, 1] as const;

export async function schemaVersion(c: pg.ClientBase): Promise<number> {
  const table = await c.query<{ t: string | null }>(`SELECT to_regclass('cairn_schema')::text AS t`);
  if (!table.rows[0]?.t) return 0;
  const row = await c.query<{ version: number }>('SELECT max(version) AS version FROM cairn_schema');
  return row.rows[0]?.version ?? 0;
}

export function newerSchemaError(location: string, found: number): StoreError {
  return new StoreError(
    'schema',
    `the run store at ${location} has schema version ${found}, newer than this cairn knows (version ${SCHEMA_VERSION}); upgrade cairn to use it`,
  );
}

export interface MigrateOutcome {
  readonly from: number;
  readonly to: number;
  readonly applied: readonly string[];
}

/** Brings the schema to `target` (default: the newest); refuses a database newer than this cairn. */
export async function migrate(c: pg.ClientBase, location: string, target: number = SCHEMA_VERSION): Promise<MigrateOutcome> {
  await c.query('BEGIN');
  try {
    await c.query('SELECT pg_advisory_xact_lock($1, $2)', [...MIGRATE_LOCK]);
    const from = await schemaVersion(c);
    if (from > SCHEMA_VERSION) throw newerSchemaError(location, from);
    if (from === 0) await c.query('CREATE TABLE cairn_schema (version integer NOT NULL, migrated timestamptz NOT NULL DEFAULT now())');
    const applied: string[] = [];
    for (const m of MIGRATIONS) {
      if (m.version <= from || m.version > target) continue;
      await m.up(c);
      await c.query('INSERT INTO cairn_schema (version) VALUES ($1)', [m.version]);
      applied.push(`${m.version}: ${m.what}`);
    }
    await c.query('COMMIT');
    return { from, to: Math.max(from, Math.min(target, SCHEMA_VERSION)), applied };
  } catch (e) {
    await c.query('ROLLBACK').catch(() => {});
    throw e;
  }
}
