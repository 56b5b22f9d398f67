/** Whole runs of `cairn salt` against a temp dir: files, test=True, idempotence, failhard, bad input, text output. */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cairn, ROOT, tempDir } from '../../cli/cli-helpers.js';

const FIX = join(ROOT, 'test/fixtures/salt');

function fileTree(dir: string): string {
  const states = {
    web_dir: { __sls__: 'web', __env__: 'base', file: [{ name: join(dir, 'web') }, { mode: '0750' }, 'directory', { order: 10000 }] },
    conf: {
      __sls__: 'web',
      __env__: 'base',
      file: [{ name: join(dir, 'web/app.conf') }, { contents: ['[main]', 'beta = 2'] }, { require: [{ file: 'web_dir' }] }, 'managed', { order: 10001 }],
    },
    link: { __sls__: 'web', __env__: 'base', file: [{ name: join(dir, 'link') }, { target: join(dir, 'web/app.conf') }, 'symlink', { order: 10002 }] },
    gone: { __sls__: 'web', __env__: 'base', file: [{ name: join(dir, 'old.txt') }, 'absent', { order: 10003 }] },
  };
  const file = join(dir, 'high.json');
  writeFileSync(file, JSON.stringify({ states }));
  return file;
}

function salt(args: string[], stateDir: string) {
  return cairn(['salt', ...args, '--state-dir', stateDir]);
}

test('file states: first apply changes, second reports no changes, content ends with a newline', () => {
  const dir = tempDir('cairn-salt-');
  writeFileSync(join(dir, 'old.txt'), 'x');
  const high = fileTree(dir);
  const first = salt(['state.apply', '--high-data', high, '--out', 'json'], dir);
  assert.equal(first.code, 0, first.stderr);
  const a = JSON.parse(first.stdout).local;
  assert.deepEqual(a[`file_|-web_dir_|-${join(dir, 'web')}_|-directory`].changes, { [join(dir, 'web')]: { directory: 'new' } });
  assert.equal(a[`file_|-web_dir_|-${join(dir, 'web')}_|-directory`].comment, '');
  assert.deepEqual(a[`file_|-conf_|-${join(dir, 'web/app.conf')}_|-managed`].changes, { diff: 'New file' });
  assert.equal(a[`file_|-link_|-${join(dir, 'link')}_|-symlink`].comment, `Created new symlink ${join(dir, 'link')} -> ${join(dir, 'web/app.conf')}`);
  assert.deepEqual(a[`file_|-gone_|-${join(dir, 'old.txt')}_|-absent`].changes, { removed: join(dir, 'old.txt') });
  assert.equal(readFileSync(join(dir, 'web/app.conf'), 'utf8'), '[main]\nbeta = 2\n');
  const second = salt(['state.apply', '--high-data', high, '--out', 'json'], dir);
  const b = JSON.parse(second.stdout).local;
  for (const r of Object.values(b) as Array<{ changes: object; result: boolean }>) {
    assert.deepEqual(r.changes, {});
    assert.equal(r.result, true);
  }
  assert.equal(b[`file_|-conf_|-${join(dir, 'web/app.conf')}_|-managed`].comment, `File ${join(dir, 'web/app.conf')} is in the correct state`);
  assert.equal(b[`file_|-gone_|-${join(dir, 'old.txt')}_|-absent`].comment, `File ${join(dir, 'old.txt')} is not present`);
});

test('test=True: result null, "would" comments, nothing on disk, exit 0', () => {
  const dir = tempDir('cairn-salt-');
  const high = fileTree(dir);
  const r = salt(['state.apply', 'test=True', '--high-data', high, '--out', 'json'], dir);
  assert.equal(r.code, 0, r.stderr);
  const local = JSON.parse(r.stdout).local;
  const conf = local[`file_|-conf_|-${join(dir, 'web/app.conf')}_|-managed`];
  assert.equal(conf.result, null);
  assert.equal(conf.comment, `The file ${join(dir, 'web/app.conf')} is set to be changed\nNote: No changes made, actual changes may\nbe different due to other states.`);
  assert.deepEqual(conf.changes, { newfile: join(dir, 'web/app.conf') });
  assert.equal(local[`file_|-web_dir_|-${join(dir, 'web')}_|-directory`].comment, `The following files will be changed:\n${join(dir, 'web')}: directory - new\n`);
  assert.equal(existsSync(join(dir, 'web')), false);
  assert.equal(existsSync(join(dir, 'link')), false);
});

test('test=True on test states: Salt wording, fail_with_changes stays false', () => {
  const r = cairn(['salt', 'state.apply', 'test=True', '--high-data', join(FIX, 'requisites/high.json'), '--out', 'json', '--state-dir', tempDir()]);
  const local = JSON.parse(r.stdout).local;
  const changes = local['test_|-changes_|-changes_|-succeed_with_changes'];
  assert.equal(changes.result, null);
  assert.equal(changes.comment, "If we weren't testing, this would be successful with changes");
  assert.equal(local['test_|-fails_|-fails_|-fail_without_changes'].comment, "If we weren't testing, this would be a failure!");
});

