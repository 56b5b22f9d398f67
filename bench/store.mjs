// The run store at size: 10,000 runs of 100 results each (50 hosts × 200 resources), in the file store
// (the baseline) and in PostgreSQL (a server started on a temp dir, as the tests do). Measures, in one
// run: recording one more run, the drift query (cold), and the dashboard's run list, drift page and run page
// (server time, through the app without a socket, warm). Prints times and ratios against the file store.
//
//   npm run bench:store            BENCH_RUNS=2000 npm run bench:store   (a smaller store)
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { FileRunStore } from '../src/store/file-store.ts';
import { openRunStore } from '../src/store/open.ts';
import { upsertDrift } from '../src/store/postgres/drift-sql.ts';
import { createDashboard } from '../src/web/server.ts';
import { startPostgres } from '../test/store/pg-server.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 10_000);
const PER_RUN = 100;
const HOSTS = 50;
const RESOURCES = 200;
const REPEAT = Number(process.env.BENCH_REPEAT ?? 5);
const T0 = Date.parse('2026-01-01T00:00:00Z');

const hostOf = (i) => `host${String(i % HOSTS).padStart(2, '0')}`;
const resourceOf = (i, j) => `file-${String((Math.floor(i / HOSTS) % (RESOURCES / PER_RUN)) * PER_RUN + j).padStart(3, '0')}`;
const statusOf = (i, j) => ((i * 7 + j) % 97 === 0 ? 'failed' : (i * 13 + j) % 31 === 0 ? 'changed' : 'ok');
const iso = (ms) => new Date(ms).toISOString();

function resultsOf(i) {
  const start = iso(T0 + i * 60_000);
  return Array.from({ length: PER_RUN }, (_, j) => {
    const status = statusOf(i, j);
    const id = resourceOf(i, j);
    return {
      id,
      name: `/srv/app/${id}`,
      type: 'file',
      result: status !== 'failed',
      status,
      changes: status === 'changed' ? { diff: `--- /srv/app/${id}\n+++ /srv/app/${id}\n@@ -1 +1 @@\n-old ${i}\n+new ${i}\n` } : {},
      comment: status === 'failed' ? 'Permission denied' : status === 'changed' ? 'File updated' : 'File is in the correct state',
      start,
      duration: 1.5,
      run_num: j,
      host: hostOf(i),
    };
  });
}

function countsOf(results) {
  const c = { ok: 0, changed: 0, pending: 0, failed: 0, skipped: 0, unresolvable: 0 };
  for (const r of results) c[r.status]++;
  return c;
}

function summaryOf(i, results) {
  const counts = countsOf(results);
  return {
    v: 1,
    id: i,
    state: 'finished',
    frontEnd: 'graph',
    source: ['/srv/site.json'],
    mode: 'apply',
    command: 'cairn apply /srv/site.json',
    start: iso(T0 + i * 60_000),
    pid: 1,
    host: 'controller',
    end: iso(T0 + i * 60_000 + 1500),
    durationMs: 1500,
    counts,
    exitCode: counts.failed > 0 ? 1 : 0,
    hosts: [hostOf(i)],
  };
}

/** Writes the file store's files directly (the API would rewrite the drift index 10,000 times). */
function fillFileStore(dir) {
  mkdirSync(join(dir, 'runs'), { recursive: true, mode: 0o700 });
  const lines = [];
  for (let i = 1; i <= RUNS; i++) {
    const results = resultsOf(i);
    const summary = summaryOf(i, results);
    lines.push(JSON.stringify(summary));
    writeFileSync(join(dir, 'runs', `${i}.json`), `${JSON.stringify({ ...summary, results })}\n`, { mode: 0o600 });
  }
  writeFileSync(join(dir, 'runs.jsonl'), `${lines.join('\n')}\n`, { mode: 0o600 });
}

/** The same runs in PostgreSQL, in a few set-based statements. */
async function fillDatabase(store, driftEntries) {
  const c = store.client;
  const batch = 500;
  for (let from = 1; from <= RUNS; from += batch) {
    const runs = [];
    const results = [];
    for (let i = from; i < from + batch && i <= RUNS; i++) {
      const rs = resultsOf(i);
      runs.push(summaryOf(i, rs));
      results.push({ i, rs });
    }
    await c.query('BEGIN');
    await c.query(
      `INSERT INTO cairn_runs (id, state, front_end, source, mode, command, started, ended, duration_ms, counts, exit_code, pid, controller, hosts, outcome)
       SELECT r.id, r.state, r."frontEnd", ARRAY(SELECT jsonb_array_elements_text(r.source)), r.mode, r.command, r.start, r."end", r."durationMs", r.counts,
         r."exitCode", r.pid, r.host, ARRAY(SELECT jsonb_array_elements_text(r.hosts)), CASE WHEN r."exitCode" <> 0 THEN 'failed' ELSE 'changed' END
       FROM jsonb_to_recordset($1::jsonb) AS r(id bigint, state text, "frontEnd" text, source jsonb, mode text, command text, start timestamptz,
         "end" timestamptz, "durationMs" int, counts jsonb, "exitCode" int, pid int, host text, hosts jsonb)`,
      [JSON.stringify(runs)],
    );
    for (const { i, rs } of results) {
      await c.query(
        `INSERT INTO cairn_results (run_id, seq, host, resource, status, record)
         SELECT $1, s.ord - 1, s.x->>'host', s.x->>'id', s.x->>'status', s.x FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS s(x, ord)`,
        [i, JSON.stringify(rs)],
      );
    }
    await c.query('COMMIT');
  }
  await c.query(`SELECT setval('cairn_runs_id_seq', $1)`, [RUNS]);
  await upsertDrift(c, driftEntries);
  await c.query('ANALYZE');
}

