import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { kind } from '../../src/resources/replace/index.js';
import { expandRepl, flagBits, pyDiff, splitLinesKeep } from '../../src/resources/replace/pytext.js';
import { cleanupTemps, converge, convergeIdempotent, envs, node } from './fs-helpers.js';

after(cleanupTemps);

for (const makeEnv of envs) {
  describe(`replace on ${makeEnv().name} host`, () => {
    test('a matching line is replaced with a difflib diff, a .bak copy is kept, then no changes', async () => {
      const env = makeEnv();
      const path = join(env.root, 'app.conf');
      await env.ctx.host.writeFileAtomic(path, 'a = 1\nb = 2\nc = 3\n');
      const { check, applied, recheck } = await convergeIdempotent(kind, env, { path, pattern: '^b = .*$', repl: 'b = 20' });
      const diff = '--- \n+++ \n@@ -1,3 +1,3 @@\n a = 1\n-b = 2\n+b = 20\n c = 3\n';
      assert.deepEqual(check.changes, { diff });
      assert.equal(check.comment, 'Changes would have been made');
      assert.deepEqual(applied.changes, { diff });
      assert.equal(applied.comment, 'Changes were made');
      assert.equal(recheck.comment, 'No changes needed to be made');
      assert.equal((await env.ctx.host.readFile(path)).toString(), 'a = 1\nb = 20\nc = 3\n');
      assert.equal((await env.ctx.host.readFile(`${path}.bak`)).toString(), 'a = 1\nb = 2\nc = 3\n');
    });

    test('groups, count and flags as Python re does them', async () => {
      const env = makeEnv();
      const path = join(env.root, 'f');
      await env.ctx.host.writeFileAtomic(path, 'Port 22\nport 23\nport 24\n');
      await converge(kind, env, { path, pattern: '^port (\\d+)', repl: 'port=\\1', count: 1, flags: ['IGNORECASE', 'MULTILINE'], backup: false });
      assert.equal((await env.ctx.host.readFile(path)).toString(), 'port=22\nport 23\nport 24\n');
      assert.equal(await env.ctx.host.lstat(`${path}.bak`), null);
    });

    test('append_if_not_found adds the text once; prepend_if_not_found puts it first', async () => {
      const env = makeEnv();
      const path = join(env.root, 'f');
      await env.ctx.host.writeFileAtomic(path, 'x = 1');
      const { applied } = await convergeIdempotent(kind, env, { path, pattern: '^y = .*$', repl: 'y = 2', append_if_not_found: true, backup: false });
      assert.equal((await env.ctx.host.readFile(path)).toString(), 'x = 1\ny = 2\n');
      assert.equal(applied.changes?.diff, '--- \n+++ \n@@ -1 +1,2 @@\n-x = 1+x = 1\n+y = 2\n');
      await convergeIdempotent(kind, env, { path, pattern: '^z', repl: 'z', not_found_content: '# top', prepend_if_not_found: true, backup: false });
      assert.equal((await env.ctx.host.readFile(path)).toString(), '# top\nx = 1\ny = 2\n');
    });

    test('a missing file fails unless ignore_if_missing; check changes nothing', async () => {
      const env = makeEnv();
      const path = join(env.root, 'none');
      await assert.rejects(kind.check(env.ctx, { path, pattern: 'a', repl: 'b' }, node('replace', { path })), { message: `${path}: file not found` });
      const c = await kind.check(env.ctx, { path, pattern: 'a', repl: 'b', ignore_if_missing: true }, node('replace', { path }));
      assert.equal(c.inSync, true);
      assert.equal(c.comment, 'No changes needed to be made');
    });
  });
}

test('Python helpers: flags, replacement templates, splitlines, diff without newline markers', async () => {
  assert.equal(flagBits(undefined), 8);
  assert.equal(flagBits(['IGNORECASE', 'MULTILINE']), 10);
  assert.throws(() => flagBits('NOPE'), /Invalid re flag given: NOPE/);
  assert.equal(expandRepl('\\g<1>-\\2\\n', ['ab', 'a', 'b']), 'a-b\n');
  assert.deepEqual(splitLinesKeep('a\nb\r\nc'), ['a\n', 'b\r\n', 'c']);
  assert.equal(await pyDiff('a\nb', 'a\nc'), '--- \n+++ \n@@ -1,2 +1,2 @@\n a\n-b+c');
});

test('validation refuses append together with prepend', () => {
  const params = { path: '/x', pattern: 'a', repl: 'b', append_if_not_found: true, prepend_if_not_found: true };
  assert.match(kind.validate(params, node('replace', params))[0]?.message ?? '', /Only one of append and prepend_if_not_found/);
});
