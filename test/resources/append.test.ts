import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { kind, whitespaceRegex } from '../../src/resources/append/index.js';
import { cleanupTemps, converge, convergeIdempotent, envs } from './fs-helpers.js';

after(cleanupTemps);

for (const makeEnv of envs) {
  describe(`append on ${makeEnv().name} host`, () => {
    test('lines not yet present are appended with file.append\'s diff; then it is in correct state', async () => {
      const env = makeEnv();
      const path = join(env.root, 'hosts');
      await env.ctx.host.writeFileAtomic(path, 'one\ntwo');
      const { check, applied, recheck } = await convergeIdempotent(kind, env, { path, text: ['two', 'three  four'] });
      assert.equal(check.comment, `File ${path} is set to be updated`);
      assert.deepEqual(check.changes, { diff: '--- \n\n+++ \n\n@@ -1,2 +1,3 @@\n\n one\n two\n+three  four' });
      assert.equal(applied.comment, 'Appended 1 lines');
      assert.deepEqual(applied.changes, check.changes);
      assert.equal(recheck.comment, `File ${path} is in correct state`);
      assert.equal((await env.ctx.host.readFile(path)).toString(), 'one\ntwo\nthree  four\n');
    });

    test('a missing file is created (makedirs for its parents); check says it is set to be created', async () => {
      const env = makeEnv();
      const path = join(env.root, 'a', 'b', 'f');
      const { check, applied } = await convergeIdempotent(kind, env, { path, text: ['x'], makedirs: true });
      assert.equal(check.comment, `File ${path} is set to be created`);
      assert.deepEqual(check.changes, { new: path });
      assert.equal(applied.comment, 'Appended 1 lines');
      assert.deepEqual(applied.changes, { diff: '--- \n\n+++ \n\n@@ -0,0 +1 @@\n\n+x' });
      const nodir = join(env.root, 'no', 'f');
      const r = await converge(kind, env, { path: nodir, text: ['x'] });
      assert.equal(r.applied.ok, false);
      assert.equal(r.applied.comment, `Directory not present to touch file ${nodir}`);
    });
  });
}

test('the whitespace-insensitive pattern of a block', () => {
  assert.equal(whitespaceRegex('a  b\nc').test('x\n a b\n c \ny'), true);
  assert.equal(whitespaceRegex('a b').test('x\nab\n'), true);
  assert.equal(whitespaceRegex('a b').test('ab c'), false);
  assert.equal(whitespaceRegex('a b').test('a c'), false);
});
