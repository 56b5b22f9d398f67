// SLS → high data: includes, extend/exclude, short declarations, order injection, shapes of show_highstate.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { renderHighstate, renderSls, showHighstateData, showTop } from '../../../src/frontends/salt/render/index.js';
import { tree } from './render-helpers.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures/salt/render');

test('the basic fixture renders to the high data show_highstate prints', () => {
  const base = join(FIXTURES, 'basic');
  const opts = { fileRoots: [join(base, 'file_roots')], pillarRoots: [join(base, 'pillar_roots')], minionId: 'web1' };
  const r = renderHighstate(opts);
  assert.deepEqual(r.errors, []);
  const expected = JSON.parse(readFileSync(join(base, 'expected/show_highstate.web1.json'), 'utf8'));
  assert.equal(JSON.stringify(showHighstateData(r.high)), JSON.stringify(expected));
  assert.equal(r.high.spans.nginx?.line, 5);
  assert.equal(r.high.spans.nginx?.file, join(base, 'file_roots/web/init.sls'));
});

test('onSource is told the length of each SLS file read for the states, once each, top file and pillar not counted', () => {
  const a = 'include:\n  - b\na1:\n  test.nop: []\n';
  const b = 'b1:\n  test.nop: []\n';
  const t = tree({ 'salt/top.sls': "base:\n  '*':\n    - a\n    - b\n", 'salt/a.sls': a, 'salt/b.sls': b });
  const told: number[] = [];
  const r = renderHighstate({ ...t.opts, onSource: (chars) => told.push(chars) });
  assert.deepEqual(r.errors, []);
  assert.deepEqual(told, [a.length, b.length]);
  told.length = 0;
  renderSls(['b'], { ...t.opts, onSource: (chars) => told.push(chars) });
  assert.deepEqual(told, [b.length]);
});

test('show_top follows the targets of the top file', () => {
  const base = join(FIXTURES, 'basic');
  const opts = (id: string) => ({ fileRoots: [join(base, 'file_roots')], pillarRoots: [join(base, 'pillar_roots')], minionId: id });
  assert.deepEqual(showTop(opts('web1')).top, { base: ['common', 'web'] });
  assert.deepEqual(showTop(opts('db2')).top, { base: ['common', 'db'] });
  assert.deepEqual(showTop(opts('mail')).top, { base: ['common'] });
});

test('an include chain a → b → c is numbered deepest first; each SLS renders once', () => {
  const t = tree({
    'salt/a.sls': 'include:\n  - b\n  - c\na1:\n  test.nop: []\n',
    'salt/b.sls': 'include:\n  - c\nb1:\n  test.nop: []\n',
    'salt/c.sls': 'c1:\n  test.nop: []\nc2:\n  test.nop:\n    - order: 5\n',
  });
  const r = renderSls(['a'], t.opts);
  assert.deepEqual(r.errors, []);
  assert.deepEqual(Object.keys(r.high.states), ['a1', 'b1', 'c1', 'c2']);
  assert.deepEqual(r.high.states.c1?.test, ['nop', { order: 10000 }]);
  assert.deepEqual(r.high.states.c2?.test, [{ order: 5 }, 'nop']);
  assert.deepEqual(r.high.states.b1?.test, ['nop', { order: 10001 }]);
  assert.deepEqual(r.high.states.a1?.test, ['nop', { order: 10002 }]);
});

test('relative includes (.x, ..x) resolve from the SLS, init.sls counting as a level', () => {
  const t = tree({
    'salt/app/init.sls': 'include:\n  - .db\n  - ..common\nappx:\n  test.nop: []\n',
    'salt/app/db.sls': 'dbx:\n  test.nop: []\n',
    'salt/common.sls': 'commonx:\n  test.nop: []\n',
    'salt/deep/x.sls': 'include:\n  - ...toofar\n',
  });
  const r = renderSls(['app'], t.opts);
  assert.deepEqual(r.errors, []);
  assert.equal(r.high.states.dbx?.__sls__, 'app.db');
  assert.equal(r.high.states.commonx?.__sls__, 'common');
  const bad = renderSls(['deep.x'], t.opts);
  assert.deepEqual(bad.errors, ["Attempted relative include of '...toofar' within SLS 'base:deep.x' goes beyond top level package "]);
  assert.equal(bad.diagnostics[0]?.span?.line, 1);
});

