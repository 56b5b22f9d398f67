/**
 * The reference scanner and the mismatch check find what zapusk-tool's regular expressions find, on
 * random texts of braces and on the cases that matter, and read a value of many unclosed `{` in one pass.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hasMismatch, refsIn, ValuePositions } from '../../../src/frontends/zapusk/refs.js';

const REF = /\{\{([^}]+)\}\}/g;
const MISMATCH = /\{\{([^}]+)\}|\{([^}]+)\}\}/;

function byRegex(text: string) {
  return [...text.matchAll(REF)].map((m) => ({ index: m.index, end: (m.index ?? 0) + m[0].length, raw: m[1] }));
}

/** A small deterministic generator, so that a failure can be repeated. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

test('references and the mismatch check agree with the regular expressions on 20,000 random texts', () => {
  const next = random(7);
  const alphabet = ['{', '}', 'a', ' ', '\n', '{{', '}}', 'x'];
  for (let n = 0; n < 20000; n++) {
    let text = '';
    const len = Math.floor(next() * 14);
    for (let i = 0; i < len; i++) text += alphabet[Math.floor(next() * alphabet.length)];
    assert.deepEqual([...refsIn(text)], byRegex(text), JSON.stringify(text));
    assert.equal(hasMismatch(text), MISMATCH.test(text), JSON.stringify(text));
  }
});

test('named cases: empty names, a third brace, unclosed and half-closed references', () => {
  const cases = ['{{}}', '{{{x}}}', '{{x}', '{x}}', '{{x}} {y', '}{{a}}{{b}}', '{{a}b}}', '{{ a }}{{b}}', '{}}', '{{}', '{', '}', ''];
  for (const text of cases) {
    assert.deepEqual([...refsIn(text)], byRegex(text), text);
    assert.equal(hasMismatch(text), MISMATCH.test(text), text);
  }
});

test('a value of 2,000,000 characters, most of them unclosed `{`, is read with its references', () => {
  const text = `${'{{x}} { '.repeat(1000)}${'{'.repeat(2000000)}`;
  const refs = [...refsIn(text)];
  assert.equal(refs.length, 1000);
  assert.deepEqual(refs[999], { index: 7992, end: 7997, raw: 'x' });
  const unclosed = `${'a { '.repeat(1000)}${'{'.repeat(2000000)}`;
  assert.equal(hasMismatch(unclosed), false);
  assert.equal(hasMismatch(`${unclosed}}}`), true);
  assert.equal(hasMismatch(`${unclosed}}`), true);
});

test('positions inside a value: columns on its first line, lines and columns after', () => {
  const at = new ValuePositions({ file: 'm.ini', line: 5, col: 9 }, 'ab{{x}}\ncd{{y}}\n\n{{z}}');
  assert.deepEqual(at.at(2), { file: 'm.ini', line: 5, col: 11 });
  assert.deepEqual(at.at(10), { file: 'm.ini', line: 6, col: 3 });
  assert.deepEqual(at.at(17), { file: 'm.ini', line: 8, col: 1 });
});
