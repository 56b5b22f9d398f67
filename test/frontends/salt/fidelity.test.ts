/**
 * Salt fidelity through the built CLI on the SLS tree under test/fixtures/salt/fidelity/: every comment and
 * changes shape notes/salt.md records, test mode, the no-states result and the highstate text around them.
 * The tree writes under a temp dir given as pillar `out`.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cairn, ROOT, tempDir } from '../../cli/cli-helpers.js';

const FIX = join(ROOT, 'test/fixtures/salt/fidelity');

type Local = Record<string, Record<string, unknown>>;

function apply(out: string, state: string, extra: string[] = [], format = 'json', roots = 'roots') {
  return cairn(['salt', 'state.apply', `pillar=${JSON.stringify({ out, ...JSON.parse(extra.find((e) => e.startsWith('{')) ?? '{}') })}`, ...extra.filter((e) => !e.startsWith('{')), '--id', 'm1', '--file-root', join(FIX, roots), '--state-dir', state, '--out', format]);
}

function local(stdout: string): Local {
  return JSON.parse(stdout).local as Local;
}

function view(l: Local, out: string): Record<string, [unknown, unknown, unknown, unknown]> {
  const strip = (v: unknown) => JSON.parse(JSON.stringify(v).split(out).join('@OUT@')) as unknown;
  return Object.fromEntries(
    Object.entries(l).map(([tag, r]) => {
      const changes = { ...(r.changes as Record<string, unknown>) };
      if ('pid' in changes) changes.pid = 'PID';
      return [tag.split(out).join('@OUT@'), [r.__run_num__, r.result, strip(r.comment), strip(changes)]];
    }),
  );
}

const PRETEND = { testing: { old: 'Unchanged', new: 'Something pretended to change' } };
const GHOST = 'The following requisites were not found:\n                   require:\n                       test: ghost\n';

test('first apply: every state function worded as Salt 3006 words it, with the watch __run_num__ gaps', () => {
  const out = tempDir();
  const r = apply(out, join(out, '.st'));
  assert.equal(r.code, 1, r.stderr);
  assert.deepEqual(view(local(r.stdout), out), {
    'file_|-web_dir_|-@OUT@/web_|-directory': [0, true, '', { '@OUT@/web': { directory: 'new' } }],
    // Salt keeps what its pre-check found: the directory it could not create.
    'file_|-orphan_|-@OUT@/no/such/parent_|-directory': [1, false, 'No directory to create @OUT@/no/such/parent in', { '@OUT@/no/such/parent': { directory: 'new' } }],
    'file_|-conf_|-@OUT@/web/app.ini_|-managed': [2, true, 'File @OUT@/web/app.ini updated', { diff: 'New file', mode: '0640' }],
    'file_|-gone_|-@OUT@/nothing_|-absent': [3, true, 'File @OUT@/nothing is not present', {}],
    'cmd_|-hello_|-echo hi_|-run': [4, true, 'Command "echo hi" run', { pid: 'PID', retcode: 0, stdout: 'hi', stderr: '' }],
    'cmd_|-guarded_|-echo no_|-run': [5, true, 'unless condition is true', {}],
    'cmd_|-waiter_|-echo waited_|-wait': [6, true, '', {}],
    'test_|-ok_|-ok_|-succeed_with_changes': [7, true, 'Success!', PRETEND],
    'test_|-bad_|-bad_|-fail_without_changes': [8, false, 'Failure!', {}],
    'test_|-dep_|-dep_|-succeed_without_changes': [9, false, 'One or more requisite failed: main.bad', {}],
    'test_|-ghost_dep_|-ghost_dep_|-nop': [10, false, GHOST, {}],
    'test_|-w_|-w_|-succeed_without_changes': [12, true, 'Watch statement fired.', { 'Requisites with changes': ['file: conf'] }],
    'test_|-custom_|-custom_|-succeed_without_changes': [14, true, 'conf moved', { 'Requisites with changes': ['file: conf'] }],
  });
  const l = local(r.stdout);
  assert.equal(l['cmd_|-guarded_|-echo no_|-run']?.skip_watch, true);
  assert.deepEqual(Object.keys(l['test_|-ok_|-ok_|-succeed_with_changes'] ?? {}), ['name', 'changes', 'result', 'comment', '__sls__', '__run_num__', 'start_time', 'duration', '__id__']);
  // JSON as json.dumps(indent=4) prints it.
  assert.match(r.stdout, /^\{\n {4}"local": \{\n {8}"file_\|-web_dir_\|-/);
});

test('re-apply with a changed file: the difflib diff with bare ---/+++ headers; unchanged states say so', () => {
  const out = tempDir();
  const state = join(out, '.st');
  assert.equal(apply(out, state).code, 1);
  const r = apply(out, state, ['{"beta": 20}']);
  const v = view(local(r.stdout), out);
  assert.deepEqual(v['file_|-conf_|-@OUT@/web/app.ini_|-managed'], [2, true, 'File @OUT@/web/app.ini updated', { diff: '--- \n+++ \n@@ -1,3 +1,3 @@\n [main]\n alpha = 1\n-beta = 2\n+beta = 20\n' }]);
  assert.deepEqual(v['file_|-web_dir_|-@OUT@/web_|-directory'], [0, true, 'The directory @OUT@/web is in the correct state', {}]);
  const again = view(local(apply(out, state, ['{"beta": 20}']).stdout), out);
  assert.deepEqual(again['file_|-conf_|-@OUT@/web/app.ini_|-managed'], [2, true, 'File @OUT@/web/app.ini is in the correct state', {}]);
  assert.deepEqual(again['test_|-w_|-w_|-succeed_without_changes'], [11, true, 'Success!', {}]);
});

test('test=True: null results with the "would" wording, failures stay false, nothing on disk', () => {
  const out = tempDir();
  const r = apply(out, join(out, '.st'), ['test=True']);
  assert.equal(r.code, 1, r.stderr);
  const v = view(local(r.stdout), out);
  assert.deepEqual(v['file_|-web_dir_|-@OUT@/web_|-directory'], [0, null, 'The following files will be changed:\n@OUT@/web: directory - new\n', { '@OUT@/web': { directory: 'new' } }]);
  assert.deepEqual(v['file_|-conf_|-@OUT@/web/app.ini_|-managed'], [
    2,
    null,
    'The file @OUT@/web/app.ini is set to be changed\nNote: No changes made, actual changes may\nbe different due to other states.',
    { newfile: '@OUT@/web/app.ini' },
  ]);
  assert.deepEqual(v['cmd_|-hello_|-echo hi_|-run'], [4, null, 'Command "echo hi" would have been executed', {}]);
  assert.deepEqual(v['test_|-ok_|-ok_|-succeed_with_changes'], [7, null, "If we weren't testing, this would be successful with changes", PRETEND]);
  assert.deepEqual(v['test_|-bad_|-bad_|-fail_without_changes'], [8, false, "If we weren't testing, this would be a failure!", {}]);
  assert.deepEqual(readdirSync(out).filter((n) => n !== '.st'), []);
  assert.equal(existsSync(join(out, 'web')), false);
});

test('highstate text: Salt 3006 summary in test mode (unchanged= and changed=), block layout, no colour when piped', () => {
  const out = tempDir();
  const r = apply(out, join(out, '.st'), ['test=True'], 'highstate');
  const text = r.stdout.split(out).join('@OUT@').replace(/Started: \S+/g, 'Started: T').replace(/Duration: \S+ ms/g, 'Duration: D ms').replace(/run time: +\S+ m?s/, 'run time: X');
  assert.doesNotMatch(r.stdout, /\x1b\[/);
  assert.ok(text.startsWith('local:\n----------\n          ID: web_dir\n    Function: file.directory\n        Name: @OUT@/web\n      Result: None\n     Comment: The following files will be changed:\n              @OUT@/web: directory - new\n     Started: T\n    Duration: D ms\n     Changes:   \n              ----------\n              @OUT@/web:\n                  ----------\n                  directory:\n                      new\n'), text);
  assert.ok(text.includes('          ID: ghost_dep\n    Function: test.nop\n      Result: False\n     Comment: The following requisites were not found:\n                                 require:\n                                     test: ghost\n'), text);
  assert.ok(text.endsWith('\n\nSummary for local\n------------\nSucceeded: 10 (unchanged=5, changed=6)\nFailed:    3\n------------\nTotal states run:    13\nTotal run time: X\n'), text);
});

test('no top match: Salt\'s single no_|-states result, exit 1, in JSON and highstate text', () => {
  const state = tempDir();
  const j = cairn(['salt', 'state.apply', '--id', 'm1', '--file-root', join(FIX, 'notop'), '--state-dir', state, '--out', 'json']);
  assert.equal(j.code, 1);
  assert.equal(
    j.stdout,
    '{\n    "local": {\n        "no_|-states_|-states_|-None": {\n            "result": false,\n            "comment": "No Top file or master_tops data matches found. Please see master log for details.",\n            "name": "No States",\n            "changes": {},\n            "__run_num__": 0\n        }\n    }\n}\n',
  );
  const h = cairn(['salt', 'state.highstate', '--id', 'm1', '--file-root', join(FIX, 'notop'), '--state-dir', state]);
  assert.equal(h.code, 1);
  assert.equal(
    h.stdout,
    'local:\n----------\n          ID: states\n    Function: no.None\n      Result: False\n     Comment: No Top file or master_tops data matches found. Please see master log for details.\n     Changes:   \n\nSummary for local\n------------\nSucceeded: 0\nFailed:    1\n------------\nTotal states run:     1\nTotal run time:   0.000 ms\n',
  );
  const e = cairn(['salt', 'state.apply', '--id', 'm1', '--file-root', join(FIX, 'empty'), '--state-dir', state, '--out', 'json']);
  assert.equal(e.code, 1);
  assert.equal(JSON.parse(e.stdout).local['no_|-states_|-states_|-None'].comment, 'No states found for this minion');
});