test('an include in env form and an include glob', () => {
  const t = tree({
    'salt/main.sls': 'include:\n  - base: lib.one\n  - roles.*\n',
    'salt/lib/one.sls': 'one:\n  test.nop: []\n',
    'salt/roles/a.sls': 'ra:\n  test.nop: []\n',
    'salt/roles/b/init.sls': 'rb:\n  test.nop: []\n',
  });
  const r = renderSls(['main'], t.opts);
  assert.deepEqual(r.errors, []);
  assert.deepEqual(Object.keys(r.high.states).sort(), ['one', 'ra', 'rb']);
  const bad = renderSls(['x'], tree({ 'salt/x.sls': 'include:\n  - prod: y\n' }).opts);
  assert.deepEqual(bad.errors, ["Nonexistent saltenv 'prod' found in include of 'y' within SLS 'base:x'"]);
});

test('a missing SLS: named on the command line, and included', () => {
  const t = tree({ 'salt/a.sls': 'a1:\n  test.nop: []\n\ninclude:\n  - ghost\n' });
  assert.deepEqual(renderSls(['nope'], t.opts).errors, ["No matching sls found for 'nope' in env 'base'"]);
  const r = renderSls(['a'], t.opts);
  assert.deepEqual(r.errors, ['Specified SLS ghost in saltenv base is not available on the salt master or through a configured fileserver']);
  assert.equal(r.diagnostics[0]?.span?.line, 4);
  assert.match(r.diagnostics[0]?.span?.file ?? '', /a\.sls$/);
});

test('the same ID in two SLS files is a conflict, naming both', () => {
  const t = tree({ 'salt/a.sls': 'sudo:\n  pkg.installed: []\n', 'salt/b.sls': 'sudo:\n  pkg.installed: []\n' });
  const r = renderSls(['a', 'b'], t.opts);
  assert.deepEqual(r.errors, [
    "Detected conflicting IDs, SLS IDs need to be globally unique.\n    The conflicting ID is 'sudo' and is found in SLS 'base:a' and SLS 'base:b'",
  ]);
  assert.equal(r.diagnostics[0]?.code, 'SALTR007');
});

test('short declarations: bare `id: pkg.installed`, `mod.fun: []`, and a non-dict ID', () => {
  const t = tree({ 'salt/s.sls': 'vim:\n  pkg.installed\ncurl:\n  pkg.installed: []\nbad:\n  - pkg.installed\nempty:\n' });
  const r = renderSls(['s'], t.opts);
  assert.deepEqual(r.high.states.vim, { __env__: 'base', __sls__: 's', pkg: ['installed', { order: 10000 }] });
  assert.deepEqual(r.high.states.curl, { __env__: 'base', __sls__: 's', pkg: ['installed', { order: 10001 }] });
  assert.deepEqual(r.errors, ['ID bad in SLS s is not a dictionary', 'ID empty in SLS s is not a dictionary']);
  assert.deepEqual(r.diagnostics.map((d) => d.span?.line), [5, 7]);
});

test('two declarations of one module in an ID are refused', () => {
  const t = tree({ 'salt/s.sls': '/etc/x:\n  file.managed:\n    - user: a\n  file.comment:\n    - regex: x\n' });
  assert.deepEqual(renderSls(['s'], t.opts).errors, ["ID '/etc/x' in SLS 's' contains multiple state declarations of the same type"]);
});

test('extend and exclude are stashed unmerged, extends deduplicated', () => {
  const t = tree({
    'salt/a.sls': 'include:\n  - b\nextend:\n  bx:\n    test.nop:\n      - name: n\nexclude:\n  - sls: c\n  - id: zz\n  - plain\n',
    'salt/b.sls': 'bx:\n  test.nop: []\nextend:\n  bx:\n    test.nop:\n      - name: n\n',
  });
  const r = renderSls(['a'], t.opts);
  assert.deepEqual(r.errors, []);
  assert.deepEqual(r.high.extend, [
    { bx: { test: [{ name: 'n' }, 'nop'], __sls__: 'a', __env__: 'base' } },
    { bx: { test: [{ name: 'n' }, 'nop'], __sls__: 'b', __env__: 'base' } },
  ]);
  assert.deepEqual(r.high.exclude, [{ sls: 'c' }, { id: 'zz' }, { sls: 'plain' }]);
  assert.deepEqual(Object.keys(showHighstateData(r.high)), ['__extend__', '__exclude__', 'bx']);
});

test('names stays a list in high data; args come before the function and the injected order', () => {
  const t = tree({ 'salt/n.sls': 'pkgs:\n  pkg.installed:\n    - names:\n      - vim\n      - curl\n' });
  assert.deepEqual(renderSls(['n'], t.opts).high.states.pkgs?.pkg, [{ names: ['vim', 'curl'] }, 'installed', { order: 10000 }]);
});

