/**
 * The fleet path without any SSH server: an inventory host with `connection: local` and one whose port
 * refuses connections. Runs everywhere (CI without sshd included).
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cairn, tempDir } from '../cli/cli-helpers.js';
import { freePort } from './suite.js';

test('a local inventory host is changed, a refusing one is unreachable; exit 4; results name their host', async () => {
  const dir = tempDir('cairn-fleet-local-');
  const key = join(dir, 'key.pem');
  fs.writeFileSync(key, generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs1', format: 'pem' }, publicKeyEncoding: { type: 'pkcs1', format: 'pem' } }).privateKey, { mode: 0o600 });
  const port = await freePort();
  fs.writeFileSync(join(dir, 'inventory.yaml'), `hosts:\n  laptop: {connection: local}\n  ghost: {address: 127.0.0.1, port: ${port}, user: nobody, key: key.pem}\n`);
  fs.writeFileSync(join(dir, 'graph.json'), JSON.stringify({ version: 1, nodes: [{ id: 'f', type: 'file', params: { path: join(dir, 'out.txt'), content: 'here\n' } }] }));
  const state = join(dir, 'state');
  // ./inventory.yaml is the default inventory.
  const r = cairn(['apply', 'graph.json', '--hosts', 'all', '--state-dir', state], { cwd: dir, env: { HOME: dir, SSH_AUTH_SOCK: '' } });
  assert.equal(r.code, 4, r.stdout + r.stderr);
  assert.equal(fs.readFileSync(join(dir, 'out.txt'), 'utf8'), 'here\n');
  assert.match(r.stdout, /^== laptop\nchanged file f /m);
  assert.match(r.stdout, new RegExp(`unreachable:\\n  ghost: connection refused by 127\\.0\\.0\\.1:${port}\\n2 hosts: 1 changed, 0 ok, 0 failed, 1 unreachable \\(run 1\\)\\n$`));
  const json = cairn(['plan', 'graph.json', '--limit', 'laptop', '--state-dir', state, '--out', 'json', '--detailed-exitcode'], { cwd: dir });
  assert.equal(json.code, 0);
  const out = JSON.parse(json.stdout) as { totals: unknown; hosts: Record<string, { status: string }> };
  assert.deepEqual(out.totals, { hosts: 1, changed: 0, ok: 1, failed: 0, unreachable: 0 });
  assert.equal(out.hosts.laptop?.status, 'ok');
  const record = JSON.parse(cairn(['history', '1', '--state-dir', state, '--out', 'json']).stdout) as { results: Array<{ host: string; id: string }> };
  assert.deepEqual(
    record.results.map((x) => `${x.host}:${x.id}`),
    ['laptop:f'],
  );
});

test('without an inventory, --hosts says where one is expected', () => {
  const dir = tempDir('cairn-fleet-none-');
  fs.writeFileSync(join(dir, 'graph.json'), JSON.stringify({ version: 1, nodes: [] }));
  const r = cairn(['plan', 'graph.json', '--hosts', 'web'], { cwd: dir });
  assert.equal(r.code, 1);
  assert.equal(r.stderr, 'cairn: no inventory: give --inventory FILE, or put one at ./inventory.yaml\n');
  const missing = cairn(['plan', 'graph.json', '--inventory', 'nope.yaml'], { cwd: dir });
  assert.equal(missing.stderr, 'cairn: cannot read inventory nope.yaml: no such file\n');
});

test('cairn hosts reads a Salt roster; --hosts and --limit may not disagree', () => {
  const dir = tempDir('cairn-fleet-roster-');
  fs.writeFileSync(join(dir, 'roster'), 'web1:\n  host: 192.0.2.11\n  user: salt\n  sudo: True\nweb2:\n  host: 192.0.2.12\n  port: 2200\n');
  const r = cairn(['hosts', 'web*', '--inventory', 'roster'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'HOST  ADDRESS          USER  BECOME  VIA  GROUPS\nweb1  192.0.2.11:22    salt  sudo    -    -\nweb2  192.0.2.12:2200  root  -       -    -\n2 hosts\n');
  fs.writeFileSync(join(dir, 'graph.json'), JSON.stringify({ version: 1, nodes: [] }));
  const both = cairn(['plan', 'graph.json', '--inventory', 'roster', '--hosts', 'web1', '--limit', 'web2'], { cwd: dir });
  assert.equal(both.code, 1);
  assert.equal(both.stderr, 'cairn: give --hosts or --limit, not both\n');
});

test('--changes-only on many hosts: each host leaves out and counts its resources already in shape', () => {
  const dir = tempDir('cairn-fleet-changes-');
  fs.writeFileSync(join(dir, 'inventory.yaml'), 'hosts:\n  laptop: {connection: local}\n');
  const nodes = ['a', 'b'].map((id) => ({ id, type: 'file', params: { path: join(dir, `${id}.txt`), content: `${id}\n` } }));
  fs.writeFileSync(join(dir, 'graph.json'), JSON.stringify({ version: 1, nodes }));
  fs.writeFileSync(join(dir, 'a.txt'), 'a\n');
  const state = join(dir, 'state');
  const r = cairn(['plan', 'graph.json', '--hosts', 'all', '--changes-only', '--state-dir', state], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^== laptop\nwould change file b /m);
  assert.doesNotMatch(r.stdout, / file a /);
  assert.match(r.stdout, /^1 unchanged not shown \(--changes-only\)\n/m);
  const all = cairn(['plan', 'graph.json', '--hosts', 'all', '--state-dir', state], { cwd: dir });
  assert.match(all.stdout, /^ok +file a /m);
});
