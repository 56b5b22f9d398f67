/** `cairn store migrate` and `cairn store import`: looking after a PostgreSQL run store. */
import { hostname } from 'node:os';
import { FileRunStore, openRunStore, storeUrl, StoreError } from '../store/index.js';
import { isDatabaseUrl } from '../store/open.js';
import { defaultStateDir } from '../store/state-dir.js';
import { UserError } from '../engine/errors.js';
import { writeOut } from '../engine/stdio.js';

function databaseUrl(opts: { store?: string }, command: string): string {
  const url = storeUrl({ store: opts.store });
  if (url === undefined || !isDatabaseUrl(url)) {
    throw new UserError(`store ${command}: give the database with --store postgres://… (or $CAIRN_STORE)`);
  }
  return url;
}

export async function migrateStore(opts: { store?: string }): Promise<number> {
  const url = databaseUrl(opts, 'migrate');
  const { openPgStore } = await import('../store/postgres/pg-store.js');
  const { migrate, SCHEMA_VERSION } = await import('../store/postgres/migrations.js');
  // Opened without migrating, so that the versions before and after can be told.
  const store = await openPgStore(url, { migrate: false }).catch((e: unknown) => {
    if (StoreError.is(e) && e.code === 'schema' && /older than/.test(e.message)) return undefined;
    throw e;
  });
  if (store) {
    await store.close();
    writeOut(`the run store is at schema version ${SCHEMA_VERSION}, the newest; nothing to do\n`);
    return 0;
  }
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    const { redactUrl } = await import('../store/postgres/pg-url.js');
    const done = await migrate(client, redactUrl(url));
    for (const step of done.applied) writeOut(`applied migration ${step}\n`);
    writeOut(`the run store is at schema version ${done.to} (was ${done.from})\n`);
    return 0;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Copies every run of a file store into the database, oldest first; runs imported before are skipped. */
export async function importStore(opts: { store?: string; from?: string; stateDir?: string }): Promise<number> {
  const url = databaseUrl(opts, 'import');
  const dir = opts.from ?? opts.stateDir ?? defaultStateDir();
  const file = new FileRunStore(dir);
  const db = await openRunStore({ store: url, migrate: true });
  try {
    const ids: number[] = [];
    for (let before: number | undefined; ; ) {
      const page = await file.listRuns({ limit: 500, ...(before !== undefined ? { before } : {}) });
      ids.push(...page.items.map((r) => r.id));
      if (page.next === undefined) break;
      before = page.next;
    }
    if (ids.length === 0 && !(await file.getRun('last'))) writeOut(`no runs in ${file.location}\n`);
    let copied = 0;
    let skipped = 0;
    const importer = db as unknown as { importRun(run: unknown, origin: string): Promise<number | undefined> };
    for (const id of ids.sort((a, b) => a - b)) {
      const run = await file.getRun(id);
      if (!run || run.state === 'running') continue;
      const got = await importer.importRun(run, `file:${hostname()}:${file.location}#${id}`);
      if (got === undefined) skipped++;
      else copied++;
    }
    writeOut(`imported ${copied} run${copied === 1 ? '' : 's'} from ${file.location} into ${db.location}${skipped ? ` (${skipped} imported before)` : ''}\n`);
    return 0;
  } finally {
    await db.close();
  }
}
