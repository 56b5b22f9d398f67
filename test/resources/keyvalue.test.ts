/** The keyvalue kind: Salt's file.keyvalue line editing. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { editKeyValues, kind } from '../../src/resources/keyvalue/index.js';
import { cleanupTemps, convergeIdempotent, envs } from './fs-helpers.js';

after(cleanupTemps);

const opts = { path: '/x', separator: '=', append_if_not_found: false, prepend_if_not_found: false, ignore_if_missing: false, count: 1, key_ignore_case: false, value_ignore_case: false };

test('values are set, a second occurrence removed, a missing key appended with Salt\'s listing', () => {
  const r = editKeyValues(['a=1\n', 'a=2\n', 'b=3\n'], { ...opts, append_if_not_found: true, entries: [{ key: 'a', value: '5', type: 'int' }, { key: 'c', value: 'x' }] });
  assert.deepEqual(r.content, ['a=5\n', 'b=3\n', 'c=x\n']);
  assert.equal(r.diff.join(''), '- a=1\n+ a=5 (from int type)\n- a=2\n- <EOF>\n+ c=x\n+ <EOF>\n');
  assert.equal(r.changes, 3);
});

for (const makeEnv of envs) {
  describe(`keyvalue on ${makeEnv().name} host`, () => {
    test('changes once', async () => {
      const env = makeEnv();
      const path = join(env.root, 'f');
      await env.ctx.host.writeFileAtomic(path, '#Port 22\n');
      const { applied, recheck } = await convergeIdempotent(kind, env, { path, separator: ' ', uncomment: '#', entries: [{ key: 'Port', value: '2222' }] });
      assert.equal(applied.comment, 'Changed 1 lines');
      assert.equal(recheck.comment, '');
      assert.equal((await env.ctx.host.readFile(path)).toString(), 'Port 2222\n');
    });
  });
}
