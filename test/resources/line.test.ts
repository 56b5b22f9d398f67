import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { kind, lineText } from '../../src/resources/line/index.js';
import { cleanupTemps, converge, convergeIdempotent, envs, node } from './fs-helpers.js';

after(cleanupTemps);

const p = (extra: Record<string, unknown>) => ({ path: '/f', indent: true, ...extra }) as Parameters<typeof lineText>[1];

for (const makeEnv of envs) {
  describe(`line on ${makeEnv().name} host`, () => {
    test('ensure after a line inserts once, Salt comments and a diff', async () => {
      const env = makeEnv();
      const path = join(env.root, 'conf');
      await env.ctx.host.writeFileAtomic(path, '[main]\na = 1\nc = 3\n');
      const { check, applied, recheck } = await convergeIdempotent(kind, env, { path, mode: 'ensure', content: 'b = 2', after: 'a = 1' });
      assert.equal(check.comment, 'Changes would be made');
      assert.equal(applied.comment, 'Changes were made');
      assert.deepEqual(applied.changes, { diff: '--- \n+++ \n@@ -1,3 +1,4 @@\n [main]\n a = 1\n+b = 2\n c = 3\n' });
      assert.equal(recheck.comment, 'No changes needed to be made');
      assert.equal((await env.ctx.host.readFile(path)).toString(), '[main]\na = 1\nb = 2\nc = 3\n');
    });

    test('a missing file fails; check changes nothing', async () => {
      const env = makeEnv();
      const path = join(env.root, 'none');
      await assert.rejects(kind.check(env.ctx, { path, mode: 'delete', match: 'x' }, node('line', { path })), { message: `${path}: file not found` });
    });
  });
}

test('replace, delete and insert as Salt _set_line does them', () => {
  assert.equal(lineText('a\nold = 1\nb\n', p({ mode: 'replace', match: '^old', content: 'new = 2' })), 'a\nnew = 2\nb\n');
  assert.equal(lineText('a\nx\nb\nx\n', p({ mode: 'delete', match: 'x' })), 'a\nb\n');
  assert.equal(lineText('a\nb\n', p({ mode: 'insert', location: 'start', content: 'top' })), 'top\na\nb\n');
  // Salt's quirk: after a final newline, `end` lands after an empty line, without a newline of its own.
  assert.equal(lineText('a\nb\n', p({ mode: 'insert', location: 'end', content: 'end' })), 'a\nb\n\nend');
  assert.equal(lineText('a\nb', p({ mode: 'insert', location: 'end', content: 'end' })), 'a\nb\nend');
  // The inserted line takes the indentation of its neighbour.
  assert.equal(lineText('[s]\n  a = 1\n', p({ mode: 'ensure', after: 'a = 1', content: 'b = 2' })), '[s]\n  a = 1\n  b = 2\n');
  assert.equal(lineText('a\nb\n', p({ mode: 'insert', before: '^b', content: 'mid' })), 'a\nmid\nb\n');
  assert.equal(lineText('a\nmid\nb\n', p({ mode: 'insert', before: '^b', content: 'mid' })), 'a\nmid\nb\n');
  assert.equal(lineText('a\nb\n', p({ mode: 'ensure', before: 'b', after: 'a', content: 'm' })), 'a\nm\nb\n');
  assert.equal(lineText('a\nb\n', p({ mode: 'replace', match: 'zzz', content: 'q' })), 'a\nb\n');
  assert.throws(() => lineText('x\nx\n', p({ mode: 'ensure', after: 'x', content: 'q' })), /Found more than expected occurrences in "after" expression/);
  assert.throws(() => lineText('a\n', p({ mode: 'ensure', content: 'q' })), /Wrong conditions\?/);
  assert.throws(() => lineText('a\n', p({ mode: 'insert', content: 'q' })), /On insert either "location" or "before\/after" conditions are required\./);
});

test('create: a missing file is made and edited; with nothing to add it is still created', async () => {
  const { fakeEnv } = await import('./fs-helpers.js');
  const env = fakeEnv();
  const path = '/srv/work/new.conf';
  // insert with a location adds the line on every run, as Salt's does: one apply only here.
  const { applied } = await converge(kind, env, { path, mode: 'insert', location: 'end', content: 'a = 1', create: true });
  assert.equal(applied.comment, 'Changes were made');
  assert.equal(env.host.contentOf(path), 'a = 1');
  const empty = '/srv/work/empty.conf';
  const r = await convergeIdempotent(kind, env, { path: empty, mode: 'delete', match: 'x', create: true });
  assert.equal(r.applied.comment, 'No changes needed to be made');
  assert.deepEqual(r.applied.changes, {});
  assert.equal(env.host.contentOf(empty), '');
});
