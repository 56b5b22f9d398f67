// Deeply nested input never overflows a parser's stack: every front end reports it as a positioned
// diagnostic, exit 1, no stack trace, nothing changed.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { MAX_NESTING, tooDeepAt } from '../../src/core/nesting.js';
import { formatDiagnostic } from '../../src/core/diag.js';
import { assertNoStack, cairn, tempDir } from './cli-helpers.js';

const N = 20_000;
const brackets = `${'['.repeat(N)}${']'.repeat(N)}`;
const parens = `${'('.repeat(N)}1${')'.repeat(N)}`;

test('tooDeepAt finds the first bracket past the limit, skipping quoted strings', () => {
  assert.equal(tooDeepAt('[[]]', { limit: 2 }), -1);
  assert.equal(tooDeepAt('[[[]]]', { limit: 2 }), 2);
  assert.equal(tooDeepAt('"[[[[" [', { limit: 1 }), -1);
  assert.equal(tooDeepAt('"[[[[" [', { limit: 1, quotes: '' }), 2);
  assert.equal(tooDeepAt('[' .repeat(MAX_NESTING)), -1);
  assert.equal(tooDeepAt('['.repeat(MAX_NESTING + 1)), MAX_NESTING);
});

test('a code frame of a very long line shows a window around the column', () => {
  const line = `${'a'.repeat(500)}X${'b'.repeat(500)}`;
  const text = formatDiagnostic({ code: 'F013', severity: 'error', message: 'm', span: { file: 'f', line: 1, col: 501 } }, line);
  const [, frame = '', caret = ''] = text.split('\n');
  assert.ok(frame.length < 140, 'the frame is bounded');
  assert.equal(frame[caret.indexOf('^')], 'X', 'the caret is under the offending character');
});

function expectPositioned(args: string[], cwd: string, pattern: RegExp): void {
  const r = cairn([...args, '--state-dir', join(cwd, 'state')], { cwd });
  assertNoStack(r.stdout + r.stderr);
  assert.doesNotMatch(r.stdout + r.stderr, /Maximum call stack|internal error/);
  assert.match(r.stdout + r.stderr, pattern);
  assert.equal(r.code, 1);
}

test('graph file, JSON and YAML', () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'g.json'), `{"version":1,"nodes":[{"id":"a","type":"file","params":{"path":"${dir}/x","content":${brackets}}}]}`);
  writeFileSync(join(dir, 'g.yaml'), `version: 1\nnodes:\n- id: a\n  type: file\n  params:\n    path: ${dir}/x\n    content: ${brackets}\n`);
  expectPositioned(['plan', 'g.json'], dir, /^g\.json:1:\d+: F013 nesting deeper than 200 levels/m);
  expectPositioned(['apply', 'g.yaml'], dir, /^g\.yaml:7:\d+: F013 nesting deeper than 200 levels/m);
});

test('graph file: a JSON value 201 deep is refused, 200 deep is read; in params and in meta alike', () => {
  const dir = tempDir();
  // The params object is the 4th level of the file; its value 196 more makes 200.
  const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
  const graph = (where: 'params' | 'meta', levels: number) =>
    where === 'params'
      ? `{"version":1,"nodes":[{"id":"a","type":"file","params":{"path":"${dir}/x","content":"x","extra":${nested(levels)}}}]}`
      : `{"version":1,"nodes":[{"id":"a","type":"file","meta":{"k":${nested(levels)}},"params":{"path":"${dir}/x","content":"x"}}]}`;
  writeFileSync(join(dir, 'deep-params.json'), graph('params', MAX_NESTING - 3));
  writeFileSync(join(dir, 'deep-meta.json'), graph('meta', MAX_NESTING - 3));
  expectPositioned(['plan', 'deep-params.json'], dir, /^deep-params\.json:1:\d+: F013 nesting deeper than 200 levels/m);
  expectPositioned(['plan', 'deep-meta.json'], dir, /^deep-meta\.json:1:\d+: F013 nesting deeper than 200 levels/m);
  // One level less is no nesting problem: the plan goes on to the params check (extra is unknown).
  writeFileSync(join(dir, 'ok-params.json'), graph('params', MAX_NESTING - 4));
  const r = cairn(['plan', 'ok-params.json', '--state-dir', join(dir, 'state')], { cwd: dir });
  assert.doesNotMatch(r.stderr, /F013/);
  assert.match(r.stderr, /R001 file "a": /);
  writeFileSync(join(dir, 'ok-meta.json'), graph('meta', MAX_NESTING - 4));
  const ok = cairn(['plan', 'ok-meta.json', '--state-dir', join(dir, 'state')], { cwd: dir });
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /would change file a/);
});

test('Converge: HCL values and Go templates', () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'c.hcl'), `task "a" {\n  check = "true"\n  x = ${brackets}\n}\n`);
  writeFileSync(join(dir, 't.hcl'), `task "a" {\n  check = "{{${parens}}}"\n  apply = "true"\n}\n`);
  expectPositioned(['converge', 'plan', 'c.hcl'], dir, /^c\.hcl:3:\d+: HCL014 nesting deeper than 200 levels/m);
  expectPositioned(['converge', 'apply', 't.hcl'], dir, /^t\.hcl:2:\d+: CV020 template: parentheses nested deeper than 200 levels/m);
});

test('Salt: a Jinja expression nested too deeply', () => {
  const dir = tempDir();
  mkdirSync(join(dir, 'srv'));
  writeFileSync(join(dir, 'srv/top.sls'), "base:\n  '*':\n    - deep\n");
  writeFileSync(join(dir, 'srv/deep.sls'), `x:\n  test.nop:\n    - name: "{{ ${parens} }}"\n`);
  expectPositioned(['salt', 'state.apply', '--file-root', 'srv'], dir, /deep\.sls:3:\d+: SALTR002 .*nested deeper than 200 levels/);
});
