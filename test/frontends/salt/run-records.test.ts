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
  return { out, progress };
}

test('records of states without requisites are the ones built during the run', async () => {
  const { out, progress } = await records([chunk('succeed_with_changes', 'a'), chunk('nop', 'b'), chunk('fail_without_changes', 'c')]);
  assert.equal(out.results.length, 3);
  // The very objects handed to the progress, not new ones.
  for (const [i, r] of out.results.entries()) assert.equal(r, progress[i]);
  assert.deepEqual(out.results.map((r) => r.status), ['changed', 'ok', 'failed']);
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
