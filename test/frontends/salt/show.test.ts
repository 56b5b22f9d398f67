/** state.show_* through the CLI on a small tree, and --out yaml: shapes and key orders of notes/salt.md. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { cairn, ROOT, tempDir } from '../../cli/cli-helpers.js';

const ROOTS = join(ROOT, 'test/fixtures/salt/show/file_roots');

function show(args: string[], out = 'json') {
  const r = cairn(['salt', ...args, '--file-root', ROOTS, '--out', out, '--id', 'web1']);
  assert.equal(r.code, 0, r.stderr);
  return out === 'json' ? JSON.parse(r.stdout).local : r.stdout;
}

test('show_top: env → SLS list', () => {
  assert.deepEqual(show(['state.show_top']), { base: ['common', 'app'] });
});

test('show_highstate / show_sls: the module with args, fun, order, then __sls__, __env__ (as Salt 3006 prints them)', () => {
  const high = show(['state.show_highstate']);
  assert.deepEqual(Object.keys(high), ['motd', 'app_ready']);
  assert.deepEqual(Object.keys(high.motd), ['file', '__sls__', '__env__']);
  assert.deepEqual(high.motd.file, [{ name: '/tmp/cairn-show-motd' }, { contents: 'hi' }, { require_in: [{ test: 'app_ready' }] }, 'managed', { order: 10000 }]);
  assert.deepEqual(high.app_ready.test, [{ names: ['one', 'two'] }, 'succeed_without_changes', { order: 10001 }]);
  const sls = show(['state.show_sls', 'app']);
  assert.deepEqual(sls, { app_ready: { __env__: 'base', __sls__: 'app', test: [{ names: ['one', 'two'] }, 'succeed_without_changes', { order: 10000 }] } });
});

test('show_lowstate resolves require_in and names; show_low_sls leaves require_in alone', () => {
  const low = show(['state.show_lowstate']);
  assert.equal(low.length, 3);
  assert.deepEqual(Object.keys(low[1]), ['state', 'name', '__sls__', '__env__', '__id__', 'order', 'require', 'fun']);
  assert.deepEqual(low.map((c: { name: string; order: number }) => [c.name, c.order]), [
    ['/tmp/cairn-show-motd', 10000],
    ['one', 10001.0001],
    ['two', 10001.0002],
  ]);
  assert.deepEqual(low[1].require, [{ file: 'motd' }]);
  const lowSls = show(['state.show_low_sls', 'common']);
  assert.deepEqual(lowSls, [
    { __env__: 'base', __id__: 'motd', __sls__: 'common', state: 'file', fun: 'managed', name: '/tmp/cairn-show-motd', order: 10000, contents: 'hi', require_in: [{ test: 'app_ready' }] },
  ]);
});

test('--out yaml: PyYAML block style, sorted keys, quoted times', () => {
  // Salt's safe dumper has no representer for show_top's DefaultOrderedDict.
  assert.equal(show(['state.show_top'], 'yaml'), 'local: NULL\n');
  const r = cairn(['salt', 'state.apply', '--high-data', join(ROOT, 'test/fixtures/salt/high/listen/high.json'), '--out', 'yaml', '--state-dir', tempDir()]);
  assert.equal(r.code, 0, r.stderr);
  const block = /\n {2}test_\|-conf_\|-conf_\|-succeed_with_changes:\n([\s\S]*?)\n {2}test_/.exec(r.stdout)?.[1] ?? '';
  assert.match(block, /^ {4}__id__: conf\n {4}__run_num__: 0\n {4}__sls__: l\n {4}changes:\n {6}testing:\n {8}new: Something pretended to change\n {8}old: Unchanged\n {4}comment: Success!\n {4}duration: [\d.]+\n {4}name: conf\n {4}result: true\n {4}start_time: '\d\d:\d\d:\d\d\.\d{6}'$/);
  assert.ok(r.stdout.endsWith("start_time: '" + /start_time: '([^']+)'\n$/.exec(r.stdout)?.[1] + "'\n"));
});
