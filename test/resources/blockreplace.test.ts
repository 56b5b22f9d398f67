/** The blockreplace kind: Salt's marked-block editing. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { kind, replaceBlock } from '../../src/resources/blockreplace/index.js';
import { cleanupTemps, convergeIdempotent, envs } from './fs-helpers.js';

after(cleanupTemps);

const base = { path: '/x', marker_start: '# B', marker_end: '# E', content: 'new', append_if_not_found: false, prepend_if_not_found: false, backup: '.bak' };

test('the block between the markers is replaced; missing markers are added where asked, or refused', () => {
  assert.equal(replaceBlock('a\n# B\nold\n# E\nz\n', base), 'a\n# B\nnew\n# E\nz\n');
  assert.equal(replaceBlock('a', { ...base, append_if_not_found: true }), 'a\n# B\nnew\n# E\n');
  assert.equal(replaceBlock('a\n', { ...base, prepend_if_not_found: true }), '# B\nnew\n# E\na\n');
  assert.equal(replaceBlock('a\nb\n', { ...base, insert_after_match: '^a' }), 'a\n# B\nnew\n# E\nb\n');
  assert.throws(() => replaceBlock('a\n', base), { message: 'Cannot edit marked block. Markers were not found in file.' });
  assert.throws(() => replaceBlock('# B\nx\n', base), { message: 'Unterminated marked block. End of file reached before marker_end.' });
});

for (const makeEnv of envs) {
  describe(`blockreplace on ${makeEnv().name} host`, () => {
    test('changes once, keeping a backup', async () => {
      const env = makeEnv();
      const path = join(env.root, 'f');
      await env.ctx.host.writeFileAtomic(path, 'a\n# B\nold\n# E\n');
      const { check, applied, recheck } = await convergeIdempotent(kind, env, { path, marker_start: '# B', marker_end: '# E', content: 'new' });
      assert.equal(check.comment, 'Changes would be made');
      assert.deepEqual([applied.comment, applied.changes], ['Changes were made', { diff: '--- \n+++ \n@@ -1,4 +1,4 @@\n a\n # B\n-old\n+new\n # E\n' }]);
      assert.equal(recheck.comment, 'No changes needed to be made');
      assert.equal((await env.ctx.host.readFile(`${path}.bak`)).toString(), 'a\n# B\nold\n# E\n');
    });
  });
}
