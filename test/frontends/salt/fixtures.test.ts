/**
 * High-data fixtures (test/harness/golden.ts): every test/fixtures/salt/high/<case>/ holds high data
 * (high.json), the Salt function to run on it (command: `state.apply`, `state.show_lowstate`), and what
 * Salt gives, as notes/salt.md records it: the exit code (expected.exit) and expected.json, either the whole
 * `local` document (a list, for show_lowstate) or, per state tag, the keys that must match (times and pids
 * are not compared). They come from Salt, so CAIRN_ACCEPT never rewrites them. The tests below the suite
 * check what one case shows beyond its expected files.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cairn, ROOT, tempDir } from '../../cli/cli-helpers.js';
import { goldenSuite } from '../../harness/golden.js';

const FIX = join(ROOT, 'test/fixtures/salt/high');

type Local = Record<string, Record<string, unknown>>;

function run(dir: string, fun: string, extra: string[] = []): { code: number | null; local: unknown; stderr: string } {
  const r = cairn(['salt', fun, ...extra, '--high-data', join(dir, 'high.json'), '--state-dir', tempDir(), '--out', 'json']);
  assert.doesNotMatch(r.stderr, /internal error/, r.stderr);
  return { code: r.code, local: JSON.parse(r.stdout).local, stderr: r.stderr };
}

function runJson(name: string, fun = 'state.apply', extra: string[] = []): { code: number | null; local: Local } {
  const r = run(join(FIX, name), fun, extra);
  return { code: r.code, local: r.local as Local };
}

/** Every expected key must match; times and pids are not compared. */
function assertSubset(local: Local, want: Local): void {
  assert.deepEqual(Object.keys(local).sort(), Object.keys(want).sort());
  for (const [tag, fields] of Object.entries(want)) {
    for (const [k, v] of Object.entries(fields)) {
      let got = local[tag]?.[k];
      if (k === 'changes' && typeof got === 'object' && got !== null && 'pid' in got) {
        const { pid, ...rest } = got as Record<string, unknown>;
        assert.ok(Number.isInteger(pid), `${tag} pid`);
        got = rest;
      }
      assert.deepEqual(got, v, `${tag} ${k}`);
    }
  }
}

goldenSuite({
  title: 'salt high data',
  root: FIX,
  recorded: true,
  expected: (name) => name === 'expected.json' || name === 'expected.exit',
  input: (name) => name === 'high.json' || name === 'command',
  run: ({ name, dir }, expect) => {
    const [fun = '', ...args] = readFileSync(join(dir, 'command'), 'utf8').trim().split(/\s+/);
    const r = run(dir, fun, args);
    const want = expect.jsonOf('expected.json');
    if (Array.isArray(want)) assert.deepEqual(r.local, want, `${name}: ${fun}`);
    else assertSubset(r.local as Local, want as Local);
    assert.equal(r.code, Number(expect.textOf('expected.exit')), `${name}: exit code\n${r.stderr}`);
  },
});

test('order: show_lowstate keys come in Salt order', () => {
  const r = cairn(['salt', 'state.show_lowstate', '--high-data', join(FIX, 'order/high.json'), '--out', 'json']);
  const first = JSON.parse(r.stdout).local[0];
  assert.deepEqual(Object.keys(first), ['state', 'name', '__sls__', '__env__', '__id__', 'order', 'fun']);
});

test('requisites: an onchanges state whose requisite made no changes does not run', () => {
  const { local } = runJson('requisites');
  assert.equal(local['test_|-on_quiet_|-on_quiet_|-succeed_without_changes']?.__state_ran__, false);
});

test('watch: the fired cmd.wait reports its output and return code', () => {
  const { local } = runJson('watch');
  const reload = local['cmd_|-reload_|-echo reloaded_|-wait'] as { changes: Record<string, unknown> };
  assert.equal(reload.changes.stdout, 'reloaded');
  assert.equal(reload.changes.retcode, 0);
});

test('result records carry Salt keys in raw order', () => {
  const { local } = runJson('watch');
  const r = local['test_|-conf_|-conf_|-succeed_with_changes'] as Record<string, unknown>;
  assert.deepEqual(Object.keys(r), ['name', 'changes', 'result', 'comment', '__sls__', '__run_num__', 'start_time', 'duration', '__id__']);
  assert.match(String(r.start_time), /^\d\d:\d\d:\d\d\.\d{6}$/);
  assert.equal(typeof r.duration, 'number');
});

test('prereq: the prereq state runs before its target; a quiet one keeps Salt\'s key order', () => {
  const { local } = runJson('prereq');
  const num = (tag: string) => Number(local[tag]?.__run_num__);
  assert.ok(num('test_|-stop_|-stop_|-succeed_with_changes') < num('test_|-deploy_|-deploy_|-succeed_with_changes'));
  assert.deepEqual(Object.keys(local['test_|-stop_quiet_|-stop_quiet_|-succeed_with_changes'] ?? {}), ['changes', 'result', 'duration', 'start_time', 'comment', '__run_num__', '__sls__', '__id__', 'name']);
});

test('listen: the mod_watch results of the listeners come last', () => {
  const { local } = runJson('listen');
  const tags = Object.entries(local).sort((a, b) => Number(a[1].__run_num__) - Number(b[1].__run_num__)).map(([t]) => t);
  assert.deepEqual(tags.slice(-2), ['test_|-listener_svc_|-svc_|-mod_watch', 'cmd_|-listener_restart_|-echo restarted_|-mod_watch']);
  assert.equal(local['test_|-deaf_|-deaf_|-succeed_without_changes']?.comment, 'Success!');
});

test('listen in test mode: the cmd listener says it would run', () => {
  const { code, local } = runJson('listen', 'state.apply', ['test=True']);
  assert.equal(code, 0);
  assert.equal(local['cmd_|-listener_restart_|-echo restarted_|-mod_watch']?.comment, 'Command "echo restarted" would have been executed');
  assert.equal(local['cmd_|-listener_restart_|-echo restarted_|-mod_watch']?.result, null);
});

test('--jobs 4 keeps Salt\'s __run_num__ and results', () => {
  for (const name of ['requisites', 'watch', 'prereq', 'listen']) {
    const one = runJson(name, 'state.apply', ['--jobs', '1']);
    const four = runJson(name, 'state.apply', ['--jobs', '4']);
    assert.equal(four.code, one.code);
    const view = (l: Record<string, Record<string, unknown>>) => Object.fromEntries(Object.entries(l).map(([t, r]) => [t, [r.__run_num__, r.result, r.comment]]));
    assert.deepEqual(view(four.local), view(one.local), name);
  }
});
