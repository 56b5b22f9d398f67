/** Whole runs of `cairn salt` against a temp dir: files, test=True, idempotence, failhard, bad input, text output. */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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

/** Runs cairn salt with the run store in its own folder inside the test's dir. */
function salt(args: string[], dir: string) {
  return cairn(['salt', ...args, '--state-dir', join(dir, '.cairn-state')]);
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
  const r = cairn(['salt', 'state.apply', 'test=True', '--high-data', join(FIX, 'high/requisites/high.json'), '--out', 'json', '--state-dir', tempDir()]);
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
  const r = cairn(['salt', 'state.apply', '--high-data', join(FIX, 'high/watch/high.json'), '--state-dir', tempDir()]);
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
  // state.low prints the state's own return (not keyed by tag), as salt-call does.
  const low = cairn(['salt', 'state.low', '{"state": "test", "fun": "fail_without_changes", "name": "x", "__id__": "x"}', '--out', 'json', '--state-dir', tempDir()]);
  assert.equal(low.code, 1);
  assert.equal(JSON.parse(low.stdout).local.comment, 'Failure!');
});

function editTree(dir: string): string {
  const st = (id: string, fun: string, args: Array<Record<string, unknown>>, order: number) => ({ [id]: { __sls__: 'edit', __env__: 'base', file: [...args, fun, { order }] } });
  const states = {
    ...st('flag', 'touch', [{ name: join(dir, 'flag') }], 10000),
    ...st('hosts', 'append', [{ name: join(dir, 'hosts') }, { text: ['10.0.0.1 db', '10.0.0.2 web'] }], 10001),
    ...st('port', 'replace', [{ name: join(dir, 'app.conf') }, { pattern: '^port = \\d+$' }, { repl: 'port = 8080' }, { backup: false }], 10002),
    ...st('debug', 'line', [{ name: join(dir, 'app.conf') }, { mode: 'ensure' }, { content: 'debug = false' }, { after: '^port' }], 10003),
    ...st('keep', 'managed', [{ name: join(dir, 'conf.d/keep.conf') }, { contents: 'k' }, { makedirs: true }], 10004),
    ...st('confd', 'directory', [{ name: join(dir, 'conf.d') }, { clean: true }, { require: [{ file: 'keep' }] }], 10005),
  };
  writeFileSync(join(dir, 'app.conf'), '[app]\nport = 80\n');
  writeFileSync(join(dir, 'hosts'), '127.0.0.1 localhost\n10.0.0.1   db\n');
  const file = join(dir, 'edit.json');
  writeFileSync(file, JSON.stringify({ states }));
  return file;
}

