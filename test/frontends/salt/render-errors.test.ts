// Render and validation errors: Salt's text in `errors`, and a file:line:col diagnostic for each.
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { renderSls, resolveSaltUrl, verifyHigh } from '../../../src/frontends/salt/render/index.js';
import { loadSaltYaml } from '../../../src/frontends/salt/render/yaml-load.js';
import { tree } from './render-helpers.js';

test('YAML is read as Salt reads it: 1.1 booleans, leading-zero ints decimal, timestamps as strings', () => {
  const r = loadSaltYaml('a: yes\nb: off\nc: y\nd: 0644\ne: 1e3\nf: 2024-01-02\ng: 0x1F\nh: 1.5\ni: ~\nj: "0644"\nk: 08\n');
  assert.ok(r.ok);
  assert.deepEqual(r.data, { a: true, b: false, c: 'y', d: 644, e: '1e3', f: '2024-01-02', g: 31, h: 1.5, i: null, j: '0644', k: '08' });
});

test('a repeated key is "found conflicting ID", with both positions (libyaml marks carry no snippet)', () => {
  const t = tree({ 'salt/dup.sls': 'a:\n  test.nop: []\nb:\n  test.nop: []\na:\n  test.nop: []\n' });
  const r = renderSls(['dup'], t.opts);
  assert.deepEqual(r.errors, [
    'Rendering SLS \'base:dup\' failed: while constructing a mapping\n  in "<unicode string>", line 1, column 1\nfound conflicting ID \'a\'\n  in "<unicode string>", line 5, column 1',
  ]);
  assert.deepEqual(r.diagnostics[0]?.span, { file: join(t.dir, 'salt/dup.sls'), line: 5, col: 1 });
});

test('a YAML scanner error is libyaml\'s problem alone in Salt\'s message; the diagnostic has the source line after Jinja', () => {
  const t = tree({ 'salt/bad.sls': '{% set x = 1 %}\nok:\n  test.nop: []\nbroken:\n  test.nop: x: y\n' });
  const r = renderSls(['bad'], t.opts);
  assert.equal(r.errors.length, 1);
  assert.equal(r.errors[0], "Rendering SLS 'base:bad' failed: mapping values are not allowed in this context");
  assert.equal(r.diagnostics[0]?.code, 'SALTR001');
  assert.equal(r.diagnostics[0]?.span?.line, 5);
  assert.equal(r.diagnostics[0]?.message, 'mapping values are not allowed in this context (line 5 of the Jinja output: "  test.nop: x: y")');
});

test('the diagnostic of a libyaml parser error names the problem as Salt\'s message does', () => {
  const t = tree({ 'salt/flow.sls': 'conf:\n  file.managed:\n    - name: [oops\n' });
  const r = renderSls(['flow'], t.opts);
  assert.match(r.errors[0] ?? '', /did not find expected ',' or '\]'\n  in "<unicode string>", line 4, column 1$/);
  assert.equal(r.diagnostics[0]?.message, "did not find expected ',' or ']'");
  assert.deepEqual([r.diagnostics[0]?.span?.line, r.diagnostics[0]?.span?.col], [4, 1]);
});

test('the error context is get_context\'s: five lines either side, [...] where cut', () => {
  const body = Array.from({ length: 12 }, (_, i) => `k${i + 1}: v`);
  body[6] = 'k7: {{ nope }}';
  const t = tree({ 'salt/ctx.sls': `${body.join('\n')}\n` });
  const err = renderSls(['ctx'], t.opts).errors[0] ?? '';
  assert.equal(
    err,
    "Rendering SLS 'base:ctx' failed: Jinja variable 'nope' is undefined; line 7\n\n---\n[...]\nk2: v\nk3: v\nk4: v\nk5: v\nk6: v\nk7: {{ nope }}    <======================\nk8: v\nk9: v\nk10: v\nk11: v\nk12: v\n---",
  );
});

test('a tab in the indentation is libyaml\'s "found character that cannot start any token"', () => {
  const t = tree({ 'salt/tab.sls': 'a:\n\ttest.nop: []\n' });
  assert.equal(renderSls(['tab'], t.opts).errors[0], "Rendering SLS 'base:tab' failed: found character that cannot start any token");
});

test('Jinja errors: an undefined variable and a syntax error, with the template line', () => {
  const t = tree({ 'salt/u.sls': 'a:\n  test.nop:\n    - name: {{ nope.x }}\n', 'salt/s.sls': 'a:\n{% if %}\n' });
  const u = renderSls(['u'], t.opts);
  assert.match(u.errors[0] ?? '', /^Rendering SLS 'base:u' failed: Jinja variable 'nope' is undefined; line 3\n\n---\n/);
  assert.equal(u.diagnostics[0]?.span?.line, 3);
  assert.equal(u.diagnostics[0]?.code, 'SALTR002');
  const s = renderSls(['s'], t.opts);
  assert.match(s.errors[0] ?? '', /^Rendering SLS 'base:s' failed: Jinja syntax error: .*; line 2/);
});

