import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { NodeResult, NodeStatus } from '../../src/core/model.js';
import {
  beginRun,
  countResults,
  finishRun,
  getRun,
  listRuns,
  parseRunId,
  recordRun,
  StoreError,
} from '../../src/store/index.js';
import { deadPid, tempDir } from './helpers.js';

function result(i: number, status: NodeStatus = 'ok', extra: Partial<NodeResult> = {}): NodeResult {
  return {
    id: `file_/etc/app/${i}.conf`,
    name: `/etc/app/${i}.conf`,
    type: 'file',
    result: status === 'failed' ? false : status === 'pending' ? null : true,
    status,
    changes: status === 'changed' ? { diff: `--- a\n+++ b\n@@ -1 +1 @@\n-old ${i}\n+new ${i} ✓\n` } : {},
    comment: status === 'ok' ? 'File is in the correct state' : 'File updated',
    start: '2026-11-22T07:15:00.000Z',
    duration: 1.25,
    run_num: i + 1,
    ...extra,
  };
}

const run = (results: NodeResult[] = [], exitCode = 0) => ({
  frontEnd: 'graph',
  source: ['site.json'],
  mode: 'apply' as const,
  command: 'cairn apply site.json',
  results,
  exitCode,
});

test('run ids are 1, 2, 3, … per state directory', (t) => {
  const dir = tempDir(t);
  assert.deepEqual(
    [1, 2, 3].map(() => recordRun(dir, run()).id),
    [1, 2, 3],
  );
  const handle = beginRun(dir, run());
  assert.equal(handle.id, 4);
  finishRun(handle, run());
  assert.equal(recordRun(dir, run()).id, 5);
  assert.equal(recordRun(tempDir(t), run()).id, 1, 'another state directory counts on its own');
});

test('a recorded run reads back whole, and the list shows newest first', (t) => {
  const dir = tempDir(t);
  const results = [result(0), result(1, 'changed'), result(2, 'failed'), result(3, 'skipped'), result(4, 'pending')];
  const first = recordRun(dir, {
    ...run(results, 1),
    source: ['a.sls', 'ünïcode/b.sls'],
    frontEnd: 'salt',
    mode: 'check',
    start: new Date('2026-11-22T07:15:00.000Z'),
    end: '2026-11-22T07:15:02.500Z',
  });
  const second = recordRun(dir, run([result(9, 'unresolvable')]));

  assert.deepEqual(first.counts, { ok: 1, changed: 1, pending: 1, failed: 1, skipped: 1, unresolvable: 0 });
  assert.equal(first.durationMs, 2500);
  const got = getRun(dir, 1);
  assert.ok(got);
  assert.deepEqual(got, JSON.parse(JSON.stringify(first)));
  assert.deepEqual(got.results, results);
  assert.equal(got.state, 'finished');
  assert.deepEqual(
    { frontEnd: got.frontEnd, source: got.source, mode: got.mode, exitCode: got.exitCode, pid: got.pid },
    { frontEnd: 'salt', source: ['a.sls', 'ünïcode/b.sls'], mode: 'check', exitCode: 1, pid: process.pid },
  );

  const list = listRuns(dir);
  assert.deepEqual(
    list.map((s) => [s.id, s.state, s.exitCode]),
    [
      [2, 'finished', 0],
      [1, 'finished', 1],
    ],
  );
  assert.equal('results' in (list[0] ?? {}), false, 'summaries carry no results');
  assert.deepEqual(list[0]?.counts, second.counts);
  assert.deepEqual(
    listRuns(dir, { limit: 1 }).map((s) => s.id),
    [2],
  );
  assert.deepEqual(listRuns(dir, { limit: 0 }), []);
  assert.deepEqual(listRuns(tempDir(t)), [], 'an empty state directory has no runs');
});

test('getRun takes the ids a user types, and undefined for an unknown run', (t) => {
  const dir = tempDir(t);
  assert.equal(getRun(dir, 'last'), undefined);
  recordRun(dir, run());
  recordRun(dir, run([result(1)]));
  assert.equal(getRun(dir, '2')?.results.length, 1);
  assert.equal(getRun(dir, '#1')?.id, 1);
  assert.equal(getRun(dir, ' 1 ')?.id, 1);
  assert.equal(getRun(dir, 'last')?.id, 2);
  assert.equal(getRun(dir, 'latest')?.id, 2);
  for (const bad of [3, 0, -1, 1.5, '3', 'abc', '', '1e3', '0x1']) assert.equal(getRun(dir, bad), undefined, String(bad));
  assert.equal(parseRunId('007'), 7);
  assert.equal(parseRunId('last'), undefined, 'last needs a state directory');
});

test('corrupt and torn lines in runs.jsonl are skipped, and appends after them still parse', (t) => {
  const dir = tempDir(t);
  recordRun(dir, run());
  const jsonl = join(dir, 'runs.jsonl');
  appendFileSync(jsonl, 'not json at all\n{"v":1,"id":"x","state":"finished"}\n[]\nnull\n\n{"v":1,"id":2,"sta');
  assert.deepEqual(
    listRuns(dir).map((s) => s.id),
    [1],
  );
  assert.equal(recordRun(dir, run([result(0)])).id, 2);
  assert.deepEqual(
    listRuns(dir).map((s) => s.id),
    [2, 1],
  );
  const lines = readFileSync(jsonl, 'utf8').split('\n');
  assert.equal(lines.at(-1), '', 'the file ends with a newline');
  assert.equal(lines.filter((l) => l.startsWith('{"v":1,"id":2,"state"')).length, 2, 'begin and finish lines whole');
  assert.equal(getRun(dir, 2)?.results.length, 1);
});

