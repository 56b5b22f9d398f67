/**
 * Salt on many hosts without any SSH server: two inventory hosts with `connection: local` (two minions on
 * this machine, told apart by their ids) and one whose port refuses connections. Runs everywhere.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FileRunStore } from '../../src/store/index.js';
import { cairn, tempDir } from '../cli/cli-helpers.js';
import { freePort } from './suite.js';

test('two local minions get what the top file and pillar give each; the refusing one is unreachable; exit 4', async () => {
  const dir = tempDir('cairn-salt-fleet-local-');
  const key = join(dir, 'key.pem');
  fs.writeFileSync(key, generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs1', format: 'pem' }, publicKeyEncoding: { type: 'pkcs1', format: 'pem' } }).privateKey, { mode: 0o600 });
  const port = await freePort();
  fs.writeFileSync(join(dir, 'inventory.yaml'), `hosts:\n  one: {connection: local}\n  two: {connection: local}\n  ghost: {address: 127.0.0.1, port: ${port}, user: nobody, key: key.pem}\n`);
  const files: Record<string, string> = {
    'salt/top.sls': "base:\n  '*':\n    - common\n  'two':\n    - extra\n",
    // A render-time command: it runs on the minion (here, this machine) for each minion.
    'salt/common.sls': `{% set who = salt['cmd.run']('printf %s ' ~ grains['id'], python_shell=True) %}\nout-{{ grains['id'] }}:\n  file.managed:\n    - name: ${dir}/out-{{ who }}\n    - source: salt://files/body\n`,
    'salt/extra.sls': `extra:\n  file.managed:\n    - name: ${dir}/extra\n    - contents: {{ pillar['word'] }}\n`,
    'salt/files/body': 'from the controller\n',
    'pillar/top.sls': "base:\n  'two':\n    - two\n",
    'pillar/two.sls': 'word: only-two\n',
  };
  for (const [p, text] of Object.entries(files)) {
    fs.mkdirSync(join(dir, p, '..'), { recursive: true });
    fs.writeFileSync(join(dir, p), text);
  }
  const state = join(dir, 'state');
  const salt = (args: string[]) => cairn(['salt', ...args, '--file-root', 'salt', '--pillar-root', 'pillar', '--state-dir', state], { cwd: dir, env: { HOME: dir, SSH_AUTH_SOCK: '' } });
  const r = salt(['state.apply', '--hosts', 'all']);
  assert.equal(r.code, 4, r.stdout + r.stderr);
  assert.equal(fs.readFileSync(join(dir, 'out-one'), 'utf8'), 'from the controller\n');
  assert.equal(fs.readFileSync(join(dir, 'out-two'), 'utf8'), 'from the controller\n');
  assert.equal(fs.readFileSync(join(dir, 'extra'), 'utf8'), 'only-two\n');
  assert.match(r.stdout, /^one:\n----------\n {10}ID: out-one\n/);
  assert.match(r.stdout, /\nSummary for one\n-+\nSucceeded: 1 \(changed=1\)\n/);
  assert.match(r.stdout, /\ntwo:\n----------\n {10}ID: out-two\n/);
  assert.match(r.stdout, /\nSummary for two\n-+\nSucceeded: 2 \(changed=2\)\n/);
  assert.match(r.stdout, new RegExp(`\\nunreachable:\\n  ghost: connection refused by 127\\.0\\.0\\.1:${port}\\n3 hosts: 2 changed, 0 ok, 0 failed, 1 unreachable \\(run 1\\)\\n$`));
  const record = JSON.parse(cairn(['history', '1', '--state-dir', state, '--out', 'json']).stdout) as { results: Array<{ host: string; id: string }> };
  assert.deepEqual(record.results.map((x) => `${x.host} ${x.id.split('_|-')[1]}`).sort(), ['one out-one', 'two extra', 'two out-two']);
  // The drift view (hosts × resources) has each minion's states under that minion.
  const drift = await new FileRunStore(state).drift();
  assert.deepEqual(drift.map((e) => `${e.host} ${e.resource.split('_|-')[1]} ${e.state}`).sort(), ['one out-one ok', 'two extra ok', 'two out-two ok']);

  const again = salt(['state.apply', '--hosts', 'one,two', '--detailed-exitcode', '--out', 'json']);
  assert.equal(again.code, 0, again.stdout + again.stderr);
  const byMinion = JSON.parse(again.stdout) as Record<string, Record<string, { result: boolean; changes: object }>>;
  assert.deepEqual(Object.keys(byMinion), ['one', 'two']);
  assert.deepEqual(Object.values(byMinion).flatMap((m) => Object.values(m).map((x) => [x.result, Object.keys(x.changes).length])), [[true, 0], [true, 0], [true, 0]]);

  const unsupported = salt(['state.single', 'test.nop', 'x', '--hosts', 'one']);
  assert.equal(unsupported.code, 1);
  assert.match(unsupported.stderr, /state\.single does not run on --hosts yet/);
  const withId = salt(['state.apply', '--hosts', 'one', '--id', 'other']);
  assert.equal(withId.code, 1);
  assert.match(withId.stderr, /--id names one minion/);
});

test('a minion whose run outlasts --command-timeout is failed: Salt\'s no-return line, then why; exit 1', () => {
  const dir = tempDir('cairn-salt-fleet-timeout-');
  fs.writeFileSync(join(dir, 'inventory.yaml'), 'hosts:\n  slow: {connection: local}\n');
  fs.mkdirSync(join(dir, 'salt'));
  fs.writeFileSync(join(dir, 'salt', 'top.sls'), "base:\n  '*':\n    - wait\n");
  fs.writeFileSync(join(dir, 'salt', 'wait.sls'), 'wait:\n  cmd.run:\n    - name: sleep 3\n');
  const r = cairn(['salt', 'state.apply', '--hosts', 'slow', '--command-timeout', '1', '--file-root', 'salt', '--state-dir', join(dir, 'state')], { cwd: dir, env: { HOME: dir } });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.equal(r.stdout, 'slow:\n    Minion did not return. [No response]\nslow: timed out after 1 s\n1 host: 0 changed, 0 ok, 1 failed, 0 unreachable (run 1)\n');
});
