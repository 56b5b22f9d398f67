import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cairn, cairnSpawned, tempDir, writeGraph } from './cli-helpers.js';

function setup() {
  const dir = tempDir();
  const state = join(dir, 'state');
  const out = join(dir, 'out');
  const graph = writeGraph(dir, [
    { id: 'root', type: 'directory', params: { path: out } },
    { id: 'a', type: 'file', params: { path: join(out, 'a.txt'), content: 'alpha\n', mode: '0600' }, require: ['root'] },
    { id: 'b', type: 'file', params: { path: join(out, 'b.txt'), content: 'beta\n' }, require: ['root'] },
  ]);
  return { dir, state, out, graph };
}

test('plan shows what would change, changes nothing, and --detailed-exitcode says 2', () => {
  const { state, out, graph } = setup();
  const r = cairn(['plan', graph, '--state-dir', state, '--detailed-exitcode']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stdout, /^would change +directory root/m);
  assert.match(r.stdout, /^would change +file a/m);
  assert.match(r.stdout, /^Plan: 3 to change, 0 ok, 0 failed, 0 skipped \(3 nodes in [\d.]+ s, run 1\)$/m);
  assert.equal(existsSync(out), false);
  assert.equal(cairn(['plan', graph, '--state-dir', state]).code, 0);
});

test('apply makes the changes with diffs; a second apply is a no-op', () => {
  const { state, out, graph } = setup();
  const first = cairn(['apply', graph, '--state-dir', state, '--detailed-exitcode']);
  assert.equal(first.code, 2, first.stderr);
  assert.match(first.stdout, /^changed +file a/m);
  assert.match(first.stdout, /^Applied: 3 changed, 0 ok, 0 failed, 0 skipped/m);
  assert.equal(readFileSync(join(out, 'a.txt'), 'utf8'), 'alpha\n');
  assert.equal(statSync(join(out, 'a.txt')).mode & 0o777, 0o600);
  writeFileSync(join(out, 'b.txt'), 'drifted\n');
  const plan = cairn(['plan', graph, '--state-dir', state]);
  assert.match(plan.stdout, /^would change +file b/m);
  assert.match(plan.stdout, /^ +-drifted$/m);
  assert.match(plan.stdout, /^ +\+beta$/m);
  cairn(['apply', graph, '--state-dir', state]);
  const again = cairn(['apply', graph, '--state-dir', state, '--detailed-exitcode']);
  assert.equal(again.code, 0, again.stdout);
  assert.match(again.stdout, /^Applied: 0 changed, 3 ok, 0 failed, 0 skipped/m);
});

test('--out json prints the run with uniform result records', () => {
  const { state, graph } = setup();
  const r = cairn(['apply', graph, '--state-dir', state, '--out', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.run, 1);
  assert.equal(doc.mode, 'apply');
  assert.deepEqual(doc.counts, { ok: 0, changed: 3, pending: 0, failed: 0, skipped: 0, unresolvable: 0 });
  assert.deepEqual(Object.keys(doc.results[1]).slice(0, 10), ['id', 'name', 'type', 'result', 'status', 'changes', 'comment', 'start', 'duration', 'run_num']);
  assert.equal(doc.results[1].result, true);
  assert.equal(typeof doc.results[1].changes.diff, 'string');
});

test('a failing resource fails the run (exit 1) but independent branches still run', () => {
  const dir = tempDir();
  const graph = writeGraph(dir, [
    { id: 'boom', type: 'command', params: { cmd: 'echo broken >&2; exit 3' } },
    { id: 'after-boom', type: 'file', params: { path: join(dir, 'after'), content: 'x' }, require: ['boom'] },
    { id: 'independent', type: 'file', params: { path: join(dir, 'free'), content: 'y' } },
  ]);
  const r = cairn(['apply', graph, '--state-dir', join(dir, 'state')]);
  assert.equal(r.code, 1);
  assert.match(r.stdout, /^failed +command boom/m);
  assert.match(r.stdout, /^skipped +file after-boom +One or more requisite failed: boom$/m);
  assert.equal(existsSync(join(dir, 'after')), false);
  assert.equal(readFileSync(join(dir, 'free'), 'utf8'), 'y');
});

test('apply --simulate reports the changes and leaves the disk alone', () => {
  const { state, out, graph } = setup();
  const r = cairn(['apply', graph, '--simulate', '--state-dir', state]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^simulated +file a/m);
  assert.match(r.stdout, /^Simulated: 3 changed/m);
  assert.equal(existsSync(out), false);
});

test('collect records drift in the history without changing anything', () => {
  const { state, out, graph } = setup();
  cairn(['apply', graph, '--state-dir', state]);
  writeFileSync(join(out, 'a.txt'), 'edited by hand\n');
  const r = cairn(['collect', graph, '--state-dir', state, '--detailed-exitcode']);
  assert.equal(r.code, 2);
  assert.match(r.stdout, /^drift +file a/m);
  assert.match(r.stdout, /^Drift: 1 drifted, 2 ok, 0 failed, 0 skipped/m);
  assert.equal(readFileSync(join(out, 'a.txt'), 'utf8'), 'edited by hand\n');
  const h = cairn(['history', '--state-dir', state]);
  assert.match(h.stdout, /^2 +\S+ \S+ +collect +finished +2 +2 ok, 1 drifted, 0 failed, 0 skipped +graph /m);
});

test('history lists runs and shows one in full, as text and JSON', () => {
  const { state, graph } = setup();
  cairn(['plan', graph, '--state-dir', state]);
  cairn(['apply', graph, '--state-dir', state]);
  const list = cairn(['history', '--state-dir', state]);
  assert.equal(list.code, 0);
  assert.match(list.stdout, /^RUN +STARTED +MODE/);
  assert.match(list.stdout, /^2 .* apply +finished +0 +0 ok, 3 changed/m);
  assert.match(list.stdout, /^1 .* check +finished +0 +0 ok, 3 to change/m);
  const one = cairn(['history', '2', '--state-dir', state]);
  assert.match(one.stdout, /^changed +file a/m);
  const json = JSON.parse(cairn(['history', '1', '--state-dir', state, '--out', 'json']).stdout);
  assert.equal(json.mode, 'check');
  assert.equal(json.results.length, 3);
  const missing = cairn(['history', '99', '--state-dir', state]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /no run "99"/);
});

test('deferred values: plan shows an unresolvable node, apply resolves it', () => {
  const dir = tempDir();
  const out = join(dir, 'banner');
  const graph = writeGraph(dir, [
    { id: 'name', type: 'command', params: { cmd: 'printf web-01' } },
    { id: 'banner', type: 'file', params: { path: out, content: { $concat: ['host=', { $ref: 'name', field: 'stdout' }, '\n'] } } },
  ]);
  const plan = cairn(['plan', graph, '--state-dir', join(dir, 's')]);
  assert.match(plan.stdout, /^unresolvable +file banner +unresolvable: "host=\$\{name\.stdout\}\\n" is known only after name has been applied$/m);
  assert.match(plan.stdout, /1 unresolvable/);
  const apply = cairn(['apply', graph, '--state-dir', join(dir, 's')]);
  assert.equal(apply.code, 0, apply.stdout);
  assert.equal(readFileSync(out, 'utf8'), 'host=web-01\n');
});

test('--version and --help', async () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  const v = cairn(['--version']);
  assert.equal(v.stdout, `${pkg.version}\n`);
  assert.equal(v.code, 0);
  assert.equal(cairn(['-V']).stdout, `${pkg.version}\n`);
  const h = cairn(['--help']);
  assert.equal(h.code, 0);
  for (const cmd of ['plan', 'apply', 'collect', 'history']) assert.match(h.stdout, new RegExp(`^  ${cmd}\\b`, 'm'));
  const ph = cairn(['apply', '--help']);
  for (const opt of ['--out', '--state-dir', '--jobs', '--detailed-exitcode', '--lock-timeout', '--simulate']) assert.ok(ph.stdout.includes(opt), opt);
});

