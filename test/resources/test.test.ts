import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { GraphNode } from '../../src/core/model.js';
import { FakeHost } from '../../src/host/fake.js';
import type { ResourceContext } from '../../src/host/types.js';
import { kind } from '../../src/resources/test/index.js';

type P = Record<string, unknown>;
const node = (params: P): GraphNode => ({ id: 't', type: 'test', name: 't', params });
const host = new FakeHost();
const ctx: ResourceContext = { host, baseDir: '/' };
const PRETEND = { testing: { old: 'Unchanged', new: 'Something pretended to change' } };

async function run(params: P) {
  const check = await kind.check(ctx, params, node(params));
  const applied = await kind.apply(ctx, params, check, node(params));
  return { check, applied };
}

describe('test kind', () => {
  test('succeed: in sync, no changes', async () => {
    const { check, applied } = await run({ action: 'succeed' });
    assert.deepEqual(check, { inSync: true, comment: 'Success!' });
    assert.deepEqual(applied, { ok: true, comment: 'Success!' });
  });

  test('action defaults to succeed', async () => {
    const { check } = await run({});
    assert.equal(check.inSync, true);
  });

  test('succeed_with_changes: check reports drift, apply reports the pretended change', async () => {
    const { check, applied } = await run({ action: 'succeed_with_changes' });
    assert.deepEqual(check, { inSync: false, changes: PRETEND, comment: "If we weren't testing, this would be successful with changes" });
    assert.deepEqual(applied, { ok: true, changes: PRETEND, comment: 'Success!' });
  });

  test('fail: check reports drift, apply fails', async () => {
    const { check, applied } = await run({ action: 'fail' });
    assert.deepEqual(check, { inSync: false, changes: PRETEND, comment: "If we weren't testing, this would be a failure!" });
    assert.deepEqual(applied, { ok: false, changes: PRETEND, comment: 'Failure!' });
  });

  test('fail_without_changes: check throws, apply fails without changes', async () => {
    const params = { action: 'fail_without_changes' };
    await assert.rejects(kind.check(ctx, params, node(params)), /Failure!/);
    const applied = await kind.apply(ctx, params, { inSync: false }, node(params));
    assert.deepEqual(applied, { ok: false, comment: 'Failure!' });
  });

  test('noop: nothing at all', async () => {
    const { check, applied } = await run({ action: 'noop' });
    assert.deepEqual(check, { inSync: true, comment: '' });
    assert.deepEqual(applied, { ok: true, comment: '' });
  });

  test('comment overrides every comment, including the thrown failure', async () => {
    const { check, applied } = await run({ action: 'succeed_with_changes', comment: 'mine' });
    assert.equal(check.comment, 'mine');
    assert.equal(applied.comment, 'mine');
    const params = { action: 'fail_without_changes', comment: 'broken on purpose' };
    await assert.rejects(kind.check(ctx, params, node(params)), /broken on purpose/);
  });

  test('outputs are returned by check and apply', async () => {
    const outputs = { stdout: 'v1.2', nested: { a: [1, 2] } };
    const { check, applied } = await run({ action: 'succeed_with_changes', outputs });
    assert.deepEqual(check.outputs, outputs);
    assert.deepEqual(applied.outputs, outputs);
  });

  test('sleep waits in check and in apply', async () => {
    const started = Date.now();
    await run({ action: 'succeed_with_changes', sleep: 0.1 });
    assert.ok(Date.now() - started >= 190, 'two sleeps of 0.1 s');
  });

  test('touches nothing on the host', async () => {
    const before = host.snapshot();
    for (const action of ['succeed', 'succeed_with_changes', 'fail', 'noop']) await run({ action });
    assert.deepEqual(host.snapshot(), before);
    assert.equal(host.execLog.length, 0);
  });

  test('validate: unknown params and actions are errors', () => {
    const diags = (params: P) => kind.validate(params, node(params)).map((d) => d.message).join('\n');
    assert.equal(diags({ action: 'fail', sleep: 1, comment: 'c', outputs: { a: 1 }, name: 'n' }), '');
    assert.match(diags({ action: 'explode' }), /param "action"/);
    assert.match(diags({ action: 'succeed', colour: 'red' }), /unknown param "colour"/);
    assert.match(diags({ sleep: -1 }), /param "sleep"/);
  });
});
