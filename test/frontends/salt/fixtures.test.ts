/** Fixture trees under test/fixtures/salt/<case>/: high data in, Salt's results (as notes/salt.md records them) out. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cairn, ROOT, tempDir } from '../../cli/cli-helpers.js';

const FIX = join(ROOT, 'test/fixtures/salt');

function expected(name: string): Record<string, Record<string, unknown>> {
  return JSON.parse(readFileSync(join(FIX, name, 'expected.json'), 'utf8'));
}

function runJson(name: string, fun = 'state.apply', extra: string[] = []): { code: number | null; local: Record<string, Record<string, unknown>> } {
  const r = cairn(['salt', fun, ...extra, '--high-data', join(FIX, name, 'high.json'), '--state-dir', tempDir(), '--out', 'json']);
  assert.doesNotMatch(r.stderr, /internal error/, r.stderr);
  return { code: r.code, local: JSON.parse(r.stdout).local };
}

/** Every expected key must match; times and pids are not compared. */
function assertSubset(local: Record<string, Record<string, unknown>>, want: Record<string, Record<string, unknown>>): void {
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

test('order: names get order + i/10000, first is 0, last is cap + 1000000', () => {
  const r = cairn(['salt', 'state.show_lowstate', '--high-data', join(FIX, 'order/high.json'), '--out', 'json']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).local, JSON.parse(readFileSync(join(FIX, 'order/expected.json'), 'utf8')));
});

test('order: show_lowstate keys come in Salt order', () => {
  const r = cairn(['salt', 'state.show_lowstate', '--high-data', join(FIX, 'order/high.json'), '--out', 'json']);
  const first = JSON.parse(r.stdout).local[0];
  assert.deepEqual(Object.keys(first), ['__env__', '__id__', '__sls__', 'state', 'fun', 'name', 'order']);
});

test('requisites: require, require_in, require_any, sls targets, onchanges, onfail', () => {
  const { code, local } = runJson('requisites');
  assert.equal(code, 1);
  assertSubset(local, expected('requisites'));
  assert.equal(local['test_|-on_quiet_|-on_quiet_|-succeed_without_changes']?.__state_ran__, false);
});

test('watch: cmd.wait and test mod_watch fire with a __run_num__ gap; a guard skips the watch', () => {
  const { code, local } = runJson('watch');
  assert.equal(code, 0);
  assertSubset(local, expected('watch'));
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

test('prereq: the prereq state runs first only when its target would change, else "No changes detected"', () => {
  const { code, local } = runJson('prereq');
  assert.equal(code, 0);
  assertSubset(local, expected('prereq'));
  const num = (tag: string) => Number(local[tag]?.__run_num__);
  assert.ok(num('test_|-stop_|-stop_|-succeed_with_changes') < num('test_|-deploy_|-deploy_|-succeed_with_changes'));
  assert.deepEqual(Object.keys(local['test_|-stop_quiet_|-stop_quiet_|-succeed_with_changes'] ?? {}), ['changes', 'result', 'duration', 'start_time', 'comment', '__run_num__', '__sls__']);
});

test('listen: a mod_watch result per listener whose target changed, at the end, __id__ listener_<id>', () => {
  const { code, local } = runJson('listen');
  assert.equal(code, 0);
  assertSubset(local, expected('listen'));
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
