import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { kind } from '../../src/resources/cleandir/index.js';
import { cleanupTemps, convergeIdempotent, envs } from './fs-helpers.js';

after(cleanupTemps);

for (const makeEnv of envs) {
  describe(`cleandir on ${makeEnv().name} host`, () => {
    test('what is not kept goes; kept files, their parents and kept directories stay', async () => {
      const env = makeEnv();
      const d = join(env.root, 'conf.d');
      const h = env.ctx.host;
      await h.mkdir(join(d, 'sub', 'deep'), { recursive: true });
      await h.mkdir(join(d, 'keepdir', 'x'), { recursive: true });
      for (const f of ['a.conf', 'junk', 'sub/deep/kept', 'sub/old', 'keepdir/x/y']) await h.writeFileAtomic(join(d, f), f);
      await h.mkdir(join(d, 'stale', 'inner'), { recursive: true });
      const keep = [join(d, 'a.conf'), join(d, 'sub/deep/kept'), join(d, 'keepdir'), '/elsewhere/file'];
      const { check, applied, recheck } = await convergeIdempotent(kind, env, { path: d, keep });
      const gone = [join(d, 'junk'), join(d, 'stale'), join(d, 'stale/inner'), join(d, 'sub/old')];
      assert.deepEqual(Object.keys(check.changes ?? {}), gone);
      assert.deepEqual(check.changes?.[join(d, 'junk')], { removed: 'Removed due to clean' });
      assert.equal(check.comment, `The following files will be changed:\n${gone.map((g) => `${g}: removed - Removed due to clean\n`).join('')}`);
      // Salt's record: every stale path its pre-check found, then what was removed (a directory takes its contents).
      const found = Object.fromEntries(['junk', 'stale', 'stale/inner', 'sub/old'].map((n) => [join(d, n), { removed: 'Removed due to clean' }]));
      assert.deepEqual(applied.changes, { ...found, removed: [join(d, 'junk'), join(d, 'stale'), join(d, 'sub/old')] });
      assert.equal(applied.comment, `Files cleaned from directory ${d}`);
      assert.equal(recheck.comment, `The directory ${d} is in the correct state`);
      assert.deepEqual((await h.readdir(d)).sort(), ['a.conf', 'keepdir', 'sub']);
      assert.deepEqual(await h.readdir(join(d, 'keepdir', 'x')), ['y']);
    });

    test('a missing directory is created like the directory kind does; exclude_pat protects paths', async () => {
      const env = makeEnv();
      const d = join(env.root, 'new');
      const { applied } = await convergeIdempotent(kind, env, { path: d, mode: '0750' });
      assert.deepEqual(applied.changes, { [d]: { directory: 'new' } });
      await env.ctx.host.writeFileAtomic(join(d, 'x.keep'), '');
      await env.ctx.host.writeFileAtomic(join(d, 'x.tmp'), '');
      await convergeIdempotent(kind, env, { path: d, mode: '0750', exclude_pat: '*.keep' });
      assert.deepEqual(await env.ctx.host.readdir(d), ['x.keep']);
    });
  });
}
