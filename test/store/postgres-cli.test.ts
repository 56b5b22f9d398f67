/**
 * The CLI on a real PostgreSQL run store: runs recorded and listed, an unreachable database refused before
 * anything acts, a newer schema refused with both versions named, migrations, import from a file store,
 * prune, the advisory run lock, an interrupted run, and a database lost in the middle of a run.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { migrate } from '../../src/store/postgres/migrations.js';
import { CAIRN, cairn, tempDir } from '../cli/cli-helpers.js';
import { type PgServer, skipLine, startPostgres } from './pg-server.js';

let server: PgServer | undefined;
before(async () => {
  server = await startPostgres();
  if (!server) console.log(skipLine('PostgreSQL run store CLI tests'));
});
after(() => server?.stop());

function fileGraph(dir: string, name: string, content: string, extra: unknown[] = []): string {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ version: 1, nodes: [{ id: name, type: 'file', params: { path: join(dir, `${name}.txt`), content } }, ...extra] }));
  return file;
}

async function sql(url: string, text: string): Promise<pg.QueryResult> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await c.query(text);
  } finally {
    await c.end();
  }
}

test('runs are recorded in the database and listed from it; the file store is not touched', async (t) => {
  if (!server) return t.skip('no PostgreSQL');
  const url = await server.newDatabase();
  const dir = tempDir();
  const state = join(dir, 'state');
  const env = { CAIRN_STATE_DIR: state };
  assert.equal(cairn(['apply', fileGraph(dir, 'a', 'one\n'), '--store', url], { env }).code, 0);
  const second = cairn(['apply', fileGraph(dir, 'a', 'two\n')], { env: { ...env, CAIRN_STORE: url } });
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, /run 2\)/);
  const list = cairn(['history', '--store', url]);
  assert.match(list.stdout, /^2 .*apply\s+finished\s+0\s+0 ok, 1 changed/m);
  assert.match(list.stdout, /^1 /m);
  const one = JSON.parse(cairn(['history', '2', '--store', url, '--out', 'json']).stdout);
  assert.match(one.results[0].changes.diff, /-one\n\+two/);
  assert.equal(typeof one.results[0].host, 'string');
  assert.match(one.output, /run 2\)/);
  assert.equal(existsSync(state), false);
  const rows = await sql(url, 'SELECT count(*)::int AS n FROM cairn_results');
  assert.equal(rows.rows[0].n, 2);
});

test('an unreachable database: a clear error, exit 1, and nothing applied', async (t) => {
  if (!server) return t.skip('no PostgreSQL');
  const dir = tempDir();
  const url = `postgres://cairn:hunter2@127.0.0.1:${server.port + 1}/nowhere`;
  const r = cairn(['apply', fileGraph(dir, 'b', 'x\n'), '--store', url]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^cairn: cannot reach the run store at postgres:\/\/cairn:\*\*\*@127\.0\.0\.1:\d+\/nowhere: /);
  assert.doesNotMatch(r.stderr, /hunter2|\n\s+at /);
  assert.equal(existsSync(join(dir, 'b.txt')), false);
});

test('a database with a newer schema is refused, naming both versions; store migrate brings an old one up', async (t) => {
  if (!server) return t.skip('no PostgreSQL');
  const url = await server.newDatabase();
  const m = cairn(['store', 'migrate', '--store', url]);
  assert.equal(m.code, 0, m.stderr);
  assert.match(m.stdout, /applied migration 1: runs and their results\napplied migration 2: the latest state/);
  assert.match(m.stdout, /schema version 2 \(was 0\)/);
  assert.match(cairn(['store', 'migrate', '--store', url]).stdout, /nothing to do/);
  await sql(url, 'INSERT INTO cairn_schema (version) VALUES (9)');
  const dir = tempDir();
  const r = cairn(['apply', fileGraph(dir, 'c', 'x\n'), '--store', url]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /has schema version 9, newer than this cairn knows \(version 2\); upgrade cairn/);
  assert.equal(existsSync(join(dir, 'c.txt')), false);
  assert.equal(cairn(['store', 'migrate', '--store', url]).code, 1);

  // From version 1 (runs only) to 2: the drift table is filled from the runs already there.
  const old = await server.newDatabase();
  const c = new pg.Client({ connectionString: old });
  await c.connect();
  await migrate(c, 'test', 1);
  await c.end();
  assert.match(cairn(['history', '--store', old]).stderr, /schema version 1, older than this cairn's \(2\); run `cairn store migrate`/);
  const up = cairn(['store', 'migrate', '--store', old]);
  assert.match(up.stdout, /applied migration 2: .*\n.*schema version 2 \(was 1\)/);
});

test('store import copies a file store once; history prune keeps the newest runs', async (t) => {
  if (!server) return t.skip('no PostgreSQL');
  const url = await server.newDatabase();
  const dir = tempDir();
  const state = join(dir, 'state');
  for (const v of ['1\n', '2\n', '3\n']) assert.equal(cairn(['apply', fileGraph(dir, 'd', v), '--state-dir', state]).code, 0);
  const imp = cairn(['store', 'import', '--from', state, '--store', url]);
  assert.equal(imp.code, 0, imp.stderr);
  assert.match(imp.stdout, /imported 3 runs from .* into postgres:\/\//);
  assert.match(cairn(['store', 'import', '--from', state, '--store', url]).stdout, /imported 0 runs .*\(3 imported before\)/);
  const fromDb = JSON.parse(cairn(['history', '--store', url, '--out', 'json']).stdout) as { source: string[]; counts: unknown }[];
  const fromFile = JSON.parse(cairn(['history', '--state-dir', state, '--out', 'json']).stdout) as { source: string[]; counts: unknown }[];
  assert.deepEqual(fromDb.map((r) => [r.source, r.counts]), fromFile.map((r) => [r.source, r.counts]));
  const pruned = cairn(['history', 'prune', '--keep', '1', '--store', url]);
  assert.match(pruned.stdout, /removed 2 runs from postgres/);
  assert.equal((JSON.parse(cairn(['history', '--store', url, '--out', 'json']).stdout) as unknown[]).length, 1);
});

test('the run lock is an advisory lock: a second run waits or gives up; a killed run shows as interrupted', async (t) => {
  if (!server) return t.skip('no PostgreSQL');
  const url = await server.newDatabase();
  const dir = tempDir();
  const flag = join(dir, 'go');
  const slow = fileGraph(dir, 'e', 'x\n', [{ id: 'wait', type: 'command', params: { cmd: `touch ${join(dir, 'started')}; while [ ! -e ${flag} ]; do sleep 0.1; done` } }]);
  const holder = spawn(process.execPath, [CAIRN, 'apply', slow, '--store', url], { stdio: 'ignore' });
  const exited = new Promise((r) => holder.on('exit', r));
  while (!existsSync(join(dir, 'started'))) await new Promise((r) => setTimeout(r, 50));
  const second = cairn(['apply', fileGraph(dir, 'f', 'y\n'), '--store', url, '--lock-timeout', '0']);
  assert.equal(second.code, 1);
  assert.match(second.stderr, /another run holds the run lock for \S+ in the run store \(database session \d+\)/);
  assert.equal(existsSync(join(dir, 'f.txt')), false);
  assert.match(cairn(['history', '--store', url]).stdout, /^1 .*running/m);
  holder.kill('SIGKILL');
  await exited;
  // The killed run's command was left running on its own: the flag ends its loop.
  writeFileSync(flag, '');
  // The session went with the process: the run is interrupted and the lock is free.
  let list = '';
  for (let i = 0; i < 50 && !/interrupted/.test(list); i++) {
    await new Promise((r) => setTimeout(r, 100));
    list = cairn(['history', '--store', url]).stdout;
  }
  assert.match(list, /^1 .*interrupted/m);
  assert.equal(cairn(['apply', fileGraph(dir, 'f', 'y\n'), '--store', url, '--lock-timeout', '5']).code, 0);
});

test('a database lost during a run: the run applies, prints, and says it was not recorded', async (t) => {
  if (!server) return t.skip('no PostgreSQL');
  if (!existsSync('/usr/bin/psql')) return t.skip('no psql');
  const url = await server.newDatabase();
  const dir = tempDir();
  const kill = `psql '${url}' -qAtc "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'cairn'"`;
  const g = fileGraph(dir, 'g', 'z\n', [{ id: 'cut', type: 'command', params: { cmd: kill }, require: ['g'] }]);
  const r = cairn(['apply', g, '--store', url]);
  assert.equal(r.code, 1);
  assert.match(r.stdout, /Applied: 2 changed/);
  assert.match(r.stderr, /cannot record run 1 in the run store at postgres:\/\/.*\nrun 1 finished \(exit 0\) and its results are above, but it was not recorded/);
  assert.equal(existsSync(join(dir, 'g.txt')), true);
});
