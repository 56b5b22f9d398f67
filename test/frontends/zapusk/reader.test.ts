import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readLines, splitLines } from '../../../src/frontends/zapusk/reader.js';

function read(text: string) {
  return readLines(splitLines('m.ini', text));
}

test('headers, sections, repeated sections, bare keys, quoted and multi-line values', () => {
  const r = read(
    [
      '################## comp1 ######################',
      '[os]',
      'apply = "echo hi"',
      '[os]',
      'once-only',
      'content="',
      ' line 1',
      '   line 2',
      '"',
      "k='single'",
      'empty=',
    ].join('\n'),
  );
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual(
    r.sections.map((s) => [s.kind, s.name, s.entries.map((e) => [e.key, e.value])]),
    [
      ['header', 'comp1', []],
      ['section', 'os', [['apply', 'echo hi']]],
      ['section', 'os', [['once-only', true], ['content', ' line 1\n   line 2'], ['k', 'single'], ['empty', '']]],
    ],
  );
  assert.deepEqual(r.sections[0]?.span, { file: 'm.ini', line: 1, col: 20 });
  assert.deepEqual(r.sections[2]?.entries[1]?.valueSpan, { file: 'm.ini', line: 7, col: 1 });
});

test('comments: #, ##, //, ``, blank lines; a ### line with a name is a header', () => {
  const r = read(['# one', '## two', '// three', '`` four', '', '####', '### not-a-comment', 'x=1'].join('\n'));
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual(
    r.sections.map((s) => [s.name, s.entries.length]),
    [['not-a-comment', 1]],
  );
});

test('a malformed line and a step before any header are positioned errors', () => {
  const r = read(['[os]', '#### web', 'apply=x', '   port: 80'].join('\n'));
  assert.deepEqual(
    r.diagnostics.map((d) => [d.code, d.span?.line, d.span?.col]),
    [
      ['Z003', 1, 1],
      ['Z001', 4, 4],
    ],
  );
});

test('an unclosed multi-line value is kept and warned about', () => {
  const r = read(['#### a', 'v="', 'rest'].join('\n'));
  assert.equal(r.sections[0]?.entries[0]?.value, 'rest');
  assert.match(r.warnings[0] ?? '', /un-closed multiline value found: name=v/);
});

test('a multi-line value may start on the key line; an unclosed quote stays a plain value as zapusk-tool reads it', () => {
  const r = read(
    [
      '#### c',
      '[file]',
      'content="server {',
      '  listen 80;',
      '}',
      '"',
      'other="first',
      'last"',
      '[info]',
      'apply="never closed',
      'destroy=bye',
      'x="a',
      'y=b"',
    ].join('\n'),
  );
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual(
    r.sections.map((s) => s.entries.map((e) => [e.key, e.value])),
    [
      [],
      [
        ['content', 'server {\n  listen 80;\n}'],
        ['other', 'first\nlast'],
      ],
      // `y=b"` is a line zapusk-tool reads, so `x="a` is not the start of a multi-line value.
      [
        ['apply', '"never closed'],
        ['destroy', 'bye'],
        ['x', '"a'],
        ['y', 'b"'],
      ],
    ],
  );
  assert.equal(r.sections[1]?.entries[1]?.span.line, 7);
});
