/** The hosts kind: names mapped to addresses in a hosts file, with Salt's file handling. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { kind, parseHosts, writeHosts } from '../../src/resources/hosts/index.js';
import { cleanupTemps, converge, convergeIdempotent, envs } from './fs-helpers.js';

after(cleanupTemps);

test('the file is read into addresses and comment lines, and written back one line each', () => {
  const hosts = parseHosts('127.0.0.1 localhost\n\n# static\n10.0.0.1   db  db.local # primary\n');
  assert.deepEqual([...hosts.keys()], ['127.0.0.1', 'comment-0', '10.0.0.1']);
  assert.equal(writeHosts(hosts), '127.0.0.1\t\tlocalhost\n# static\n10.0.0.1\t\tdb db.local\t\t# primary\n');
});

for (const makeEnv of envs) {
  describe(`hosts on ${makeEnv().name} host`, () => {
    test('present adds the name once; absent takes it off its line', async () => {
      const env = makeEnv();
      const path = join(env.root, 'hosts');
      await env.ctx.host.writeFileAtomic(path, '127.0.0.1 localhost\n10.0.0.1 db\n');
      const { check, applied, recheck } = await convergeIdempotent(kind, env, { path, name: 'web', ip: ['10.0.0.2'] });
      assert.equal(check.comment, 'Host web (10.0.0.2) would be added');
      assert.deepEqual(applied.changes, { added: { '10.0.0.2': ['web'] } });
      assert.equal(applied.comment, 'Added host web (10.0.0.2)');
      assert.equal(recheck.comment, 'Host web (10.0.0.2) already present');
      assert.equal((await env.ctx.host.readFile(path)).toString(), '127.0.0.1\t\tlocalhost\n10.0.0.1\t\tdb\n10.0.0.2\t\tweb\n');
      const gone = await converge(kind, env, { path, name: 'db', ip: ['10.0.0.1'], state: 'absent' });
      assert.deepEqual([gone.applied.changes, gone.applied.comment], [{ host: 'db' }, 'Removed host db (10.0.0.1)']);
      assert.equal((await env.ctx.host.readFile(path)).toString(), '127.0.0.1\t\tlocalhost\n10.0.0.2\t\tweb\n');
    });
  });
}