test('failhard: later states are left out', () => {
  const dir = tempDir('cairn-salt-');
  const high = join(dir, 'h.json');
  writeFileSync(
    high,
    JSON.stringify({
      states: {
        a: { __sls__: 's', __env__: 'base', test: ['fail_without_changes', { failhard: true }, { order: 10000 }] },
        b: { __sls__: 's', __env__: 'base', test: ['succeed_without_changes', { order: 10001 }] },
      },
    }),
  );
  const r = salt(['state.apply', '--high-data', high, '--out', 'json'], dir);
  assert.equal(r.code, 1);
  assert.deepEqual(Object.keys(JSON.parse(r.stdout).local), ['test_|-a_|-a_|-fail_without_changes']);
});

test('bad input: a requisite that matches nothing fails that state only, with a positioned warning; the others run', () => {
  const r = cairn(['salt', 'state.apply', '--high-data', join(FIX, 'bad-requisite/high.json'), '--out', 'json', '--state-dir', tempDir()]);
  assert.equal(r.code, 1);
  const local = JSON.parse(r.stdout).local;
  const web = local['test_|-web_|-web_|-nop'];
  assert.deepEqual(Object.keys(web), ['changes', 'result', 'duration', 'start_time', 'comment', '__run_num__', '__sls__', '__id__', 'name']);
  assert.equal(web.result, false);
  assert.equal(web.comment, 'The following requisites were not found:\n                   require:\n                       test: ghost\n');
  assert.equal(web.__run_num__, 0);
  assert.equal(local['test_|-first_|-first_|-succeed_with_changes'].result, true);
  assert.equal(local['test_|-first_|-first_|-succeed_with_changes'].__run_num__, 1);
  assert.match(r.stderr, /\/srv\/salt\/app\.sls:3:1: S202 .*require test: ghost not found/);
});

test('bad input: a state function that does not exist fails that state (Salt verify_data), positioned warning on stderr', () => {
  const r = cairn(['salt', 'state.apply', '--high-data', join(FIX, 'bad-function/high.json'), '--state-dir', tempDir()]);
  assert.equal(r.code, 1);
  assert.match(r.stdout, /^local:\n-{10}\n {10}ID: web\n {4}Function: file\.managedd\n {8}Name: \/tmp\/x\n {6}Result: False\n {5}Comment: State 'file\.managedd' was not found in SLS 'app'\n {14}Reason: 'file\.managedd' is not available\.\n {5}Changes: {3}\n/);
  assert.match(r.stderr, /\/srv\/salt\/app\.sls:1:1: S201 state function file\.managedd/);
  const j = cairn(['salt', 'state.apply', '--high-data', join(FIX, 'bad-function/high.json'), '--out', 'json', '--state-dir', tempDir()]);
  assert.deepEqual(JSON.parse(j.stdout).local, {
    'file_|-web_|-/tmp/x_|-managedd': { result: false, name: '/tmp/x', changes: {}, comment: "State 'file.managedd' was not found in SLS 'app'\nReason: 'file.managedd' is not available.\n", __run_num__: 0 },
  });
});

test('highstate text: blocks, Name only when it differs from ID, summary', () => {
  const r = cairn(['salt', 'state.apply', '--high-data', join(FIX, 'watch/high.json'), '--state-dir', tempDir()]);
  assert.equal(r.code, 0, r.stderr);
  const text = r.stdout.replace(/Started: \S+/g, 'Started: T').replace(/Duration: \S+ ms/g, 'Duration: D ms').replace(/Total run time: +\S+ m?s/, 'Total run time: X');
  assert.match(text, /^local:\n----------\n {10}ID: conf\n {4}Function: test\.succeed_with_changes\n {6}Result: True\n {5}Comment: Success!\n {5}Started: T\n {4}Duration: D ms\n {5}Changes:   \n {14}----------\n {14}testing:\n {18}----------\n {18}new:\n {22}Something pretended to change\n {18}old:\n {22}Unchanged\n/);
  assert.match(text, /\n {10}ID: reload\n {4}Function: cmd\.wait\n {8}Name: echo reloaded\n/);
  assert.match(text, /\nSummary for local\n-{12}\nSucceeded: 5 \(changed=3\)\nFailed: {4}0\n-{12}\nTotal states run: {5}5\nTotal run time: X\n$/);
});

test('state.single and state.low run one state', () => {
  const single = cairn(['salt', 'state.single', 'test.succeed_with_changes', 'hello', '--out', 'json', '--state-dir', tempDir()]);
  assert.equal(single.code, 0, single.stderr);
  assert.ok(JSON.parse(single.stdout).local['test_|-hello_|-hello_|-succeed_with_changes']);
  const low = cairn(['salt', 'state.low', '{"state": "test", "fun": "fail_without_changes", "name": "x"}', '--out', 'json', '--state-dir', tempDir()]);
  assert.equal(low.code, 1);
  assert.equal(JSON.parse(low.stdout).local['test_|-x_|-x_|-fail_without_changes'].comment, 'Failure!');
});
