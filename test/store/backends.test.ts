/**
 * One suite, both backends: the same runs recorded in the file store and in a real PostgreSQL server give
 * the same answers to every query (runs by filter, pages, one run, drift, a resource's history, prune).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { NodeResult, RunMode } from '../../src/core/model.js';
import { FileRunStore } from '../../src/store/file-store.js';
import type { RunStore } from '../../src/store/types.js';
import { openRunStore } from '../../src/store/open.js';
import { tempDir } from './helpers.js';
import { type PgServer, skipLine, startPostgres } from './pg-server.js';

function result(host: string, id: string, status: NodeResult['status'], extra: Partial<NodeResult> = {}): NodeResult & { host: string } {
  return {
    id,
    name: id,
    type: 'file',
    result: status === 'failed' ? false : status === 'pending' ? null : true,
    status,
    changes: status === 'changed' || status === 'pending' ? { diff: `--- ${id}\n+++ ${id}\n@@ -1 +1 @@\n-a\n+b\n` } : {},
    comment: `${id} is ${status}`,
    start: '2026-01-01T00:00:00.000Z',
    duration: 1,
    run_num: 0,
    host,
    ...extra,
  };
}

const T = (i: number): string => `2026-01-01T00:00:0${i}.000Z`;

interface Spec {
  frontEnd: string;
  mode: RunMode;
  source: string[];
  results: NodeResult[];
  exitCode: number;
  output?: string;
}

const RUNS: Spec[] = [
  { frontEnd: 'graph', mode: 'apply', source: ['/srv/site.json'], exitCode: 0, output: 'run 1 output\n', results: [result('a', 'file1', 'changed'), result('a', 'file2', 'ok'), result('b', 'file1', 'ok')] },
  { frontEnd: 'salt', mode: 'check', source: ['/srv/salt'], exitCode: 0, results: [result('a', 'file1', 'pending'), result('a', 'file2', 'ok')] },
  { frontEnd: 'converge', mode: 'apply', source: ['/srv/app.hcl'], exitCode: 1, results: [result('b', 'file1', 'failed')] },
  { frontEnd: 'graph', mode: 'simulate', source: ['/srv/site.json'], exitCode: 0, results: [result('a', 'file1', 'changed')] },
  { frontEnd: 'graph', mode: 'check', source: ['/srv/site.json'], exitCode: 0, results: [result('a', 'file1', 'pending'), result('a', 'file3', 'skipped')] },
];

async function fill(store: RunStore): Promise<void> {
  for (const [i, spec] of RUNS.entries()) {
    const h = await store.beginRun({ frontEnd: spec.frontEnd, mode: spec.mode, source: spec.source, command: `cairn run ${i + 1}`, start: T(i + 1) });
    await store.finishRun(h, { results: spec.results, exitCode: spec.exitCode, end: T(i + 2), ...(spec.output ? { output: spec.output } : {}) });
  }
  // A sixth run still going, its results so far given for the live view in two parts.
  const live = await store.beginRun({ frontEnd: 'otter', mode: 'apply', source: ['/srv/x.otter'], command: 'cairn run 6', start: T(7) });
  await store.progress(live, [result('a', 'step1', 'ok')]);
  await store.progress(live, []);
  await store.progress(live, [result('a', 'step2', 'changed'), result('b', 'step1', 'failed')]);
}

const ids = (p: { items: readonly { id: number }[] }): number[] => p.items.map((r) => r.id);

/** Every query of the suite, as data, so that the two backends' answers can be compared whole. */
async function answers(store: RunStore): Promise<Record<string, unknown>> {
  return {
    all: await store.listRuns(),
    salt: ids(await store.listRuns({ frontEnd: 'salt' })),
    hostB: ids(await store.listRuns({ host: 'b' })),
    check: ids(await store.listRuns({ mode: 'check' })),
    failed: ids(await store.listRuns({ outcome: 'failed' })),
    running: ids(await store.listRuns({ outcome: 'running' })),
    source: ids(await store.listRuns({ source: 'site.json' })),
    since: ids(await store.listRuns({ since: T(3) })),
    until: ids(await store.listRuns({ until: T(3) })),
    page1: await store.listRuns({ limit: 2 }),
    page2: await store.listRuns({ limit: 2, before: 5 }),
    run1: await store.getRun(1),
    last: (await store.getRun('last'))?.id,
    missing: await store.getRun(99),
    live: (await store.getRun(6))?.results.map((r) => `${r.host}/${r.id} ${r.status}`),
    drift: await store.drift(),
    drifted: await store.drift({ state: 'drifted' }),
    driftB: await store.drift({ host: 'b' }),
    history: await store.resourceHistory({ host: 'a', resource: 'file1' }),
    historyPage: await store.resourceHistory({ host: 'a', resource: 'file1', limit: 2 }),
  };
}

