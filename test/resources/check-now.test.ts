// The at-once checks (checkNow) of the file and directory kinds on hosts with immediate reads: they answer
// only for what is already in its state, with what check says then, and leave everything else to check.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { SimulatedHost } from '../../src/host/simulated.js';
import type { Host } from '../../src/host/types.js';
import { kind as directoryKind } from '../../src/resources/directory/index.js';
import { kind } from '../../src/resources/file/index.js';
import { cleanupTemps, envs, fakeEnv, node } from './fs-helpers.js';

after(cleanupTemps);

for (const makeEnv of envs) {
  describe(`file checkNow on ${makeEnv().name} host`, () => {
    test('in its state: the outcome check gives, without the state check hands to apply', async () => {
      const env = makeEnv();
      const path = join(env.root, 'motd');
      await env.ctx.host.writeFileAtomic(path, 'héllo\n', { mode: 0o640 });
      for (const params of [{ path, content: 'héllo\n', mode: '0640' }, { path, content: 'héllo\n' }]) {
        const n = node('file', params);
        assert.deepEqual(kind.validate(params, n), []);
        const now = kind.checkNow?.(env.ctx, params, n);
        const { state: _state, ...checked } = await kind.check(env.ctx, params, n);
        assert.deepEqual(now, checked);
        assert.deepEqual(now, { inSync: true, comment: `File ${path} is in the correct state`, outputs: { path, content: 'héllo\n', mode: '0640' } });
      }
    });

    test('anything else is left to check: drift, a missing file, a symlink, an owner, a source, U+FFFD', async () => {
      const env = makeEnv();
      const { host } = env.ctx;
      const path = join(env.root, 'f');
      const odd = join(env.root, 'odd');
      await host.writeFileAtomic(path, 'clean\n', { mode: 0o644 });
      await host.writeFileAtomic(odd, 'a\uFFFD\n', { mode: 0o644 });
      await host.writeFileAtomic(join(env.root, 'src'), 'clean\n');
      await host.symlink(path, join(env.root, 'link'));
      // The same params with content 'clean\n' alone are settled at once: each case differs in one thing.
      assert.equal(kind.checkNow?.(env.ctx, { path, content: 'clean\n' }, node('file', { path, content: 'clean\n' }))?.inSync, true);
      const cases: Record<string, unknown>[] = [
        { path, content: 'other\n' },
        { path, content: 'clean\n', mode: '0600' },
        { path: odd, content: 'a\uFFFD\n' },
        { path: join(env.root, 'missing'), content: 'clean\n' },
        { path: join(env.root, 'link'), content: 'clean\n' },
        { path, content: 'clean\n', owner: 'never-looked-up' },
        { path, content: 'clean\n', owner: 54321 },
        { path, source: 'src' },
        { path, content: 'clean\n', replace: false },
      ];
      for (const params of cases) {
        assert.deepEqual(kind.validate(params, node('file', params)), [], JSON.stringify(params));
        assert.equal(kind.checkNow?.(env.ctx, params, node('file', params)), undefined, JSON.stringify(params));
      }
    });
  });
}

test('a host without immediate reads (a simulation) leaves every file to check', async () => {
  const env = envs[0]!();
  const path = join(env.root, 'same');
  await env.ctx.host.writeFileAtomic(path, 'same');
  const sim: Host = new SimulatedHost(env.ctx.host);
  assert.equal(sim.immediate, undefined);
  assert.equal(kind.checkNow?.({ ...env.ctx, host: sim }, { path, content: 'same' }, node('file', { path, content: 'same' })), undefined);
  assert.equal((await kind.check({ ...env.ctx, host: sim }, { path, content: 'same' }, node('file', { path, content: 'same' }))).inSync, true);
});

test('an owner and group by name are settled at once once the run has looked them up (fake host)', async () => {
  const env = fakeEnv();
  const path = join(env.root, 'owned');
  await env.ctx.host.writeFileAtomic(path, 'x\n', { mode: 0o644, uid: 1001, gid: 2000 });
  const params = { path, content: 'x\n', owner: 'deploy', group: 'web' };
  const n = node('file', params);
  assert.deepEqual(kind.validate(params, n), []);
  // Not yet looked up on this host: left to check, which resolves them.
  assert.equal(kind.checkNow?.(env.ctx, params, n), undefined);
  const { state: _state, ...checked } = await kind.check(env.ctx, params, n);
  assert.equal(checked.inSync, true);
  assert.deepEqual(kind.checkNow?.(env.ctx, params, n), checked);
  // A wrong owner is never settled at once.
  const other = { ...params, owner: 'root' };
  await kind.check(env.ctx, other, node('file', other));
  assert.equal(kind.checkNow?.(env.ctx, other, node('file', other)), undefined);
  assert.equal((await kind.check(env.ctx, other, node('file', other))).inSync, false);
});

for (const makeEnv of envs) {
  test(`directory checkNow on ${makeEnv().name} host: in its state it answers as check does; else it leaves it to check`, async () => {
    const env = makeEnv();
    const { host } = env.ctx;
    const path = join(env.root, 'd');
    await host.mkdir(path, { mode: 0o750 });
    await host.chmod(path, 0o750);
    await host.symlink(path, join(env.root, 'link'));
    for (const params of [{ path }, { path, mode: '0750' }]) {
      const n = node('directory', params);
      assert.deepEqual(directoryKind.validate(params, n), []);
      const { state: _state, ...checked } = await directoryKind.check(env.ctx, params, n);
      assert.equal(checked.inSync, true);
      assert.deepEqual(directoryKind.checkNow?.(env.ctx, params, n), checked);
    }
    const cases: Record<string, unknown>[] = [
      { path, mode: '0755' },
      { path: join(env.root, 'missing') },
      { path: join(env.root, 'link') },
      { path, recurse: { file_mode: '0644' } },
      { path, owner: 'never-looked-up' },
    ];
    for (const params of cases) {
      assert.deepEqual(directoryKind.validate(params, node('directory', params)), [], JSON.stringify(params));
      assert.equal(directoryKind.checkNow?.(env.ctx, params, node('directory', params)), undefined, JSON.stringify(params));
    }
  });
}