/** The median of REPEAT timed calls, after two untimed ones (the first calls of a path mostly time the JIT). */
async function median(fn) {
  const times = [];
  for (let k = -2; k < REPEAT; k++) {
    if (k < 0) {
      await fn(REPEAT - k);
      continue;
    }
    const t = performance.now();
    await fn(k);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

async function measure(store) {
  let next = RUNS + 1;
  const record = await median(async () => {
    const i = next++;
    const h = await store.beginRun({ frontEnd: 'graph', mode: 'apply', source: ['/srv/site.json'], command: 'cairn apply /srv/site.json' });
    await store.finishRun(h, { results: resultsOf(i), exitCode: 0 });
  });
  let size = 0;
  // Cold: both stores keep the drift they read while it is unchanged (the file's stamp, the database's
  // version row); touching the file or bumping the version makes them read it again.
  const drift = await median(async (k) => {
    if (store.kind === 'file') utimesSync(join(store.dir, 'drift.json'), new Date(), new Date(Date.now() + k * 1000));
    else await store.client.query('UPDATE cairn_latest_version SET n = n + 1');
    size = (await store.drift()).length;
  });
  const app = createDashboard(store);
  const page = async (path) => {
    const res = await app.request(path);
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    return (await res.text()).length;
  };
  const runsPage = await median(() => page('/runs'));
  const driftPage = await median(() => page('/drift'));
  const runPage = await median(() => page(`/runs/${RUNS}`));
  return { record, drift, size, runsPage, driftPage, runPage };
}

const fmt = (ms) => `${ms.toFixed(1)} ms`.padStart(10);
const work = mkdtempSync(join(tmpdir(), 'cairn-bench-store-'));
let server;
try {
  console.log(`run store at ${RUNS} runs × ${PER_RUN} results (${HOSTS} hosts × ${RESOURCES} resources), median of ${REPEAT}`);
  let t = performance.now();
  const dir = join(work, 'file');
  fillFileStore(dir);
  const file = new FileRunStore(dir);
  const entries = await file.drift();
  console.log(`  filled the file store in ${((performance.now() - t) / 1000).toFixed(1)} s (drift index: ${entries.length} entries)`);
  const rows = [['file store (baseline)', await measure(file)]];

  server = await startPostgres();
  if (!server) console.log('  SKIPPED PostgreSQL: no server binaries (install Debian\'s postgresql)');
  else {
    t = performance.now();
    const db = await openRunStore({ store: await server.newDatabase(), migrate: true });
    await fillDatabase(db, entries);
    console.log(`  filled PostgreSQL in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    rows.push(['PostgreSQL', await measure(db)]);
    await db.close();
  }

  const base = rows[0][1];
  console.log(`\n${'backend'.padEnd(22)}${'record 1 run'.padStart(14)}${'drift query'.padStart(14)}${'runs page'.padStart(14)}${'drift page'.padStart(14)}${'run page'.padStart(14)}`);
  for (const [name, m] of rows) {
    console.log(`${name.padEnd(22)}${fmt(m.record).padStart(14)}${fmt(m.drift).padStart(14)}${fmt(m.runsPage).padStart(14)}${fmt(m.driftPage).padStart(14)}${fmt(m.runPage).padStart(14)}`);
  }
  for (const [name, m] of rows.slice(1)) {
    console.log(
      `\n${name} / file store: record ${(m.record / base.record).toFixed(2)}×, drift ${(m.drift / base.drift).toFixed(2)}×, ` +
        `runs page ${(m.runsPage / base.runsPage).toFixed(2)}×, drift page ${(m.driftPage / base.driftPage).toFixed(2)}×`,
    );
  }
  for (const [name, m] of rows) {
    const ok = m.runsPage <= 200 && m.driftPage <= 200;
    console.log(`${name}: drift has ${m.size} entries; run list and drift page ${ok ? 'within' : 'OVER'} the 200 ms target`);
  }
} finally {
  server?.stop();
  rmSync(work, { recursive: true, force: true });
}
