import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { kind } from '../../src/resources/directory/index.js';
import { cleanupTemps, converge, convergeIdempotent, envs, fakeEnv, node } from './fs-helpers.js';

after(cleanupTemps);

for (const makeEnv of envs) {
  describe(`directory on ${makeEnv().name} host`, () => {
    test('a missing directory is created as Salt reports it', async () => {
      const env = makeEnv();
      const path = join(env.root, 'web');
      const { check, applied, recheck } = await convergeIdempotent(kind, env, { path, mode: '0750' });
      assert.deepEqual(check.changes, { [path]: { directory: 'new' } });
      assert.equal(check.comment, `The following files will be changed:\n${path}: directory - new\n`);
      assert.deepEqual(applied.changes, { [path]: { directory: 'new' } });
      assert.equal(applied.comment, '');
      assert.deepEqual(applied.outputs, { path, mode: '0750' });
      assert.equal(recheck.comment, `The directory ${path} is in the correct state`);
      const st = await env.ctx.host.stat(path);
      assert.equal(st?.type, 'directory');
      assert.equal(st?.mode, 0o750);
    });

    test('a drifted mode: check lists it under the path, apply fixes it', async () => {
      const env = makeEnv();
      const path = join(env.root, 'd');
      await env.ctx.host.mkdir(path, { mode: 0o777 });
      const { check, applied } = await convergeIdempotent(kind, env, { path, mode: 0o755 });
      assert.deepEqual(check.changes, { [path]: { mode: '0755' } });
      assert.equal(check.comment, `The following files will be changed:\n${path}: mode - 0755\n`);
      assert.deepEqual(applied.changes, { mode: '0755' });
      assert.equal(applied.comment, `Directory ${path} updated`);
      assert.equal((await env.ctx.host.stat(path))?.mode, 0o755);
    });

    test('an existing directory without attributes is in sync', async () => {
      const env = makeEnv();
      const check = await kind.check(env.ctx, { path: env.root }, node('directory', { path: env.root }));
      assert.equal(check.inSync, true);
    });

    test('a missing parent fails unless makedirs', async () => {
      const env = makeEnv();
      const path = join(env.root, 'a', 'b');
      const { applied } = await converge(kind, env, { path });
      assert.equal(applied.ok, false);
      assert.equal(applied.comment, `No directory to create ${path} in`);
      assert.equal(await env.ctx.host.lstat(join(env.root, 'a')), null);
      await convergeIdempotent(kind, env, { path, makedirs: true });
      assert.equal((await env.ctx.host.stat(path))?.type, 'directory');
    });

    test('a file in the way is a failure', async () => {
      const env = makeEnv();
      const path = join(env.root, 'f');
      await env.ctx.host.writeFileAtomic(path, 'x');
      await assert.rejects(kind.check(env.ctx, { path }, node('directory', { path })), { message: `Specified location ${path} exists and is a file` });
      const below = join(path, 'sub');
      const { applied } = await converge(kind, env, { path: below, makedirs: true });
      assert.equal(applied.ok, false);
      assert.equal(applied.comment, `Parent ${path} of ${below} exists and is not a directory`);
    });

    test('params are validated', () => {
      const params = { path: '/x', recurse: true };
      assert.deepEqual(
        kind.validate(params, node('directory', params)).map((d) => d.message),
        ['directory "directory-1": unknown param "recurse"'],
      );
    });
  });
}

test('directory owner by name (fake)', async () => {
  const env = fakeEnv();
  const path = '/srv/work/site';
  const { applied } = await convergeIdempotent(kind, env, { path, owner: 'deploy', group: 'web', mode: '2775' });
  assert.deepEqual(applied.changes, { [path]: { directory: 'new' } });
  const st = await env.host.stat(path);
  assert.deepEqual([st?.uid, st?.gid, st?.mode], [1001, 2000, 0o2775]);
  await env.host.chown(path, 0, -1);
  const check = await kind.check(env.ctx, { path, owner: 'deploy' }, node('directory', { path }));
  assert.deepEqual(check.changes, { [path]: { user: 'deploy' } });
});
