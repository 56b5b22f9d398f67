/** The exists, copy, rename, hardlink and comment kinds (Salt's file.exists/missing/copy/rename/hardlink/comment/uncomment). */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { kind as comment } from '../../src/resources/comment/index.js';
import { kind as copy } from '../../src/resources/copy/index.js';
import { kind as exists } from '../../src/resources/exists/index.js';
import { kind as hardlink } from '../../src/resources/hardlink/index.js';
import { kind as rename } from '../../src/resources/rename/index.js';
import { cleanupTemps, converge, convergeIdempotent, envs, localEnv, node } from './fs-helpers.js';

after(cleanupTemps);

for (const makeEnv of envs) {
  describe(`file operations on ${makeEnv().name} host`, () => {
    test('exists and missing assert without changing anything', async () => {
      const env = makeEnv();
      const here = join(env.root, 'here');
      await env.ctx.host.writeFileAtomic(here, 'x');
      const ok = await exists.check(env.ctx, { path: here }, node('exists', { path: here }));
      assert.deepEqual([ok.inSync, ok.comment], [true, `Path ${here} exists`]);
      const gone = join(env.root, 'gone');
      await assert.rejects(exists.check(env.ctx, { path: gone }, node('exists', { path: gone })), { message: `Specified path ${gone} does not exist` });
      await assert.rejects(exists.check(env.ctx, { path: here, present: false }, node('exists', { path: here })), { message: `Specified path ${here} exists` });
    });

    test('copy: copied once, an existing target is kept unless forced', async () => {
      const env = makeEnv();
      const src = join(env.root, 'src');
      const dst = join(env.root, 'dst');
      await env.ctx.host.writeFileAtomic(src, 'data\n', { mode: 0o640 });
      const { check, applied } = await convergeIdempotent(copy, env, { path: dst, source: src });
      assert.equal(check.comment, `File "${src}" is set to be copied to "${dst}"`);
      assert.deepEqual(applied.changes, { [dst]: src });
      assert.equal(applied.comment, `Copied "${src}" to "${dst}"`);
      assert.equal((await env.ctx.host.stat(dst))?.mode, 0o640);
      await env.ctx.host.writeFileAtomic(src, 'new\n');
      const kept = await copy.check(env.ctx, { path: dst, source: src }, node('copy', {}));
      assert.deepEqual([kept.inSync, kept.comment], [true, `The target file "${dst}" exists and will not be overwritten`]);
      const forced = await converge(copy, env, { path: dst, source: src, force: true, mode: '0600' });
      assert.deepEqual(forced.applied.changes, { [dst]: src, mode: '0600' });
      assert.equal((await env.ctx.host.readFile(dst)).toString(), 'new\n');
    });

    test('copy: a missing target directory fails unless makedirs', async () => {
      const env = makeEnv();
      const src = join(env.root, 'src');
      await env.ctx.host.writeFileAtomic(src, 'x');
      const dst = join(env.root, 'a', 'b');
      const { applied } = await converge(copy, env, { path: dst, source: src });
      assert.deepEqual([applied.ok, applied.comment], [false, `The target directory ${join(env.root, 'a')} is not present`]);
      await convergeIdempotent(copy, env, { path: dst, source: src, makedirs: true });
    });

    test('comment and uncomment keep a backup and say what they did', async () => {
      const env = makeEnv();
      const f = join(env.root, 'sshd');
      await env.ctx.host.writeFileAtomic(f, 'PermitRootLogin yes\nPort 22\n');
      const { check, applied, recheck } = await convergeIdempotent(comment, env, { path: f, regex: '^PermitRootLogin' });
      assert.deepEqual(check.changes, { [f]: 'updated' });
      assert.equal(applied.comment, 'Commented lines successfully');
      assert.equal(applied.changes?.diff, '--- \n+++ \n@@ -1,2 +1,2 @@\n-PermitRootLogin yes\n+#PermitRootLogin yes\n Port 22\n');
      assert.equal(recheck.comment, 'Pattern already commented');
      assert.equal((await env.ctx.host.readFile(`${f}.bak`)).toString(), 'PermitRootLogin yes\nPort 22\n');
      const back = await convergeIdempotent(comment, env, { path: f, regex: 'PermitRootLogin', uncomment: true, backup: '' });
      assert.equal(back.applied.comment, 'Uncommented lines successfully');
      assert.equal((await env.ctx.host.readFile(f)).toString(), 'PermitRootLogin yes\nPort 22\n');
      await assert.rejects(comment.check(env.ctx, { path: f, regex: '^Nothing' }, node('comment', {})), { message: 'Nothing: Pattern not found' });
    });
  });
}

test('local: rename moves once; a forced rename replaces the target', async () => {
  const env = localEnv();
  const src = join(env.root, 'a');
  const dst = join(env.root, 'b');
  fs.writeFileSync(src, 'one');
  const { check, applied, recheck } = await convergeIdempotent(rename, env, { path: dst, source: src });
  assert.equal(check.comment, `File "${src}" is set to be moved to "${dst}"`);
  assert.equal(applied.comment, `Moved "${src}" to "${dst}"`);
  assert.equal(recheck.comment, `Source file "${src}" has already been moved out of place`);
  fs.writeFileSync(src, 'two');
  const kept = await rename.check(env.ctx, { path: dst, source: src }, node('rename', {}));
  assert.equal(kept.comment, `The target file "${dst}" exists and will not be overwritten`);
  await convergeIdempotent(rename, env, { path: dst, source: src, force: true });
  assert.equal(fs.readFileSync(dst, 'utf8'), 'two');
});

test('local: hardlink links to the target, and refuses a file in the way without force', async () => {
  const env = localEnv();
  const target = join(env.root, 't');
  const link = join(env.root, 'l');
  fs.writeFileSync(target, 'x');
  const { check, applied, recheck } = await convergeIdempotent(hardlink, env, { path: link, target });
  assert.equal(check.comment, `Hard link ${link} to ${target} is set for creation`);
  assert.deepEqual(applied.changes, { new: link });
  assert.equal(recheck.comment, `The hard link ${link} is presently targetting ${target}`);
  assert.equal(fs.statSync(link).ino, fs.statSync(target).ino);
  const busy = join(env.root, 'busy');
  fs.writeFileSync(busy, 'y');
  await assert.rejects(hardlink.check(env.ctx, { path: busy, target }, node('hardlink', {})), { message: `File or directory exists where the hard link ${busy} should be. Did you mean to use force?` });
  const forced = await converge(hardlink, env, { path: busy, target, force: true });
  assert.deepEqual(forced.applied.changes, { forced: 'File for hard link was forcibly replaced', new: busy });
});