test('a run that began but never finished shows as running while its process lives, interrupted after', (t) => {
  const dir = tempDir(t);
  const handle = beginRun(dir, run());
  assert.equal(listRuns(dir)[0]?.state, 'running');
  assert.deepEqual(getRun(dir, handle.id)?.results, []);
  assert.equal(getRun(dir, handle.id)?.state, 'running');

  // The same line as written by a process that has since died.
  const jsonl = join(dir, 'runs.jsonl');
  const line = JSON.parse(readFileSync(jsonl, 'utf8').trim()) as Record<string, unknown>;
  appendFileSync(jsonl, `${JSON.stringify({ ...line, id: 2, pid: deadPid(), pstart: undefined })}\n`);
  assert.deepEqual(
    listRuns(dir).map((s) => [s.id, s.state]),
    [
      [2, 'interrupted'],
      [1, 'running'],
    ],
  );
  assert.equal(getRun(dir, 2)?.state, 'interrupted');
  assert.equal('pstart' in (listRuns(dir)[0] ?? {}), false, 'process identity details stay internal');
  assert.equal(recordRun(dir, run()).id, 3);

  finishRun(handle, run());
  assert.equal(getRun(dir, 1)?.state, 'finished');
  assert.equal(listRuns(dir).find((s) => s.id === 1)?.state, 'finished', 'the last line for an id wins');
});

test('a run whose record file is missing or corrupt still shows its summary', (t) => {
  const dir = tempDir(t);
  recordRun(dir, run([result(0)]));
  recordRun(dir, run([result(0)]));
  rmSync(join(dir, 'runs', '1.json'));
  writeFileSync(join(dir, 'runs', '2.json'), '{"v":1,"id":2,"results":[{"id"');
  for (const id of [1, 2]) {
    const got = getRun(dir, id);
    assert.equal(got?.state, 'finished');
    assert.deepEqual(got?.results, []);
    assert.equal(got?.counts?.ok, 1);
  }
});

test('a lost runs.jsonl does not reuse the ids of existing record files', (t) => {
  const dir = tempDir(t);
  recordRun(dir, run());
  recordRun(dir, run());
  rmSync(join(dir, 'runs.jsonl'));
  assert.equal(recordRun(dir, run()).id, 3);
  assert.equal(getRun(dir, 1)?.id, 1);
});

test('a long history is listed from its tail, across chunk boundaries', (t) => {
  const dir = tempDir(t);
  const long = `${'déjà-vu/'.repeat(40)}site.json`;
  for (let i = 0; i < 600; i++) recordRun(dir, { ...run(), source: [long, `n${i}`] });
  assert.ok(readFileSync(join(dir, 'runs.jsonl')).length > 3 * 64 * 1024);
  const all = listRuns(dir);
  assert.equal(all.length, 600);
  assert.deepEqual(
    all.map((s) => s.id),
    Array.from({ length: 600 }, (_, i) => 600 - i),
  );
  assert.ok(all.every((s, i) => s.source[0] === long && s.source[1] === `n${599 - i}`));
  assert.deepEqual(
    listRuns(dir, { limit: 3 }).map((s) => s.id),
    [600, 599, 598],
  );
  assert.equal(getRun(dir, 17)?.source[1], 'n16');
  assert.equal(recordRun(dir, run()).id, 601);
});

test('10,000 node results are recorded and read back; values JSON cannot hold do not lose the run', (t) => {
  const dir = tempDir(t);
  const statuses: NodeStatus[] = ['ok', 'changed', 'pending', 'failed', 'skipped', 'unresolvable'];
  const results = Array.from({ length: 10_000 }, (_, i) => result(i, statuses[i % statuses.length]));
  const t0 = performance.now();
  const rec = recordRun(dir, run(results, 1));
  t.diagnostic(`recordRun with 10,000 results: ${(performance.now() - t0).toFixed(1)} ms`);
  assert.deepEqual(rec.counts, countResults(results));
  assert.equal(rec.counts?.ok, 1667);
  const back = getRun(dir, rec.id);
  assert.equal(back?.results.length, 10_000);
  assert.deepEqual(back?.results[9_999], results[9_999]);

  const shared = { n: 1 };
  const cyclic: Record<string, unknown> = { big: 10n, a: shared, b: [shared], when: new Date(0) };
  cyclic.self = cyclic;
  const odd = recordRun(dir, run([result(0, 'changed', { changes: cyclic })]));
  assert.deepEqual(getRun(dir, odd.id)?.results[0]?.changes, {
    big: '10',
    a: { n: 1 },
    b: [{ n: 1 }],
    when: '1970-01-01T00:00:00.000Z',
    self: '[Circular]',
  });
});

test('history files are private to their owner', (t) => {
  const dir = tempDir(t);
  recordRun(dir, run());
  assert.equal(statSync(join(dir, 'runs.jsonl')).mode & 0o077, 0);
  assert.equal(statSync(join(dir, 'runs', '1.json')).mode & 0o077, 0);
  assert.equal(statSync(join(dir, 'runs')).mode & 0o077, 0);
  assert.equal(getRun(dir, 1)?.host, hostname());
});

test('a state directory that cannot hold the record gives a StoreError, not a crash', (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'runs'), 'in the way');
  const handle = beginRun(dir, run());
  assert.throws(
    () => finishRun(handle, run()),
    (e: unknown) => StoreError.is(e) && e.code === 'io' && /^cannot record run 1 in .*: a file is in the way$/.test(e.message),
  );
});
