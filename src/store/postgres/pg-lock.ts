/**
 * The run lock in PostgreSQL: a session advisory lock per target host, so that two controllers never act
 * on one machine at once while runs on different machines go ahead side by side. The lock goes with the
 * session: a controller that dies (or loses its connection) lets go of it at once.
 */
import type pg from 'pg';
import { StoreError } from '../errors.js';
import type { LockOptions, RunLock } from '../types.js';

/** `cair` */
const LOCK_CLASS = 0x63616972;
const HELD_ENV = 'CAIRN_HELD_PG_LOCK';
const MAX_POLL_MS = 500;


async function heldBy(c: pg.ClientBase, key: string): Promise<number | undefined> {
  const r = await c.query<{ pid: number }>(
    `SELECT l.pid FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1::bigint::oid AND l.objid = (hashtext($2)::bigint & 4294967295)::oid LIMIT 1`,
    [LOCK_CLASS, key],
  );
  return r.rows[0]?.pid;
}

export async function acquireAdvisoryLock(c: pg.ClientBase, host: string, options: LockOptions): Promise<RunLock> {
  const key = `run:${host}`;
  const me = await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const backend = me.rows[0];
  if (!backend) throw new Error('no backend pid for our own session');
  // A run started by a step of a run holding the lock (a Zapusk os step calling cairn) joins it.
  const inherited = process.env[HELD_ENV];
  if (inherited && inherited === `${key}:${await heldBy(c, key)}`) return { release: async () => {} };
  const deadline = Date.now() + options.timeoutMs;
  let poll = 50;
  let told = false;
  for (;;) {
    const got = await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [LOCK_CLASS, key]);
    if (got.rows[0]?.ok) break;
    if (Date.now() >= deadline) {
      const holder = await heldBy(c, key);
      throw new StoreError('locked', `another run holds the run lock for ${host} in the run store${holder ? ` (database session ${holder})` : ''}; try again when it has finished, or raise --lock-timeout`);
    }
    if (!told) {
      told = true;
      const holder = await heldBy(c, key);
      options.onWait?.(holder ? `database session ${holder}` : undefined);
    }
    await new Promise((r) => setTimeout(r, Math.min(poll, Math.max(0, deadline - Date.now()))));
    poll = Math.min(MAX_POLL_MS, Math.ceil(poll * 1.5));
  }
  process.env[HELD_ENV] = `${key}:${backend.pid}`;
  return {
    release: async () => {
      delete process.env[HELD_ENV];
      await c.query('SELECT pg_advisory_unlock($1, hashtext($2))', [LOCK_CLASS, key]).catch(() => {});
    },
  };
}
