// The file store folds a run into its drift rows in place, matching results to rows in order where it
// can; whatever the order, it must end where the reference fold (one entry per key) ends.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { NodeResult, NodeStatus, RunMode } from '../../src/core/model.js';
import { type DriftRow, driftFromRow, driftRowsFolder, foldDrift, foldDriftRows } from '../../src/store/query.js';
import type { DriftEntry } from '../../src/store/types.js';

/** A small deterministic generator, so a failure can be replayed. */
function rng(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

const STATUSES: NodeStatus[] = ['ok', 'changed', 'pending', 'failed', 'skipped', 'unresolvable'];
const MODES: RunMode[] = ['apply', 'check', 'collect'];

function result(id: string, status: NodeStatus, host: string | undefined): NodeResult {
  const r = { id, name: id, type: 'file', result: status === 'failed' ? false : true, status, changes: {}, comment: `${id} ${status}`, start: '', duration: 0, run_num: 0 };
  return host === undefined ? r : ({ ...r, host } as NodeResult);
}

test('folding runs into rows in place, a piece at a time, gives what the reference fold gives, in any order, with new, repeated and other hosts\' resources', () => {
  for (let seed = 1; seed <= 40; seed++) {
    const random = rng(seed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
    const rows: DriftRow[] = [];
    const reference = new Map<string, DriftEntry>();
    const ids = Array.from({ length: 12 }, (_, i) => `r${i}`);
    for (let runId = 1; runId <= 8; runId++) {
      const run = { id: runId, start: `2026-01-0${runId}T00:00:00.000Z`, mode: pick(MODES) };
      // Mostly the same resources in the same order; sometimes shuffled, cut, repeated or on another host.
      let list = ids.slice(0, 6 + Math.floor(random() * 7));
      if (random() < 0.4) list = [...list].sort(() => random() - 0.5);
      if (random() < 0.3) list.push(pick(list));
      const results = list.map((id) => result(id, pick(STATUSES), random() < 0.2 ? 'other' : undefined));
      // The file store folds a run's results a piece at a time, as it writes them: pieces of random sizes.
      const fold = driftRowsFolder(rows, run, 'here');
      for (let at = 0; at < results.length; ) {
        const size = 1 + Math.floor(random() * 5);
        fold(results.slice(at, at + size));
        at += size;
      }
      foldDrift(reference, run, results, 'here');
      const folded = new Map(rows.map((r) => [`${r[0]}\u0000${r[1]}`, driftFromRow(r)]));
      assert.equal(rows.length, folded.size, `seed ${seed} run ${runId}: one row per resource`);
      assert.deepEqual([...folded.entries()], [...reference.entries()], `seed ${seed} run ${runId}`);
    }
  }
});

test('a run whose rows follow another run\'s is folded as the reference fold folds it, the second time too', () => {
  const rows: DriftRow[] = [];
  const reference = new Map<string, DriftEntry>();
  const first = Array.from({ length: 50 }, (_, i) => result(`graph${i}`, 'ok', undefined));
  const second = Array.from({ length: 50 }, (_, i) => result(`otter${i}`, i % 7 === 0 ? 'changed' : 'ok', undefined));
  for (let runId = 1; runId <= 4; runId++) {
    const run = { id: runId, start: `2026-01-0${runId}T00:00:00.000Z`, mode: 'apply' as RunMode };
    const results = runId % 2 === 1 ? first : runId === 4 ? [...second.slice(10), result('otter-new', 'changed', undefined), ...second.slice(0, 10)] : second;
    foldDriftRows(rows, run, results, 'here');
    foldDrift(reference, run, results, 'here');
  }
  const folded = new Map(rows.map((r) => [`${r[0]}\u0000${r[1]}`, driftFromRow(r)]));
  assert.equal(rows.length, 101);
  assert.deepEqual([...folded.entries()], [...reference.entries()]);
});