test('colour only when asked or on a terminal: piped output has no escape codes', () => {
  const { state, graph } = setup();
  const plain = cairn(['plan', graph, '--state-dir', state], { env: { NO_COLOR: '', FORCE_COLOR: '' } });
  assert.doesNotMatch(plain.stdout, /\x1b\[/);
  // a CI log is a pipe too: the CI variable alone does not turn colour on
  const onCi = cairn(['plan', graph, '--state-dir', state], { env: { NO_COLOR: '', FORCE_COLOR: '', CI: 'true' } });
  assert.doesNotMatch(onCi.stdout, /\x1b\[/);
  const forced = cairn(['plan', graph, '--state-dir', state], { env: { NO_COLOR: '', FORCE_COLOR: '1' } });
  assert.match(forced.stdout, /\x1b\[33mwould change/);
});

test('two independent slow commands overlap under --jobs 2 and do not under --jobs 1', () => {
  const dir = tempDir();
  const step = (name: string) => ({
    id: name,
    type: 'command',
    params: { cmd: `date +%s%N > ${name}.start; sleep 0.4; date +%s%N > ${name}.end`, cwd: dir },
  });
  const graph = writeGraph(dir, [step('a'), step('b')]);
  const span = (n: string) => [Number(readFileSync(join(dir, `${n}.start`), 'utf8')), Number(readFileSync(join(dir, `${n}.end`), 'utf8'))] as const;
  const overlap = () => {
    const [as, ae] = span('a');
    const [bs, be] = span('b');
    return as < be && bs < ae;
  };
  assert.equal(cairn(['apply', graph, '--state-dir', join(dir, 's'), '--jobs', '2']).code, 0);
  assert.equal(overlap(), true, 'the two commands ran at the same time');
  assert.equal(cairn(['apply', graph, '--state-dir', join(dir, 's'), '--jobs', '1']).code, 0);
  assert.equal(overlap(), false, 'one after the other');
});

test('--profile prints each stage of the command to stderr and leaves stdout as it was', () => {
  const { graph, state } = setup();
  const plain = cairn(['apply', graph, '--state-dir', state]);
  // The profile is printed when the process exits: a real process.
  const profiled = cairnSpawned(['apply', graph, '--state-dir', state, '--profile']);
  assert.equal(profiled.code, plain.code);
  const stages = [...profiled.stderr.matchAll(/^profile: (\S+(?: \S+)?)\s+[\d.]+ ms/gm)].map((m) => m[1]);
  assert.deepEqual(stages, ['startup', 'read', 'load', 'preflight', 'store open', 'run', 'print', 'record', 'close', 'total']);
  assert.match(profiled.stderr, /^profile: total .* rss \d+ MiB$/m);
  assert.equal(cairn(['plan', graph, '--state-dir', state]).stderr, '');
});