test('an SLS that renders to nothing adds nothing; one that renders to a list is refused', () => {
  const t = tree({ 'salt/e.sls': '# nothing\n', 'salt/l.sls': '- a\n- b\n' });
  const e = renderSls(['e'], t.opts);
  assert.deepEqual([e.errors, e.high.states], [[], {}]);
  assert.deepEqual(renderSls(['l'], t.opts).errors, ['SLS l does not render to a dictionary', "Error when rendering state with contents: ['a', 'b']"]);
});

test('saltenv and several roots: the first root that has the file wins', () => {
  const t = tree({ 'salt/x.sls': 'fromone:\n  test.nop: []\n', 'salt2/x.sls': 'fromtwo:\n  test.nop: []\n', 'salt2/y/init.sls': 'y:\n  test.nop: []\n' });
  const opts = { ...t.opts, envRoots: { dev: [join(t.dir, 'salt'), join(t.dir, 'salt2')] }, saltenv: 'dev' };
  const r = renderSls(['x', 'y'], opts);
  assert.deepEqual(r.errors, []);
  assert.deepEqual(Object.keys(r.high.states), ['fromone', 'y']);
  assert.equal(r.high.states.y?.__env__, 'dev');
});

test("the IDs' spans, worked out when first read, are each ID's first declaration across includes, Jinja and extend", () => {
  const t = tree({
    'salt/top.sls': "base:\n  '*':\n    - a\n    - c\n",
    // a includes b, rendered after a's own IDs; a's extend and c's exclude are stashed among the IDs.
    'salt/a.sls': 'include:\n  - b\nextend:\n  b1:\n    test:\n      - name: x\n# a comment\na1:\n  test.nop: []\nshared:\n  test.nop: []\n',
    'salt/b.sls': '\nb1:\n  test.nop: []\n',
    'salt/c.sls': "{% for i in range(2) %}\nc{{ i }}:\n  test.nop: []\n{% endfor %}\nexclude:\n  - id: nothing\n",
  });
  const r = renderHighstate(t.opts);
  assert.deepEqual(r.errors, []);
  const at = (sls: string, line: number, col = 1) => ({ file: join(t.dir, `salt/${sls}.sls`), line, col });
  assert.deepEqual(r.high.spans, { a1: at('a', 8), shared: at('a', 10), b1: at('b', 2), c0: at('c', 2), c1: at('c', 2) });
  assert.deepEqual(Object.keys(r.high.states), ['a1', 'shared', 'b1', 'c0', 'c1']);
  assert.deepEqual(r.high.ids && [...r.high.ids.keys()], ['a1', 'shared', 'b1', 'c0', 'c1']);
  assert.deepEqual(r.high.keyOrder, ['__extend__', 'a1', 'shared', 'b1', '__exclude__', 'c0', 'c1']);
});

test('IDs that are array indexes keep the dict order the compiler has always gone by (no Map of IDs handed on)', () => {
  const t = tree({ 'salt/top.sls': "base:\n  '*':\n    - a\n", 'salt/a.sls': "b:\n  test.nop: []\n'10':\n  test.nop: []\n'2':\n  test.nop: []\n" });
  const r = renderHighstate(t.opts);
  assert.deepEqual(r.errors, []);
  assert.equal(r.high.ids, undefined);
  assert.deepEqual(Object.keys(r.high.states), ['2', '10', 'b']);
  assert.deepEqual(r.high.keyOrder, ['b', '10', '2']);
});

test('mod.fun keys repeated and alternating across IDs each become their module with the function appended', () => {
  const t = tree({
    'salt/s.sls': 'a:\n  file.managed:\n    - name: /a\n  cmd.run:\n    - name: x\nb:\n  file.managed:\n    - name: /b\nc:\n  cmd.run: []\ne:\n  file:\n    - absent\n',
  });
  const r = renderSls(['s'], t.opts);
  assert.deepEqual(r.errors, []);
  assert.deepEqual(r.high.states.a, { __env__: 'base', __sls__: 's', file: [{ name: '/a' }, 'managed', { order: 10000 }], cmd: [{ name: 'x' }, 'run', { order: 10001 }] });
  assert.deepEqual(r.high.states.b, { __env__: 'base', __sls__: 's', file: [{ name: '/b' }, 'managed', { order: 10002 }] });
  assert.deepEqual(r.high.states.c, { __env__: 'base', __sls__: 's', cmd: ['run', { order: 10003 }] });
  assert.deepEqual(r.high.states.e, { __env__: 'base', __sls__: 's', file: ['absent', { order: 10004 }] });
});