test('renderers are chosen by the shebang; py runs under python3; gpg and yaml|jinja are refused by name', () => {
  const t = tree({
    'salt/y.sls': '#!yaml\na:\n  test.nop:\n    - name: "{{ not_rendered }}"\n',
    'salt/p.sls': "#!py\ndef run():\n  return {'fromPy': {'test.nop': [{'comment': __sls__ + ' ' + __env__}]}}\n",
    'salt/pbad.sls': '#!py\ndef run():\n  raise ValueError("nope")\n',
    'salt/g.sls': '#!jinja|yaml|gpg\na: {}\n',
    'salt/r.sls': '#!yaml|jinja\na: {}\n',
    'salt/j.sls': '#!jinja|json\n{"a": {"test.nop": []}}\n',
  });
  assert.deepEqual(renderSls(['y'], t.opts).high.states.a?.test, [{ name: '{{ not_rendered }}' }, 'nop', { order: 10000 }]);
  assert.deepEqual(renderSls(['p'], t.opts).high.states.fromPy?.test, [{ comment: 'p base' }, 'nop', { order: 10000 }]);
  const bad = renderSls(['pbad'], t.opts);
  assert.match(bad.errors[0] ?? '', /^Rendering SLS 'base:pbad' failed: Traceback[\s\S]*ValueError: nope$/);
  assert.match(bad.diagnostics[0]?.message ?? '', /ValueError: nope/);
  assert.match(renderSls(['g'], t.opts).errors[0] ?? '', /The renderer 'gpg' of SLS base:g/);
  assert.match(renderSls(['r'], t.opts).errors[0] ?? '', /Jinja renders text, so it must come before yaml or json/);
  assert.deepEqual(renderSls(['j'], t.opts).high.states.a?.test, ['nop', { order: 10000 }]);
});

test('verify_high: list shape, function count, whitespace, requisites; positioned at the ID', () => {
  const t = tree({
    'salt/v.sls': [
      'notlist:',
      '  file.managed: /etc/x',
      'nofun:',
      '  file:',
      '    - name: /x',
      'twofun:',
      '  file.managed:',
      '    - absent',
      'space:',
      '  cmd:',
      '    - run now',
      'req:',
      '  cmd.run:',
      '    - require: other',
      'reqdict:',
      '  cmd.run:',
      '    - require:',
      '      - [a]',
      '      - file.managed: x',
      'badorder:',
      '  cmd.run:',
      '    - order: soon',
      '',
    ].join('\n'),
  });
  const r = renderSls(['v'], t.opts);
  assert.deepEqual(r.errors, []);
  const v = verifyHigh(r.high);
  assert.deepEqual(v.errors, [
    "State 'notlist' in SLS 'v' is not formed as a list",
    "No function declared in state 'file' in SLS 'v'",
    "Too many functions declared in state 'file' in SLS 'v'",
    'The function "run now" in state "space" in SLS "v" has whitespace, a function with whitespace is not supported, perhaps this is an argument that is missing a ":"',
    "The require statement in state 'req' in SLS 'v' needs to be formed as a list",
    "Requisite declaration ['a'] in SLS v is not formed as a single key dictionary",
    "Invalid requisite type 'file.managed' in state 'reqdict', in SLS 'v'. Requisite types must not contain dots, did you mean 'file'?",
  ]);
  assert.deepEqual(v.diagnostics.filter((d) => d.severity === 'error').map((d) => d.span?.line), [1, 3, 6, 9, 12, 15, 15]);
  assert.equal(v.diagnostics.find((d) => d.severity === 'warning')?.span?.line, 20);
});

test('salt:// URLs, includes and imports never leave the file roots', () => {
  const t = tree({
    'salt/ok/f.txt': 'x',
    'outside/secret.sls': 'stolen:\n  test.nop: []\n',
    'outside/secret.txt': 'secret',
    'salt/imp.sls': "{% from '../outside/m.jinja' import x %}\n",
    'salt/rel.sls': "{% from './../../outside/m.jinja' import x %}\n",
  });
  mkdirSync(join(t.dir, 'salt/links'));
  symlinkSync(join(t.dir, 'outside/secret.sls'), join(t.dir, 'salt/links/evil.sls'));
  symlinkSync(join(t.dir, 'outside'), join(t.dir, 'salt/linkdir'));
  writeFileSync(join(t.dir, 'salt/inc.sls'), 'include:\n  - links.evil\n');
  assert.equal(resolveSaltUrl('salt://ok/f.txt', t.opts, 'base'), join(t.dir, 'salt/ok/f.txt'));
  const up = resolveSaltUrl('salt://../outside/secret.txt', t.opts, 'base');
  assert.ok(typeof up !== 'string' && up.code === 'SALTR004');
  const viaLink = resolveSaltUrl('salt://linkdir/secret.txt', t.opts, 'base');
  assert.ok(typeof viaLink !== 'string' && /symlink/.test(viaLink.message));
  const missing = resolveSaltUrl('salt://ok/nope.txt', t.opts, 'base');
  assert.ok(typeof missing !== 'string' && missing.message === "Source file salt://ok/nope.txt not found in saltenv 'base'");
  const inc = renderSls(['inc'], t.opts);
  assert.equal(inc.diagnostics[0]?.code, 'SALTR004');
  assert.equal(inc.diagnostics[0]?.span?.line, 1);
  assert.deepEqual(inc.high.states, {});
  for (const sls of ['imp', 'rel']) {
    const r = renderSls([sls], t.opts);
    assert.equal(r.diagnostics[0]?.code, 'SALTR004', sls);
    assert.match(r.errors[0] ?? '', /leaves the file roots/);
  }
});