test('file.touch/append/replace/line/directory clean: test=True wording, apply, then Salt\'s second run', () => {
  const dir = tempDir('cairn-salt-');
  const high = editTree(dir);
  mkdirSync(join(dir, 'conf.d'));
  writeFileSync(join(dir, 'conf.d/stale.conf'), 's');
  const tag = (id: string, name: string, fun: string) => `file_|-${id}_|-${join(dir, name)}_|-${fun}`;
  const dry = JSON.parse(salt(['state.apply', 'test=True', '--high-data', high, '--out', 'json'], dir).stdout).local;
  assert.equal(dry[tag('flag', 'flag', 'touch')].comment, `File ${join(dir, 'flag')} is set to be created`);
  assert.equal(dry[tag('hosts', 'hosts', 'append')].comment, `File ${join(dir, 'hosts')} is set to be updated`);
  assert.equal(dry[tag('hosts', 'hosts', 'append')].changes.diff, '--- \n\n+++ \n\n@@ -1,2 +1,3 @@\n\n 127.0.0.1 localhost\n 10.0.0.1   db\n+10.0.0.2 web');
  assert.equal(dry[tag('port', 'app.conf', 'replace')].comment, 'Changes would have been made');
  assert.equal(dry[tag('debug', 'app.conf', 'line')].comment, 'Changes would be made');
  assert.equal(dry[tag('confd', 'conf.d', 'directory')].result, null);
  assert.equal(dry[tag('confd', 'conf.d', 'directory')].comment, `The following files will be changed:\n${join(dir, 'conf.d/stale.conf')}: removed - Removed due to clean\n`);
  assert.equal(existsSync(join(dir, 'flag')), false);
  assert.equal(readFileSync(join(dir, 'app.conf'), 'utf8'), '[app]\nport = 80\n');

  const first = salt(['state.apply', '--high-data', high, '--out', 'json'], dir);
  assert.equal(first.code, 0, first.stderr);
  const a = JSON.parse(first.stdout).local;
  assert.equal(a[tag('flag', 'flag', 'touch')].comment, `Created empty file ${join(dir, 'flag')}`);
  assert.equal(a[tag('hosts', 'hosts', 'append')].comment, 'Appended 1 lines');
  assert.deepEqual(a[tag('port', 'app.conf', 'replace')].changes, { diff: '--- \n+++ \n@@ -1,2 +1,2 @@\n [app]\n-port = 80\n+port = 8080\n' });
  assert.equal(a[tag('debug', 'app.conf', 'line')].comment, 'Changes were made');
  assert.deepEqual(a[tag('confd', 'conf.d', 'directory')].changes, { [join(dir, 'conf.d/stale.conf')]: { removed: 'Removed due to clean' }, removed: [join(dir, 'conf.d/stale.conf')] });
  assert.equal(a[tag('confd', 'conf.d', 'directory')].comment, `Files cleaned from directory ${join(dir, 'conf.d')}`);
  assert.equal(readFileSync(join(dir, 'app.conf'), 'utf8'), '[app]\nport = 8080\ndebug = false\n');
  assert.equal(readFileSync(join(dir, 'hosts'), 'utf8'), '127.0.0.1 localhost\n10.0.0.1   db\n10.0.0.2 web\n');
  assert.equal(existsSync(join(dir, 'conf.d/keep.conf')), true);

  const b = JSON.parse(salt(['state.apply', '--high-data', high, '--out', 'json'], dir).stdout).local;
  // Salt's file.touch updates the times on every run; the others have nothing left to do.
  assert.deepEqual(b[tag('flag', 'flag', 'touch')].changes, { touched: join(dir, 'flag') });
  assert.equal(b[tag('hosts', 'hosts', 'append')].comment, `File ${join(dir, 'hosts')} is in correct state`);
  assert.equal(b[tag('port', 'app.conf', 'replace')].comment, 'No changes needed to be made');
  assert.equal(b[tag('debug', 'app.conf', 'line')].comment, 'No changes needed to be made');
  assert.equal(b[tag('confd', 'conf.d', 'directory')].comment, `The directory ${join(dir, 'conf.d')} is in the correct state`);
  for (const id of ['hosts', 'port', 'debug', 'confd']) {
    const r = Object.values(b).find((x) => (x as { __id__: string }).__id__ === id) as { changes: object };
    assert.deepEqual(r.changes, {}, id);
  }
});

test('file.line and file.replace without what they need fail with Salt\'s comments', () => {
  const dir = tempDir('cairn-salt-');
  const high = join(dir, 'h.json');
  writeFileSync(
    high,
    JSON.stringify({
      states: {
        nomode: { __sls__: 's', __env__: 'base', file: [{ name: join(dir, 'x') }, { content: 'a' }, 'line', { order: 10000 }] },
        missing: { __sls__: 's', __env__: 'base', file: [{ name: join(dir, 'none') }, { pattern: 'a' }, { repl: 'b' }, 'replace', { order: 10001 }] },
        relative: { __sls__: 's', __env__: 'base', file: [{ name: 'rel/path' }, 'touch', { order: 10002 }] },
      },
    }),
  );
  const r = salt(['state.apply', '--high-data', high, '--out', 'json'], dir);
  assert.equal(r.code, 1);
  const local = JSON.parse(r.stdout).local;
  assert.equal(local[`file_|-nomode_|-${join(dir, 'x')}_|-line`].comment, 'Mode was not defined. How to process the file?');
  assert.equal(local[`file_|-missing_|-${join(dir, 'none')}_|-replace`].comment, `${join(dir, 'none')}: file not found`);
  assert.equal(local['file_|-relative_|-rel/path_|-touch'].comment, 'Specified file rel/path is not an absolute path');
});

