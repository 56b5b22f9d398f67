import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InmantaError } from '../../../src/frontends/inmanta/errors.js';
import { parseFile } from '../../../src/frontends/inmanta/parser.js';

function parseError(src: string): InmantaError {
  try {
    parseFile('m.cf', src);
  } catch (e) {
    if (InmantaError.is(e)) return e;
    throw e;
  }
  throw new Error('expected a parse error');
}

test('statements keep their positions', () => {
  const stmts = parseFile('m.cf', 'import std\n\nentity A extends B:\n  string? x = null\n  int[] y = [1]\nend\nA.b [0:1] -- B.a [1:]\n');
  assert.deepEqual(stmts.map((s) => [s.kind, s.span.line, s.span.col]), [['import', 1, 1], ['entity', 3, 1], ['relation', 7, 1]]);
  const ent = stmts[1];
  assert.ok(ent?.kind === 'entity');
  assert.deepEqual(ent.attrs.map((a) => [a.name, a.type.name, a.type.list, a.type.nullable]), [['x', 'string', false, true], ['y', 'int', true, false]]);
  const rel = stmts[2];
  assert.ok(rel?.kind === 'relation');
  assert.deepEqual([rel.left.lower, rel.left.upper, rel.right.lower, rel.right.upper], [0, 1, 1, undefined]);
});

test('precedence: not binds tighter than comparison, in tighter than not', () => {
  const [s] = parseFile('m.cf', 'x = not a in b\ny = 1 + 2 * 3 ** 2\n');
  assert.ok(s?.kind === 'assign' && s.value.kind === 'not' && s.value.operand.kind === 'bin' && s.value.operand.op === 'in');
});

test('interpolation keeps only name paths; f-string fields must be paths', () => {
  const [s] = parseFile('m.cf', 'x = "a {{ h.name }} {{std::x}}"\n');
  assert.ok(s?.kind === 'assign' && s.value.kind === 'fmt');
  assert.deepEqual(s.value.parts, ['a ', { path: ['h', 'name'], spec: [] }, ' {{std::x}}']);
  const e = parseError('x = f"{a + 1}"\n');
  assert.equal(e.kind, 'NotFoundException');
});

test('syntax errors carry file, line and column', () => {
  const e = parseError('entity A:\n  string n\n\nimplement A using std::none\n');
  assert.equal(e.kind, 'ParserException');
  assert.deepEqual([e.span?.file, e.span?.line, e.span?.col], ['m.cf', 4, 1]);
  assert.match(e.msg, /implement is a reserved keyword/);
  assert.equal(parseError('a-b = 1\n').kind, 'HyphenException');
  assert.equal(parseError('x = "open\n').kind, 'ParserException');
});

// Positions and wording as the real parser reports them (recorded from the real compiler): a token it cannot
// use is reported one column past its end; the end of the file on the line after the last, column 2.
test('syntax errors are placed and worded as the real parser does', () => {
  const cases: [string, string, number, number][] = [
    ['x = = 1\n', 'Syntax error at token =', 1, 6],
    ['z = A[n="y"].v\n', 'Syntax error at token .', 1, 14],
    ['z = std::count([1]).v\n', 'Syntax error at token .', 1, 21],
    ['z = (a).v\n', 'Syntax error at token .', 1, 9],
    ['z = A[n="y"][n="y"]\n', 'Syntax error at token =', 1, 16],
    ['if 1 "abc":\nend\n', 'Syntax error at token abc', 1, 11],
    ['if 1 3.5:\nend\n', 'Syntax error at token 3.5', 1, 9],
    ['a = 1\nx = 1 +\n', 'Syntax error: Unexpected end of file', 4, 2],
    ['x = a.', 'Syntax error: Unexpected end of file', 2, 2],
    ['x = "abc\n', `Syntax error: Illegal character '"'`, 1, 5],
    ['x = """abc\n', `Syntax error: Illegal character '"'`, 1, 7],
    ['x = 1 $\n', "Syntax error: Illegal character '$'", 1, 7],
    ['entity b:\nend\n', 'Syntax error: Invalid identifier: Entity names must start with a capital', 1, 8],
    ['entity A extends b:\nend\n', 'Syntax error: Invalid identifier: Entity names must start with a capital', 1, 18],
  ];
  for (const [src, msg, line, col] of cases) {
    const e = parseError(src);
    assert.deepEqual([e.kind, e.msg, e.span?.line, e.span?.col], ['ParserException', msg, line, col], src);
  }
});

test('a string written like an operator is a string: it does not make a name before it a keyword argument', () => {
  const e = parseError('std::print(x "=" 2)\n');
  assert.deepEqual([e.kind, e.msg, e.span?.line, e.span?.col], ['ParserException', 'Syntax error at token =', 1, 17]);
  const [s] = parseFile('m.cf', 'std::print(x = "=")\n');
  assert.ok(s?.kind === 'expr' && s.expr.kind === 'call');
  assert.deepEqual(s.expr.kwargs.map((k) => [k.name, k.value.kind === 'lit' ? k.value.value : undefined]), [['x', '=']]);
});

test('any expression is a statement, and what cannot continue one starts the next, newline or not', () => {
  assert.deepEqual(parseFile('m.cf', 'x = 1 2\n[1]\n').map((s) => s.kind), ['assign', 'expr', 'expr']);
  const [s] = parseFile('m.cf', 'x = a\n["k"]\n');
  assert.ok(s?.kind === 'assign' && s.value.kind === 'mapget');
});
