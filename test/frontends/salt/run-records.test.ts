/**
 * The run's result records (kept by the run store) against the running dict they come from: one per
 * entry, in its order, each what the entry says at the end of the run, whether the record built for
 * the state's progress could be kept (most states) or the entry changed after it (a parallel state's
 * return is filled in later) or never had one (a listen error).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Chunk } from '../../../src/frontends/salt/compile/index.js';
import { nodeResult, runChunks } from '../../../src/frontends/salt/run/index.js';
import type { Ret } from '../../../src/frontends/salt/run/caller.js';
import { translate } from './render-helpers.js';
import { FakeHost } from '../../../src/host/fake.js';
import type { NodeResult } from '../../../src/core/model.js';

function chunk(fun: string, name: string, args: Record<string, unknown> = {}): Chunk {
  return { __id__: name, __sls__: 'rec', __env__: 'base', state: 'test', fun, name, order: 10000, ...args } as Chunk;
}

/** A record without its time of recording (records built during and after the run differ only there). */
const untimed = (r: NodeResult) => ({ ...r, start: '' });

async function records(chunks: Chunk[]) {
  const progress: NodeResult[] = [];
  const out = await runChunks(chunks, { test: false, failhard: false, ctx: { host: new FakeHost(), baseDir: '/' }, translate, onResult: (r) => progress.push(r) });
  const tags = Object.keys(out.running);
  assert.deepEqual(out.results.map((r) => r.id), tags);
  for (const [i, tag] of tags.entries()) assert.deepEqual(untimed(out.results[i] as NodeResult), untimed(nodeResult(tag, out.running[tag] as Ret, false)), tag);
  // The order the run hands on, when it knows it, is the running dict's own: its tags and very returns.
  if (out.order) {
    assert.deepEqual(out.order.tags, tags);
    for (const [i, tag] of tags.entries()) assert.equal(out.order.rets[i], out.running[tag], tag);
  }
  return { out, progress };
}

test('records of states without requisites are the ones built during the run', async () => {
  const { out, progress } = await records([chunk('succeed_with_changes', 'a'), chunk('nop', 'b'), chunk('fail_without_changes', 'c')]);
  assert.equal(out.results.length, 3);
  // The very objects handed to the progress, not new ones.
  for (const [i, r] of out.results.entries()) assert.equal(r, progress[i]);
  assert.deepEqual(out.results.map((r) => r.status), ['changed', 'ok', 'failed']);
  assert.ok(out.order, 'the run knows its order');
});

test('a state taken up again by a requisite keeps its latest record; the run knows its order', async () => {
  // b fails; a (requiring b) fails for it; c requires a and b (both already run).
  const { out } = await records([
    chunk('nop', 'a', { require: [{ test: 'b' }] }),
    chunk('fail_without_changes', 'b'),
    chunk('succeed_with_changes', 'c', { require: [{ test: 'a' }, { test: 'b' }] }),
  ]);
  assert.deepEqual(out.results.map((r) => r.status), ['failed', 'failed', 'failed']);
  assert.deepEqual(out.results.map((r) => r.run_num), [0, 1, 2]);
  assert.ok(out.order);
});

test('a run that ends in failhard or has a listen state leaves its order to the dict', async () => {
  // f fails hard while a's requisites are run: the run's failhard mark goes into the dict and out again.
  const hard = await records([chunk('nop', 'a', { require: [{ test: 'f' }] }), chunk('fail_without_changes', 'f', { failhard: true }), chunk('nop', 'g')]);
  assert.deepEqual(hard.out.results.map((r) => r.id), ['test_|-f_|-f_|-fail_without_changes']);
  assert.equal(hard.out.order, undefined);
  // Failing hard at the top level leaves nothing else in the dict: the order is known.
  const top = await records([chunk('fail_without_changes', 'f', { failhard: true }), chunk('nop', 'g')]);
  assert.equal(top.out.order?.tags.length, 1);
  const { out } = await records([chunk('succeed_with_changes', 'x'), chunk('nop', 'l', { listen: [{ test: 'x' }] })]);
  assert.equal(out.order, undefined);
  assert.ok(out.results.some((r) => r.id.startsWith('test_|-listener_l')), 'the listener ran');
});

test('a parallel state filled in after its progress record, and a listen error, are recorded as they end', async () => {
  const { out } = await records([chunk('succeed_with_changes', 'p', { parallel: true }), chunk('nop', 'n'), chunk('nop', 'l', { listen: [{ test: 'missing' }] })]);
  const p = out.results.find((r) => r.id === 'test_|-p_|-p_|-succeed_with_changes') as NodeResult;
  assert.notEqual(p.comment, 'Started in a separate process');
  assert.equal(p.status, 'changed');
  const listenError = out.results.find((r) => r.id.startsWith('Listen_Error_|-'));
  assert.ok(listenError, 'the listen error has a record');
  assert.equal(listenError.result, false);
});
