import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { kind } from '../../src/resources/absent/index.js';
import { cleanupTemps, convergeIdempotent, envs, node } from './fs-helpers.js';

after(cleanupTemps);

for (const makeEnv of envs) {
  describe(`absent on ${makeEnv().name} host`, () => {
    test('a missing path is in sync', async () => {
      const env = makeEnv();
      const path = join(env.root, 'nothing');
      const check = await kind.check(env.ctx, { path }, node('absent', { path }));
      assert.equal(check.inSync, true);
      assert.equal(check.comment, `File ${path} is not present`);
    });

    test('a file is removed', async () => {
      const env = makeEnv();
      const path = join(env.root, 'old.conf');
      await env.ctx.host.writeFileAtomic(path, 'x');
      const { check, applied } = await convergeIdempotent(kind, env, { path });
      assert.deepEqual(check.changes, { removed: path });
      assert.equal(check.comment, `File ${path} is set for removal`);
      assert.deepEqual(applied.changes, { removed: path });
      assert.equal(applied.comment, `Removed file ${path}`);
      assert.equal(await env.ctx.host.lstat(path), null);
    });

    test('a directory tree is removed', async () => {
      const env = makeEnv();
      const path = join(env.root, 'tree');
      await env.ctx.host.mkdir(join(path, 'a', 'b'), { recursive: true });
      await env.ctx.host.writeFileAtomic(join(path, 'a', 'b', 'f'), 'x');
      await env.ctx.host.symlink('/etc', join(path, 'a', 'link'));
      const { check, applied } = await convergeIdempotent(kind, env, { path });
      assert.equal(check.comment, `Directory ${path} is set for removal`);
      assert.equal(applied.comment, `Removed directory ${path}`);
      assert.equal(await env.ctx.host.lstat(path), null);
      assert.deepEqual(await env.ctx.host.readdir(env.root), []);
    });

    test('a symlink is removed, not what it points to', async () => {
      const env = makeEnv();
      const dir = join(env.root, 'keep');
      await env.ctx.host.mkdir(dir);
      await env.ctx.host.writeFileAtomic(join(dir, 'f'), 'x');
      const link = join(env.root, 'link');
      await env.ctx.host.symlink(dir, link);
      const { applied } = await convergeIdempotent(kind, env, { path: link });
      assert.equal(applied.comment, `Removed file ${link}`);
      assert.deepEqual(await env.ctx.host.readdir(dir), ['f']);
    });

    test('refuses "/" and relative paths', () => {
      const bad = (params: Record<string, unknown>) => kind.validate(params, node('absent', params)).map((d) => d.message);
      assert.deepEqual(bad({ path: '/' }), ['absent "absent-1": param "path": refusing to make "/" absent']);
      assert.deepEqual(bad({ path: 'x' }), ['absent "absent-1": param "path": expected an absolute path']);
      assert.deepEqual(bad({ path: '/x', recursive: true }), ['absent "absent-1": unknown param "recursive"']);
    });
  });
}
