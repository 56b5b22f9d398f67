// The step driver that OtterScript operations and Zapusk steps act through: the machine's refusals come
// back as StepFailure in the kind's words; a bug in cairn is rethrown untouched, so no `try` swallows it;
// one result builder gives every front end the same `result` for a status.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stepResult } from '../../src/core/model.js';
import { FakeHost } from '../../src/host/fake.js';
import { checkStep, checkStepNow, StepFailure, stepNode } from '../../src/resources/drive.js';

const ctx = { host: new FakeHost(), baseDir: '/' };

test('bad params and machine refusals are StepFailures in the kind\'s words', async () => {
  await assert.rejects(checkStep(ctx, stepNode('file', 'f', { path: 'relative/x', content: 'x' })), (e: unknown) => StepFailure.is(e) && /path/.test((e as Error).message));
  const host = new FakeHost();
  host.readFile = host.readText = async () => {
    throw Object.assign(new Error('cannot read /etc/x: permission denied (EACCES)'), { code: 'EACCES' });
  };
  host.lstat = async () => ({ type: 'file', mode: 0o644, uid: 0, gid: 0, size: 1, mtimeMs: 0 });
  host.stat = host.lstat;
  await assert.rejects(checkStep({ host, baseDir: '/' }, stepNode('file', 'f', { path: '/etc/x', content: 'y' })), (e: unknown) => StepFailure.is(e) && (e as Error).message === 'cannot read /etc/x: permission denied (EACCES)');
});

test('a bug in cairn is rethrown as it is, not as a StepFailure', async () => {
  const host = new FakeHost();
  host.lstat = async () => (undefined as unknown as { type: string }).type as never;
  await assert.rejects(checkStep({ host, baseDir: '/' }, stepNode('file', 'f', { path: '/x', content: 'y' })), (e: unknown) => e instanceof TypeError && !StepFailure.is(e));
});

test('one result builder: a pending change is null, a failure false, the rest true', () => {
  const base = { id: 'a', name: 'a', type: 't', changes: {}, comment: '', started: 1000, ended: 1250, run_num: 0 };
  assert.equal(stepResult({ ...base, status: 'pending' }).result, null);
  assert.equal(stepResult({ ...base, status: 'failed' }).result, false);
  assert.equal(stepResult({ ...base, status: 'changed' }).result, true);
  assert.equal(stepResult({ ...base, status: 'ok' }).duration, 250);
  assert.equal(stepResult({ ...base, status: 'ok' }).start, new Date(1000).toISOString());
});

test('a step already in its state is settled at once, without the kind\'s check', async () => {
  const host = new FakeHost();
  await host.mkdir('/etc', { recursive: true });
  await host.writeFileAtomic('/etc/motd', 'hi\n', { mode: 0o644 });
  host.lstat = async () => {
    throw new Error('check ran');
  };
  const done = await checkStep({ host, baseDir: '/' }, stepNode('file', 'f', { path: '/etc/motd', content: 'hi\n', mode: '0644' }));
  assert.deepEqual(done, { inSync: true, comment: 'File /etc/motd is in the correct state', outputs: { path: '/etc/motd', content: 'hi\n', mode: '0644' } });
  // A drifted one goes on to the check.
  await assert.rejects(checkStep({ host, baseDir: '/' }, stepNode('file', 'f', { path: '/etc/motd', content: 'other\n' })), /check ran/);
});

test('checkStepNow gives the at-once outcome of a valid step in its state, and leaves anything else to the check', async () => {
  const host = new FakeHost();
  await host.mkdir('/etc', { recursive: true });
  await host.writeFileAtomic('/etc/motd', 'hi\n', { mode: 0o644 });
  const c = { host, baseDir: '/' };
  assert.deepEqual(checkStepNow(c, stepNode('file', 'f', { path: '/etc/motd', content: 'hi\n', mode: '0644' })), { inSync: true, comment: 'File /etc/motd is in the correct state', outputs: { path: '/etc/motd', content: 'hi\n', mode: '0644' } });
  // Drifted, absent, bad params (which the check reports): no answer at once.
  assert.equal(checkStepNow(c, stepNode('file', 'f', { path: '/etc/motd', content: 'other\n' })), undefined);
  assert.equal(checkStepNow(c, stepNode('file', 'f', { path: '/etc/none', content: 'hi\n' })), undefined);
  assert.equal(checkStepNow(c, stepNode('file', 'f', { path: 'etc/motd', content: 'hi\n' })), undefined);
});