function checkAnswers(a: Record<string, unknown>): void {
  const all = a.all as { items: { id: number; outcome: string; hosts: string[] }[] };
  assert.deepEqual(ids(all), [6, 5, 4, 3, 2, 1]);
  assert.deepEqual(all.items.map((r) => r.outcome), ['running', 'changed', 'changed', 'failed', 'changed', 'changed']);
  assert.deepEqual(all.items.map((r) => r.hosts.join(',')), ['', 'a', 'a', 'b', 'a', 'a,b']);
  assert.deepEqual(a.salt, [2]);
  assert.deepEqual(a.hostB, [3, 1]);
  assert.deepEqual(a.check, [5, 2]);
  assert.deepEqual(a.failed, [3]);
  assert.deepEqual(a.running, [6]);
  assert.deepEqual(a.source, [5, 4, 1]);
  assert.deepEqual(a.since, [6, 5, 4, 3]);
  assert.deepEqual(a.until, [2, 1]);
  assert.deepEqual(ids(a.page1 as never), [6, 5]);
  assert.equal((a.page1 as { next?: number }).next, 5);
  assert.deepEqual(ids(a.page2 as never), [4, 3]);
  const run1 = a.run1 as { results: { host: string; id: string; changes: { diff?: string } }[]; output?: string; counts: Record<string, number>; durationMs: number };
  assert.deepEqual(run1.results.map((r) => `${r.host}/${r.id}`), ['a/file1', 'a/file2', 'b/file1']);
  assert.match(run1.results[0]?.changes.diff ?? '', /\+b/);
  assert.equal(run1.output, 'run 1 output\n');
  assert.equal(run1.counts.changed, 1);
  assert.equal(run1.durationMs, 1000);
  assert.equal(a.last, 6);
  assert.equal(a.missing, undefined);
  // What a running run has so far: every part given, in order, each once.
  assert.deepEqual(a.live, ['a/step1 ok', 'a/step2 changed', 'b/step1 failed']);
  const drift = a.drift as { host: string; resource: string; state: string; runId: number; sinceRunId: number }[];
  assert.deepEqual(
    drift.map((e) => `${e.host}/${e.resource} ${e.state} run ${e.runId} since ${e.sinceRunId}`),
    ['a/file1 drifted run 5 since 2', 'a/file2 ok run 2 since 1', 'a/file3 unknown run 5 since 5', 'b/file1 failed run 3 since 3'],
  );
  assert.deepEqual((a.drifted as { resource: string }[]).map((e) => e.resource), ['file1']);
  assert.deepEqual((a.driftB as { state: string }[]).map((e) => e.state), ['failed']);
  assert.deepEqual((a.history as { items: { runId: number }[] }).items.map((e) => e.runId), [5, 4, 2, 1]);
  assert.deepEqual((a.historyPage as { items: { runId: number }[]; next?: number }).items.map((e) => e.runId), [5, 4]);
  assert.equal((a.historyPage as { next?: number }).next, 4);
}

async function prunes(store: RunStore): Promise<unknown> {
  const none = await store.prune({ olderThan: new Date(T(1)) });
  const kept = await store.prune({ keep: 3 });
  const afterKeep = ids(await store.listRuns());
  const old = await store.prune({ olderThan: new Date('2030-01-01T00:00:00Z') });
  const afterOld = ids(await store.listRuns());
  return { none, kept, afterKeep, old, afterOld, drift: (await store.drift()).length, gone: await store.getRun(1) };
}

/** A drift read is never stale: a run recorded after it changes the next answer (both stores keep what they read). */
async function driftFollows(store: RunStore): Promise<string[]> {
  const seen: string[] = [];
  const state = async (): Promise<void> => {
    const e = (await store.drift()).find((x) => x.host === 'b' && x.resource === 'file1');
    seen.push(`${e?.state} since ${e?.sinceRunId}`);
  };
  await state();
  const h = await store.beginRun({ frontEnd: 'graph', mode: 'apply', source: ['/srv/site.json'], start: T(8) });
  await store.finishRun(h, { results: [result('b', 'file1', 'changed')], exitCode: 0, end: T(9) });
  await state();
  return seen;
}

const expectedPrune = { none: 0, kept: 3, afterKeep: [6, 5, 4], old: 2, afterOld: [6], drift: 4, gone: undefined };

let server: PgServer | undefined;
before(async () => {
  server = await startPostgres();
  if (!server) console.log(skipLine('PostgreSQL backend tests'));
});
after(() => server?.stop());

describe('both backends answer the same', () => {
  test('the file store', async (t) => {
    const store = new FileRunStore(tempDir(t));
    await fill(store);
    checkAnswers(await answers(store));
    assert.deepEqual(await prunes(store), expectedPrune);
    assert.deepEqual(await driftFollows(store), ['failed since 3', 'ok since 7']);
  });

  test('PostgreSQL, and the same answers as the file store', async (t) => {
    if (!server) return t.skip('no PostgreSQL');
    const file = new FileRunStore(tempDir(t));
    const db = await openRunStore({ store: await server.newDatabase(), migrate: true });
    t.after(() => db.close());
    assert.equal(db.kind, 'postgres');
    await fill(file);
    await fill(db);
    const fromDb = await answers(db);
    checkAnswers(fromDb);
    assert.deepEqual(JSON.parse(JSON.stringify(fromDb)), JSON.parse(JSON.stringify(await answers(file))));
    assert.deepEqual(await prunes(db), expectedPrune);
    assert.deepEqual(await driftFollows(db), ['failed since 3', 'ok since 7']);
  });
});