test('test=True wording of file.absent, file.symlink, file.touch, cmd.run and the test states', () => {
  const dir = tempDir('cairn-salt-');
  writeFileSync(join(dir, 'old'), 'x');
  const s = (id: string, mod: string, args: unknown[], order: number) => ({ [id]: { __sls__: 't', __env__: 'base', [mod]: [...args, { order }] } });
  const high = join(dir, 'h.json');
  writeFileSync(
    high,
    JSON.stringify({
      states: {
        ...s('gone', 'file', [{ name: join(dir, 'old') }, 'absent'], 10000),
        ...s('link', 'file', [{ name: join(dir, 'l') }, { target: join(dir, 'old') }, 'symlink'], 10001),
        ...s('there', 'file', [{ name: join(dir, 'old') }, 'touch'], 10002),
        ...s('run', 'cmd', [{ name: 'echo hi' }, 'run'], 10003),
        ...s('nop', 'test', ['nop'], 10004),
        ...s('conf', 'test', ['configurable_test_state', { changes: false }], 10005),
      },
    }),
  );
  const r = salt(['state.apply', 'test=True', '--high-data', high, '--out', 'json'], dir);
  assert.equal(r.code, 0, r.stderr);
  const view = Object.fromEntries(Object.values(JSON.parse(r.stdout).local as Record<string, Record<string, unknown>>).map((x) => [x.__id__, [x.result, x.comment, x.changes]]));
  assert.deepEqual(view, {
    gone: [null, `File ${join(dir, 'old')} is set for removal`, { removed: join(dir, 'old') }],
    link: [null, `Symlink ${join(dir, 'l')} to ${join(dir, 'old')} is set for creation`, { new: join(dir, 'l') }],
    there: [true, `File ${join(dir, 'old')} exists and has the correct times`, { new: join(dir, 'old') }],
    run: [null, 'Command "echo hi" would have been executed', {}],
    nop: [true, 'Success!', {}],
    conf: [true, 'This is a test', {}],
  });
  assert.equal(readFileSync(join(dir, 'old'), 'utf8'), 'x');
  assert.equal(existsSync(join(dir, 'l')), false);
});

test('show_changes: False keeps only the fact of a change (file.replace, file.line, file.managed)', () => {
  const dir = tempDir('cairn-salt-');
  writeFileSync(join(dir, 'a.conf'), 'x = 1\n');
  writeFileSync(join(dir, 'm.conf'), 'old\n');
  const s = (id: string, args: unknown[], order: number) => ({ [id]: { __sls__: 't', __env__: 'base', file: [...args, { show_changes: false }, { order }] } });
  const high = join(dir, 'h.json');
  writeFileSync(
    high,
    JSON.stringify({
      states: {
        ...s('rep', [{ name: join(dir, 'a.conf') }, { pattern: 'x = 1' }, { repl: 'x = 2' }, { backup: false }, 'replace'], 10000),
        ...s('lin', [{ name: join(dir, 'a.conf') }, { mode: 'insert' }, { location: 'start' }, { content: '# top' }, 'line'], 10001),
        ...s('man', [{ name: join(dir, 'm.conf') }, { contents: 'new' }, 'managed'], 10002),
      },
    }),
  );
  const local = JSON.parse(salt(['state.apply', '--high-data', high, '--out', 'json'], dir).stdout).local as Record<string, { __id__: string; changes: unknown }>;
  const by = Object.fromEntries(Object.values(local).map((r) => [r.__id__, r.changes]));
  assert.deepEqual(by, { rep: { diff: true }, lin: { diff: true }, man: { diff: '<show_changes=False>' } });
  assert.equal(readFileSync(join(dir, 'a.conf'), 'utf8'), '# top\nx = 2\n');
});

test('file.append source: the salt:// file, rendered with Jinja, is one block', () => {
  const dir = tempDir('cairn-salt-');
  mkdirSync(join(dir, 'roots'));
  writeFileSync(join(dir, 'roots/motd.txt'), 'Welcome to {{ who }}\nhave fun\n');
  writeFileSync(join(dir, 'motd'), 'hello\n');
  const high = join(dir, 'h.json');
  writeFileSync(high, JSON.stringify({ states: { m: { __sls__: 't', __env__: 'base', file: [{ name: join(dir, 'motd') }, { source: 'salt://motd.txt' }, { context: { who: 'web1' } }, 'append', { order: 10000 }] } } }));
  const r = cairn(['salt', 'state.apply', '--high-data', high, '--file-root', join(dir, 'roots'), '--out', 'json', '--state-dir', join(dir, '.cairn-state')]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const ret = Object.values(JSON.parse(r.stdout).local)[0] as { comment: string };
  assert.equal(ret.comment, 'Appended 2 lines');
  assert.equal(readFileSync(join(dir, 'motd'), 'utf8'), 'hello\nWelcome to web1\nhave fun\n');
});
