// The lexer's tokens for what a model writes less often (each read by a function of its own): prefixed and
// multi-line strings, regular expressions, comments, other white space, escapes, numbers next to `-`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InmantaError } from '../../../src/frontends/inmanta/errors.js';
import { lex } from '../../../src/frontends/inmanta/lexer.js';

function tokens(src: string): [string, string][] {
  const t = lex('m.cf', src);
  const out: [string, string][] = [];
  for (let i = 0; i < t.count; i++) {
    const k = t.token(i);
    out.push([k.kind, k.text]);
  }
  return out;
}

test('prefixed, multi-line and escaped strings', () => {
  assert.deepEqual(tokens('x = r"a\\nb" + f"{a}"'), [['id', 'x'], ['op', '='], ['str', 'a\\nb'], ['op', '+'], ['str', '{a}'], ['eof', '']]);
  assert.deepEqual(tokens('x = """a\nb"""'), [['id', 'x'], ['op', '='], ['str', 'a\nb'], ['eof', '']]);
  assert.deepEqual(tokens('a = "\\x41\\t"'), [['id', 'a'], ['op', '='], ['str', 'A\t'], ['eof', '']]);
});

test('an unterminated prefixed string: the prefix is a name, its quote an illegal character', () => {
  try {
    lex('m.cf', 'r"x');
    assert.fail('expected an error');
  } catch (e) {
    assert.ok(InmantaError.is(e));
    assert.equal(e.msg, `Syntax error: Illegal character '"'`);
    assert.deepEqual([e.span?.line, e.span?.col], [1, 2]);
  }
});

test('a regular expression after matching, comments, other white space, numbers and names next to -', () => {
  assert.deepEqual(tokens('typedef t as string matching /a\\/b[0-9]/'), [['kw', 'typedef'], ['id', 't'], ['kw', 'as'], ['id', 'string'], ['kw', 'matching'], ['regex', 'a\\/b[0-9]'], ['eof', '']]);
  assert.deepEqual(tokens('# c\nx = 1 # d'), [['id', 'x'], ['op', '='], ['int', '1'], ['eof', '']]);
  assert.deepEqual(tokens('x\u00a0= 1'), [['id', 'x'], ['op', '='], ['int', '1'], ['eof', '']]);
  assert.deepEqual(tokens('x = -1 3-1 1.5 1.'), [['id', 'x'], ['op', '='], ['int', '-1'], ['int', '3'], ['int', '-1'], ['float', '1.5'], ['int', '1'], ['op', '.'], ['eof', '']]);
  assert.deepEqual(tokens('a-b- c'), [['id', 'a-b'], ['op', '-'], ['id', 'c'], ['eof', '']]);
});
