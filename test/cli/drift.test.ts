// `cairn drift [PATTERN]`: the latest known state of every resource per host (what is drifted, since when,
// from which run), from the run store's drift query, filtered by a host pattern.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cairn, tempDir } from './cli-helpers.js';

interface Entry {
  host: string;
  resource: string;
  state: string;
  runId: number;
  sinceRunId: number;
}

test('drift shows each host\'s resources in their latest state, since which run, filtered by a pattern', () => {
  const dir = tempDir('cairn-drift-');
  // Two inventory hosts that are both this machine, each with its own file.
  fs.writeFileSync(join(dir, 'inventory.yaml'), 'hosts:\n  web1: {connection: local}\n  db1: {connection: local}\ngroups:\n  web: {hosts: [web1]}\n');
  const graph = (host: string) => {
    const file = join(dir, `${host}.json`);
    fs.writeFileSync(file, JSON.stringify({ version: 1, nodes: [{ id: 'motd', type: 'file', params: { path: join(dir, `${host}.motd`), content: 'hello\n' } }] }));
    return file;
  };
  const state = join(dir, 'state');
  const run = (...args: string[]) => cairn([...args, '--state-dir', state], { cwd: dir, env: { CAIRN_STORE: '' } });
  assert.equal(run('drift').stdout, 'nothing recorded yet\n');
  assert.equal(run('apply', graph('web1'), '--hosts', 'web1').code, 0); // run 1
  assert.equal(run('apply', graph('db1'), '--hosts', 'db1').code, 0); // run 2
  fs.writeFileSync(join(dir, 'web1.motd'), 'changed by hand\n');
  assert.equal(run('collect', graph('web1'), '--hosts', 'web1').code, 0); // run 3: web1 drifted
  assert.equal(run('collect', graph('web1'), '--hosts', 'web1').code, 0); // run 4: still drifted

  const all = run('drift', '--out', 'json');
  assert.equal(all.code, 0, all.stderr);
  const entries = JSON.parse(all.stdout) as Entry[];
  assert.deepEqual(
    entries.map((e) => [e.host, e.resource, e.state, e.sinceRunId, e.runId]),
    [
      ['db1', 'motd', 'ok', 2, 2],
      ['web1', 'motd', 'drifted', 3, 4],
    ],
  );
  const text = run('drift');
  assert.match(text.stdout, /^HOST +RESOURCE +TYPE +STATE +SINCE +LAST RUN +COMMENT\n/);
  assert.match(text.stdout, /\nweb1 +motd +file +drifted +\d{4}-\d\d-\d\d \d\d:\d\dZ \(run 3\) +4 /);
  assert.match(text.stdout, /\n2 resources on 2 hosts: 1 ok, 1 drifted, 0 failed, 0 unknown\n$/);

  // A group of the inventory, a glob, an exclusion, a name only the store knows.
  const hostsOf = (...args: string[]) => (JSON.parse(run('drift', ...args, '--out', 'json').stdout) as Entry[]).map((e) => e.host);
  assert.deepEqual(hostsOf('web'), ['web1']);
  assert.deepEqual(hostsOf('db*'), ['db1']);
  assert.deepEqual(hostsOf('all,!web'), ['db1']);
  assert.deepEqual(hostsOf('--state', 'drifted'), ['web1']);
  assert.equal(run('drift', 'db1', '--detailed-exitcode').code, 0);
  assert.equal(run('drift', '--detailed-exitcode').code, 2);
  const unknown = run('drift', 'nosuch');
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /unknown host or group "nosuch"/);

  // Fixed: the next apply brings web1 back in sync, since that run.
  assert.equal(run('apply', graph('web1'), '--hosts', 'web1').code, 0); // run 5
  assert.deepEqual((JSON.parse(run('drift', 'web1', '--out', 'json').stdout) as Entry[]).map((e) => [e.state, e.sinceRunId]), [['ok', 5]]);
});
