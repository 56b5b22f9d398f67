import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tooDeepAt } from '../../src/core/nesting.js';

test('the nesting scan reports the first bracket one level too deep, counting outside quoted strings only', () => {
  assert.equal(tooDeepAt('[[[]]]', { limit: 3 }), -1);
  assert.equal(tooDeepAt('x = [ { ( y ) } ] [[[[', { limit: 3 }), 21);
  // Brackets in a quoted string do not count; a quote ends at its closing quote or at the end of its line.
  assert.equal(tooDeepAt('"[[[[" [[', { limit: 2 }), -1);
  assert.equal(tooDeepAt('"a\\"[[[[" [[[', { limit: 2 }), 12);
  assert.equal(tooDeepAt('"open\n[[[', { limit: 2 }), 8);
  assert.equal(tooDeepAt("'[[[[' [[[", { limit: 2, quotes: '"' }), 3);
  // A backslash at the very end of a quoted string at the end of the text.
  assert.equal(tooDeepAt('[[ "ab\\', { limit: 1 }), 1);
  // Closers without openers are ignored; other brackets are counted only when named.
  assert.equal(tooDeepAt(')))(((', { limit: 2 }), 5);
  assert.equal(tooDeepAt('((([[[{{{', { open: '{', close: '}', limit: 2 }), 8);
  // Text without any bracket or quote, long or empty.
  assert.equal(tooDeepAt('é'.repeat(10_000)), -1);
  assert.equal(tooDeepAt(''), -1);
  assert.equal(tooDeepAt(`${'{'.repeat(200)}${'x'.repeat(1000)}{`), 1200);
});
