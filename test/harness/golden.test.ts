/** The golden harness itself: comparisons fail on a difference, accepting writes, recordings are never rewritten, orphans are found. */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../cli/cli-helpers.js';
import { casesOf, Expect, type GoldenSuite, orphansOf } from './golden.js';

function corpus(files: Record<string, string>): string {
  const root = tempDir('cairn-golden-');
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}

const suiteAt = (root: string, more: Partial<GoldenSuite> = {}): GoldenSuite => ({
  title: 't',
  root,
  isCase: (dir) => existsSync(join(dir, 'in.txt')),
  expected: (n) => /^\d+\.out$/.test(n),
  input: (n) => n === 'in.txt',
  run: () => {},
  ...more,
});

test('a comparison passes on equal text and fails on a difference or a missing file', () => {
  const root = corpus({ 'a/in.txt': '', 'a/1.out': 'one\n' });
  const e = new Expect(join(root, 'a'), suiteAt(root), false);
  e.text('1.out', 'one\n', 'same');
  assert.throws(() => e.text('1.out', 'two\n', 'differs'), /differs/);
  assert.throws(() => e.text('2.out', 'x', 'missing'), /2\.out is missing/);
  e.text('2.out', '', 'absent is empty', { absentIsEmpty: true });
  assert.throws(() => e.text('in.txt', '', 'an input'), /not an expected-file name/);
});

test('accepting writes what was produced (and removes an emptied optional file); a recorded suite is never rewritten', () => {
  const root = corpus({ 'a/in.txt': '', 'a/1.out': 'old\n', 'a/2.out': 'gone\n' });
  const e = new Expect(join(root, 'a'), suiteAt(root), true);
  e.text('1.out', 'new\n', 'rewritten');
  e.text('2.out', '', 'emptied', { absentIsEmpty: true });
  e.json('3.out', { a: 1 }, 'written');
  assert.equal(readFileSync(join(root, 'a/1.out'), 'utf8'), 'new\n');
  assert.equal(existsSync(join(root, 'a/2.out')), false);
  assert.equal(readFileSync(join(root, 'a/3.out'), 'utf8'), '{\n  "a": 1\n}\n');
  assert.equal(e.accepted, 3);
  const recorded = new Expect(join(root, 'a'), suiteAt(root, { recorded: true }), true);
  assert.throws(() => recorded.text('1.out', 'cairn\n', 'recorded'), /recorded/);
  assert.equal(readFileSync(join(root, 'a/1.out'), 'utf8'), 'new\n');
  // Recorded by name: 1.out is the real system's, 3.out cairn's own.
  const some = new Expect(join(root, 'a'), suiteAt(root, { recorded: (n) => n === '1.out' }), true);
  assert.throws(() => some.text('1.out', 'cairn\n', 'recorded'), /recorded/);
  some.json('3.out', { a: 2 }, 'cairn\'s own');
  assert.equal(readFileSync(join(root, 'a/1.out'), 'utf8'), 'new\n');
  assert.equal(readFileSync(join(root, 'a/3.out'), 'utf8'), '{\n  "a": 2\n}\n');
  assert.equal(some.accepted, 1);
});

test('orphans: a folder that is no case, a file that is neither input nor expected, an expected file no run read', () => {
  const root = corpus({ 'a/in.txt': '', 'a/1.out': '', 'a/2.out': '', 'a/notes.md': '', 'b/in.txt': '', 'b/1.out': '', 'stray/1.out': '', 'README.md': '' });
  const suite = suiteAt(root, { shared: ['README.md'] });
  assert.deepEqual(casesOf(suite), ['a', 'b']);
  // a read 1.out only; b did not finish, so its expected files are not judged.
  assert.deepEqual(orphansOf(suite, new Map([['a', new Set(['1.out'])]])), ['stray: not a case', 'a/notes.md: neither an input nor an expected file', 'a/2.out: an expected file no run compares']);
  assert.deepEqual(orphansOf(suiteAt(corpus({ 'a/in.txt': '', 'a/1.out': '' })), new Map([['a', new Set(['1.out'])]])), []);
});
