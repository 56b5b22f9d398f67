import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { kind } from '../../src/resources/symlink/index.js';
import { cleanupTemps, converge, convergeIdempotent, envs, node } from './fs-helpers.js';

after(cleanupTemps);

for (const makeEnv of envs) {
  describe(`symlink on ${makeEnv().name} host`, () => {
    test('a missing link is created; then it is in sync', async () => {
      const env = makeEnv();
      const path = join(env.root, 'current');
      const { check, applied, recheck } = await convergeIdempotent(kind, env, { path, target: 'releases/1' });
      assert.deepEqual(check.changes, { new: path });
      assert.equal(check.comment, `Symlink ${path} to releases/1 is set for creation`);
      assert.deepEqual(applied.changes, { new: path });
      assert.equal(applied.comment, `Created new symlink ${path} -> releases/1`);
      assert.deepEqual(applied.outputs, { path, target: 'releases/1' });
      assert.match(recheck.comment ?? '', new RegExp(`^Symlink ${path} is present and owned by \\w+:\\w+$`));
      assert.equal(await env.ctx.host.readlink(path), 'releases/1');
    });

    test('a link to another target is changed', async () => {
      const env = makeEnv();
      const path = join(env.root, 'current');
      await env.ctx.host.symlink('/old', path);
      const { check, applied } = await convergeIdempotent(kind, env, { path, target: '/new' });
      assert.deepEqual(check.changes, { change: path });
      assert.equal(check.comment, `Link ${path} target is set to be changed to /new`);
      assert.deepEqual(applied.changes, { change: path });
      assert.equal(applied.comment, `Set symlink ${path} to /new`);
      assert.equal(await env.ctx.host.readlink(path), '/new');
    });

    test('a file in the way fails without force and is replaced with force', async () => {
      const env = makeEnv();
      const path = join(env.root, 'f');
      await env.ctx.host.writeFileAtomic(path, 'x');
      await assert.rejects(kind.check(env.ctx, { path, target: '/t' }, node('symlink', { path })), {
        message: `File or directory exists where the symlink ${path} should be. Did you mean to use force?`,
      });
      const { check, applied } = await convergeIdempotent(kind, env, { path, target: '/t', force: true });
      assert.deepEqual(check.changes, { forced: path });
      assert.deepEqual(applied.changes, { forced: 'Symlink was forcibly replaced', new: path });
      assert.equal(await env.ctx.host.readlink(path), '/t');
    });

    test('a directory tree in the way is replaced with force', async () => {
      const env = makeEnv();
      const path = join(env.root, 'd');
      await env.ctx.host.mkdir(join(path, 'sub'), { recursive: true });
      await env.ctx.host.writeFileAtomic(join(path, 'sub', 'f'), 'x');
      await convergeIdempotent(kind, env, { path, target: 'elsewhere', force: true });
      assert.equal((await env.ctx.host.lstat(path))?.type, 'symlink');
    });

    test('a missing parent fails unless makedirs', async () => {
      const env = makeEnv();
      const path = join(env.root, 'x', 'link');
      const { applied } = await converge(kind, env, { path, target: '/t' });
      assert.equal(applied.ok, false);
      assert.equal(applied.comment, `Directory ${join(env.root, 'x')} for symlink is not present`);
      await convergeIdempotent(kind, env, { path, target: '/t', makedirs: true });
      assert.equal(await env.ctx.host.readlink(path), '/t');
    });

    test('params are validated', () => {
      const bad = (params: Record<string, unknown>) => kind.validate(params, node('symlink', params)).map((d) => d.message);
      assert.deepEqual(bad({ path: '/x' }), ['symlink "symlink-1": missing required param "target"']);
      assert.deepEqual(bad({ path: '/x', target: '/y', force: 'yes' }).length, 1);
    });
  });
}
