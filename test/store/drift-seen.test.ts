// A run that says what an earlier run said about the same resources leaves drift.json as it is and
// records only when they were seen (drift-seen.json). Whatever the runs, the file store's drift answers
// must stay those of the reference fold over every run.
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { NodeResult, NodeStatus, RunMode } from '../../src/core/model.js';
import { DIGEST_FROM, SEEN_FILE } from '../../src/store/file-drift.js';
import { FileRunStore } from '../../src/store/file-store.js';
import { foldDrift, localHostName } from '../../src/store/query.js';
import type { DriftEntry } from '../../src/store/types.js';
import { tempDir } from './helpers.js';

function rng(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

function result(id: string, status: NodeStatus, comment: string, host?: string): NodeResult {
  const r = { id, name: id, type: 'file', result: status !== 'failed', status, changes: {}, comment, start: '', duration: 0, run_num: 0 };
  return host === undefined ? r : ({ ...r, host } as NodeResult);
}

const HOST = localHostName();

async function record(store: FileRunStore, mode: RunMode, start: string, results: NodeResult[]): Promise<number> {
  const h = await store.beginRun({ frontEnd: 'graph', mode, source: ['/g.json'], start });
  await store.finishRun(h, { results, exitCode: 0, end: start });
  return h.id;
}

/** A group of resources the runs come back to: most runs repeat one exactly. */
function group(prefix: string, n: number, comment = 'in sync'): NodeResult[] {
  return Array.from({ length: n }, (_, i) => result(`${prefix}${i}`, 'ok', `${prefix}${i} ${comment}`));
}

function sorted(m: Map<string, DriftEntry>): DriftEntry[] {
  return [...m.values()].sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
}

// Runs of DIGEST_FROM results or more are digested (in pieces of 64 KiB of text: 1,500 results are several);
// smaller ones always fold into drift.json.
const SIZES = [DIGEST_FROM, DIGEST_FROM + 6, 1500, 6];

test('repeated, alternating, overlapping and changed runs: the file store answers what the reference fold gives, and a repeat leaves drift.json untouched', async (t) => {
  for (let seed = 1; seed <= SIZES.length * 2; seed++) {
    const n = SIZES[seed % SIZES.length] as number;
    const dir = tempDir(t);
    const store = new FileRunStore(dir);
    const random = rng(seed);
    const reference = new Map<string, DriftEntry>();
    const a = group('a', n);
    const b = group('b', n);
    // Half of group a with half of group b: a run that rewrites some of a's rows and some of b's.
    const ab = [...a.slice(0, n / 2), ...b.slice(n / 2)];
    let untouched = 0;
    for (let i = 1; i <= 24; i++) {
      const pick = random();
      let results: NodeResult[];
      if (pick < 0.3) results = a;
      else if (pick < 0.55) results = b;
      else if (pick < 0.65) results = ab;
      else if (pick < 0.75) results = a.map((r, k) => (k === 7 ? result(r.id, 'pending', 'would change') : r));
      else if (pick < 0.82) results = a.map((r, k) => (k === 9 ? result(r.id, 'skipped', 'skipped') : r));
      else if (pick < 0.9) results = [...a.slice(0, 10)];
      else results = b.map((r) => ({ ...r, host: 'other' }) as NodeResult);
      const mode: RunMode = random() < 0.5 ? 'apply' : 'check';
      const start = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
      const before = statSync(join(dir, 'drift.json'), { throwIfNoEntry: false })?.mtimeMs;
      const text = before === undefined ? undefined : readFileSync(join(dir, 'drift.json'), 'utf8');
      const id = await record(store, mode, start, results);
      foldDrift(reference, { id, start, mode }, results, HOST);
      assert.deepEqual(await store.drift(), sorted(reference), `seed ${seed}, run ${i}`);
      if (text !== undefined && readFileSync(join(dir, 'drift.json'), 'utf8') === text) untouched++;
    }
    if (n >= DIGEST_FROM) assert.ok(untouched > 0, `seed ${seed}: some repeated run left drift.json as it was`);
    else assert.equal(untouched, 0, `seed ${seed}: a small run always folds into drift.json`);
  }
});

test('a no-op repeated appends to the seen file only; the next change folds the seen runs into drift.json', async (t) => {
  const dir = tempDir(t);
  const store = new FileRunStore(dir);
  const files = group('f', 300);
  await record(store, 'apply', '2026-01-01T00:00:01.000Z', files);
  const first = readFileSync(join(dir, 'drift.json'), 'utf8');
  assert.match(first, /^\{"v":2,"by":1,"rows":\[/);
  const r2 = await record(store, 'check', '2026-01-01T00:00:02.000Z', files);
  const r3 = await record(store, 'apply', '2026-01-01T00:00:03.000Z', files);
  assert.equal(readFileSync(join(dir, 'drift.json'), 'utf8'), first, 'the index is not rewritten by a repeat');
  const seen = readFileSync(join(dir, SEEN_FILE), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(
    seen.map((e) => [e.by, e.base, e.runId, e.seen, e.digest]),
    [1, r2, r3].map((id, i) => [1, 1, id, `2026-01-01T00:00:0${i + 1}.000Z`, seen[0].digest]),
    'one line per run, appended',
  );
  assert.equal((statSync(join(dir, SEEN_FILE)).mode & 0o777).toString(8), '600');
  const drift = await store.drift();
  assert.equal(drift.length, 300);
  for (const e of drift) assert.deepEqual([e.runId, e.seen, e.sinceRunId, e.since, e.state], [r3, '2026-01-01T00:00:03.000Z', 1, '2026-01-01T00:00:01.000Z', 'ok']);
  assert.ok(r2 < r3);
  // One resource drifts: the index is rewritten, every other row as seen by run 3.
  const r4 = await record(store, 'check', '2026-01-01T00:00:04.000Z', files.map((r, k) => (k === 0 ? result(r.id, 'pending', 'would change') : r)));
  const rows = JSON.parse(readFileSync(join(dir, 'drift.json'), 'utf8'));
  assert.equal(rows.by, r4);
  assert.deepEqual(rows.rows[0].slice(4, 11), ['drifted', 'pending', 'would change', r4, '2026-01-01T00:00:04.000Z', '2026-01-01T00:00:04.000Z', r4]);
  assert.deepEqual(rows.rows[1].slice(7, 11), [r4, '2026-01-01T00:00:04.000Z', '2026-01-01T00:00:01.000Z', 1]);
});

test('a seen file left by a crash between the two writes (it names another writer of drift.json) is ignored', async (t) => {
  const dir = tempDir(t);
  const store = new FileRunStore(dir);
  const files = group('f', DIGEST_FROM);
  await record(store, 'apply', '2026-01-01T00:00:01.000Z', files);
  await record(store, 'apply', '2026-01-01T00:00:02.000Z', files);
  const lines = readFileSync(join(dir, SEEN_FILE), 'utf8').trim().split('\n');
  // As if drift.json had been written by run 99 and the crash came before its lines: these are stale.
  writeFileSync(join(dir, SEEN_FILE), `${lines.map((l) => l.replace('"by":1,', '"by":99,')).join('\n')}\n{"by":99,"base":1,"digest":"x","run`);
  writeFileSync(join(dir, 'drift.json'), readFileSync(join(dir, 'drift.json'), 'utf8').replace('"by":1,', '"by":98,'));
  for (const e of await store.drift()) assert.deepEqual([e.runId, e.seen], [1, '2026-01-01T00:00:01.000Z']);
  // Not taken as a repeat either: the next run rewrites the index.
  const r3 = await record(store, 'apply', '2026-01-01T00:00:03.000Z', files);
  assert.match(readFileSync(join(dir, 'drift.json'), 'utf8'), new RegExp(`^\\{"v":2,"by":${r3},`));
  for (const e of await store.drift()) assert.deepEqual([e.runId, e.seen], [r3, '2026-01-01T00:00:03.000Z']);
});

test('after a torn line the next notes still count, and a long seen file is rewritten with only its live lines', async (t) => {
  const dir = tempDir(t);
  const store = new FileRunStore(dir);
  const files = group('f', DIGEST_FROM);
  const other = group('g', DIGEST_FROM);
  await record(store, 'apply', '2026-01-01T00:00:01.000Z', files);
  await record(store, 'apply', '2026-01-01T00:00:02.000Z', other);
  writeFileSync(join(dir, SEEN_FILE), `${readFileSync(join(dir, SEEN_FILE), 'utf8')}{"by":2,"base":1,"dig`);
  const index = readFileSync(join(dir, 'drift.json'), 'utf8');
  let last = 0;
  for (let i = 3; i <= 150; i++) last = await record(store, 'check', new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(), i % 2 === 0 ? other : files);
  assert.equal(readFileSync(join(dir, 'drift.json'), 'utf8'), index, 'every run was a repeat of run 1 or run 2');
  const lines = readFileSync(join(dir, SEEN_FILE), 'utf8').trim().split('\n');
  assert.ok(lines.length <= 128, `${lines.length} lines`);
  for (const e of await store.drift()) assert.deepEqual([e.runId, e.sinceRunId], e.resource.startsWith('f') ? [last - 1, 1] : [last, 2], e.resource);
});
