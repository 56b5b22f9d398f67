// --detailed-exitcode and --store work for Zapusk as for every front end: 2 when a successful run wrote or
// ran something (or would, in a dry run), 0 when it changed nothing; the run goes to the store named.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cairn, tempDir } from '../../cli/cli-helpers.js';

test('zapusk --detailed-exitcode: 2 for a dry run that would write, plain exit without it; --store records the runs', () => {
  const dir = tempDir('cairn-zapusk-exit-');
  const prog = join(dir, 'site.zdb');
  mkdirSync(prog);
  writeFileSync(join(prog, '10-site.ini'), `#### conf ####\n[file]\npath=${join(dir, 'out.txt')}\ncontent="hello\n"\n`);
  const store = join(dir, 'store');
  const run = (...args: string[]) => cairn(['zapusk', prog, ...args, '--state_dir', join(dir, 'zstate'), '--store', store]);
  assert.equal(run('plan', '--detailed-exitcode').code, 2, 'a dry run that would write');
  assert.equal(run('apply').code, 0, 'without the flag, zapusk-tool\'s exit');
  const history = cairn(['history', '--store', store, '--out', 'json']);
  assert.equal(history.code, 0, history.stderr);
  assert.deepEqual((JSON.parse(history.stdout) as Array<{ frontEnd: string }>).map((r) => r.frontEnd), ['zapusk', 'zapusk']);
});

test('zapusk --state-dir is the run store; --state_dir (zapusk-tool) is the program state; a destroy is recorded as one; --jobs accepted', () => {
  const dir = tempDir('cairn-zapusk-store-');
  const prog = join(dir, 'site.zdb');
  mkdirSync(prog);
  const target = join(dir, 'out.txt');
  writeFileSync(join(prog, '10-site.ini'), `#### conf ####\n[file]\npath=${target}\ncontent="hello\n"\n`);
  const runStore = join(dir, 'runs');
  const progState = join(dir, 'zstate');
  // No store in the environment: the run must go where --state-dir says, nowhere else.
  const env = { CAIRN_STATE_DIR: join(dir, 'elsewhere'), CAIRN_STORE: '' };
  const apply = cairn(['zapusk', prog, 'apply', '--state-dir', runStore, '--state_dir', progState, '--jobs', '3'], { env });
  assert.equal(apply.code, 0, apply.stderr);
  assert.match(readFileSync(target, 'utf8'), /^hello/);
  assert.ok(existsSync(join(progState, 'params.txt')), 'the program instance state is under --state_dir');
  assert.ok(!existsSync(join(runStore, 'params.txt')), 'the run store holds no program state');
  const destroy = cairn(['zapusk', prog, 'destroy', '--state-dir', runStore, '--state_dir', progState], { env });
  assert.equal(destroy.code, 0, destroy.stderr);
  assert.ok(!existsSync(target), 'destroy removed the file');
  const history = cairn(['history', '--state-dir', runStore, '--out', 'json'], { env });
  assert.equal(history.code, 0, history.stderr);
  const runs = JSON.parse(history.stdout) as Array<{ frontEnd: string; mode: string }>;
  assert.deepEqual(runs.map((r) => [r.frontEnd, r.mode]), [['zapusk', 'destroy'], ['zapusk', 'apply']]);
  const text = cairn(['history', '--state-dir', runStore], { env });
  assert.match(text.stdout, /destroy/);
  assert.equal(cairn(['history', '--state-dir', runStore, '--mode', 'destroy', '--out', 'json'], { env }).stdout.match(/"mode": "destroy"/g)?.length, 1);
  // After a destroy, what it removed is no longer known to be in sync.
  const drift = JSON.parse(cairn(['drift', '--state-dir', runStore, '--out', 'json'], { env }).stdout) as Array<{ state: string; runId: number }>;
  assert.ok(drift.length > 0);
  assert.deepEqual([...new Set(drift.map((e) => e.state))], ['unknown']);
  // Nothing went to the default state dir.
  assert.ok(!existsSync(join(dir, 'elsewhere', 'runs')) && !existsSync(join(dir, 'elsewhere', 'zapusk')));
  // zapusk-tool's own spelling, in its argument style, still names the program state only.
  const tool = cairn(['zapusk', 'apply', '--zdb_dir', prog, '--state_dir', join(dir, 'tstate'), '--state-dir', runStore], { env });
  assert.equal(tool.code, 0, tool.stderr);
  assert.ok(existsSync(join(dir, 'tstate', 'params.txt')));
  assert.equal((JSON.parse(cairn(['history', '--state-dir', runStore, '--out', 'json'], { env }).stdout) as unknown[]).length, 3);
});
