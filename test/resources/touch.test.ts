import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { kind } from '../../src/resources/touch/index.js';
import { cleanupTemps, converge, convergeIdempotent, envs, fakeEnv, localEnv, node } from './fs-helpers.js';

after(cleanupTemps);

for (const makeEnv of envs) {
  describe(`touch on ${makeEnv().name} host`, () => {
    test('a missing file is created empty, then exists with the correct times', async () => {
      const env = makeEnv();
      const path = join(env.root, 'flag');
      const { check, applied, recheck } = await convergeIdempotent(kind, env, { path });
      assert.equal(check.comment, `File ${path} is set to be created`);
      assert.deepEqual(check.changes, { new: path });
      assert.equal(applied.comment, `Created empty file ${path}`);
      assert.deepEqual(applied.changes, { new: path });
      assert.equal(recheck.comment, `File ${path} exists and has the correct times`);
      assert.equal((await env.ctx.host.readFile(path)).length, 0);
    });

    test('a missing parent fails without makedirs', async () => {
      const env = makeEnv();
      const path = join(env.root, 'no', 'flag');
      const { applied } = await converge(kind, env, { path });
      assert.equal(applied.ok, false);
      assert.equal(applied.comment, `Directory not present to touch file ${path}`);
      await convergeIdempotent(kind, env, { path, makedirs: true });
    });
  });
}

test('local: mtime is set and then in sync; refresh updates an existing file every run', async () => {
  const env = localEnv();
  const path = join(env.root, 'f');
  fs.writeFileSync(path, 'keep');
  const { check, applied } = await convergeIdempotent(kind, env, { path, mtime: 1_000_000_000 });
  assert.equal(check.comment, `Times set to be updated on file ${path}`);
  assert.deepEqual(applied.changes, { touched: path });
  assert.equal(applied.comment, `Updated times on file ${path}`);
  assert.equal(Math.floor(fs.statSync(path).mtimeMs / 1000), 1_000_000_000);
  assert.equal(fs.readFileSync(path, 'utf8'), 'keep');
  const { applied: again } = await converge(kind, env, { path, refresh: true });
  assert.deepEqual(again.changes, { touched: path });
  assert.ok(fs.statSync(path).mtimeMs > 1_000_000_000_000);
  const dir = await kind.apply(env.ctx, { path: env.root, refresh: true }, await kind.check(env.ctx, { path: env.root, refresh: true }, node('touch', {})), node('touch', {}));
  assert.equal(dir.comment, `Updated times on directory ${env.root}`);
});

test('fake: times are set through the host with touch(1)', async () => {
  const env = fakeEnv();
  const path = '/srv/work/f';
  env.host.addFile(path, '');
  await converge(kind, env, { path, mtime: 5 });
  assert.deepEqual(env.host.execLog.map((c) => c.command), [['touch', '-c', '-a', '--', path], ['touch', '-c', '-m', '-d', '@5', '--', path]]);
});
