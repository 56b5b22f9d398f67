// --detailed-exitcode and --store work for Zapusk as for every front end: 2 when a successful run wrote or
// ran something (or would, in a dry run), 0 when it changed nothing; the run goes to the store named.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cairn, tempDir } from '../../cli/cli-helpers.js';

test('zapusk --detailed-exitcode: 2 for a dry run that would write, plain exit without it; --store records the runs', () => {
  const dir = tempDir('cairn-zapusk-exit-');
  const prog = join(dir, 'site.zdb');
  mkdirSync(prog);
  writeFileSync(join(prog, '10-site.ini'), `#### conf ####\n[file]\npath=${join(dir, 'out.txt')}\ncontent="hello\n"\n`);
  const store = join(dir, 'store');
  const run = (...args: string[]) => cairn(['zapusk', prog, ...args, '--state-dir', join(dir, 'zstate'), '--store', store]);
  assert.equal(run('plan', '--detailed-exitcode').code, 2, 'a dry run that would write');
  assert.equal(run('apply').code, 0, 'without the flag, zapusk-tool\'s exit');
  const history = cairn(['history', '--store', store, '--out', 'json']);
  assert.equal(history.code, 0, history.stderr);
  assert.deepEqual((JSON.parse(history.stdout) as Array<{ frontEnd: string }>).map((r) => r.frontEnd), ['zapusk', 'zapusk']);
});
