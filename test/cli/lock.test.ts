import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CAIRN, cairn, tempDir, writeGraph } from './cli-helpers.js';

function waitFor(cond: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const tick = () => (cond() ? resolve() : Date.now() > end ? reject(new Error('timed out')) : setTimeout(tick, 20));
    tick();
  });
}

test('two runs on one state dir never interleave: the second waits, then fails clearly', async () => {
  const dir = tempDir();
  const state = join(dir, 'state');
  const slow = writeGraph(dir, [{ id: 'slow', type: 'command', params: { cmd: 'sleep 4' } }], 'slow.json');
  const quick = writeGraph(dir, [{ id: 'q', type: 'file', params: { path: join(dir, 'q'), content: 'q' } }], 'quick.json');
  const first = spawn(process.execPath, [CAIRN, 'apply', slow, '--state-dir', state], { stdio: 'ignore' });
  const exited = new Promise((r) => first.on('exit', r));
  await waitFor(() => existsSync(join(state, 'lock')), 5000);
  const blocked = cairn(['apply', quick, '--state-dir', state, '--lock-timeout', '0.5']);
  assert.equal(blocked.code, 1);
  assert.match(blocked.stderr, /locked by another cairn run \(pid \d+/);
  assert.match(blocked.stderr, /--lock-timeout/);
  assert.equal(existsSync(join(dir, 'q')), false);
  const waiting = cairn(['apply', quick, '--state-dir', state, '--lock-timeout', '20']);
  await exited;
  assert.equal(waiting.code, 0, waiting.stderr);
  assert.equal(readFileSync(join(dir, 'q'), 'utf8'), 'q');
  assert.match(cairn(['history', '--state-dir', state]).stdout, /^2 /m);
});

test('a command run by a run may run cairn again on the same state dir: it joins the lock', () => {
  const dir = tempDir();
  const state = join(dir, 'state');
  const inner = writeGraph(dir, [{ id: 'inner', type: 'file', params: { path: join(dir, 'inner'), content: 'i' } }], 'inner.json');
  const outer = writeGraph(
    dir,
    [{ id: 'nested', type: 'command', params: { cmd: `"${process.execPath}" "${CAIRN}" apply "${inner}" --state-dir "${state}" --lock-timeout 0.5` } }],
    'outer.json',
  );
  const r = cairn(['apply', outer, '--state-dir', state, '--out', 'json']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.equal(JSON.parse(r.stdout).results[0].result, true);
  assert.equal(readFileSync(join(dir, 'inner'), 'utf8'), 'i');
  const other = cairn(['apply', inner, '--state-dir', state], { env: { CAIRN_HELD_LOCK: `${state}:not-the-token` } });
  assert.equal(other.code, 0, 'a stale inherited token is ignored and the lock is taken normally');
  assert.match(cairn(['history', '--state-dir', state]).stdout, /^3 /m);
});
