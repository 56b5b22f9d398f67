// --detailed-exitcode works for Salt as for every front end: 2 when the states succeeded with changes
// (pending under test=True, or made), 0 when nothing changed; a failure stays 1 (salt-call's exit).
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cairn, tempDir } from '../../cli/cli-helpers.js';

test('salt --detailed-exitcode: 2 for pending or made changes, 0 for none, 1 for a failure', () => {
  const dir = tempDir('cairn-salt-exit-');
  const roots = join(dir, 'srv');
  mkdirSync(roots);
  writeFileSync(join(roots, 'site.sls'), `conf:\n  file.managed:\n    - name: ${join(dir, 'app.conf')}\n    - contents: hello\n`);
  writeFileSync(join(roots, 'bad.sls'), `boom:\n  test.fail_without_changes: []\n`);
  const run = (...args: string[]) => cairn(['salt', 'state.apply', ...args, '--file-root', roots, '--state-dir', join(dir, 'state'), '--out', 'json']);
  assert.equal(run('site', 'test=True').code, 0, 'without the flag, salt-call\'s exit');
  assert.equal(run('site', 'test=True', '--detailed-exitcode').code, 2);
  assert.equal(run('site', '--detailed-exitcode').code, 2);
  assert.equal(run('site', '--detailed-exitcode').code, 0);
  assert.equal(run('bad', '--detailed-exitcode').code, 1);
});
