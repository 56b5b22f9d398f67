/** Values given on the command line that may be secret never reach the run history or the lock file. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { maskArgs } from '../../src/core/command-line.js';
import { cairn, tempDir } from './cli-helpers.js';

test('param values are masked, names and other options kept', () => {
  assert.deepEqual(maskArgs(['apply', 'x.hcl', '-p', 'pw=hunter2', '--params', 'a=b=c', '--var=k=v', '-pq=1', '--state-dir', '/s', '--state-dir=/t']), [
    'apply',
    'x.hcl',
    '-p',
    'pw=********',
    '--params',
    'a=********',
    '--var=k=********',
    '-pq=********',
    '--state-dir',
    '/s',
    '--state-dir=/t',
  ]);
  assert.deepEqual(maskArgs(['state.apply', 'web', 'pillar={"pw": "hunter2"}', 'prog.zdb', 'apply', 'token=s3cr3t']), ['state.apply', 'web', 'pillar=********', 'prog.zdb', 'apply', 'token=********']);
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

test('a Salt run with pillar= on the command line stores its name, not its value', () => {
  const dir = tempDir();
  const root = join(dir, 'srv');
  mkdirSync(root);
  writeFileSync(join(root, 'site.sls'), `hello:\n  test.succeed_without_changes: []\n`);
  const state = join(dir, 'state');
  const r = cairn(['salt', 'state.apply', 'site', '--file-root', root, '--state-dir', state, 'pillar={"pw": "PLANTED-hunter2"}']);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  const files = filesUnder(state);
  assert.ok(files.length > 0);
  for (const f of files) assert.ok(!readFileSync(f, 'utf8').includes('PLANTED-hunter2'), `${f} holds the pillar value`);
  const history = cairn(['history', '1', '--state-dir', state, '--out', 'json']);
  assert.match(JSON.parse(history.stdout).command, /pillar=\*{8}$/);
});
