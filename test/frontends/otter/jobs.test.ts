// --jobs bounds the `with async` blocks running at once: one at a time under --jobs 1, side by side under
// --jobs 3 (checked by the order of their start and end lines, never by time).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cairn, tempDir } from '../../cli/cli-helpers.js';

function script(): string {
  const block = (n: number): string => `with async {\n    SHExec >>echo start ${n} | tee -a log.txt; sleep 1; echo end ${n} | tee -a log.txt>>;\n}\n`;
  return `${block(1)}${block(2)}${block(3)}await;\n`;
}

function run(jobs: number): string[] {
  const root = tempDir('cairn-otter-jobs-');
  writeFileSync(join(root, 'script.otter'), script());
  const r = cairn(['otter', 'run', 'script.otter', '--root', root, '--state-dir', join(root, '.state'), '--jobs', String(jobs)], { cwd: root });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  return readFileSync(join(root, 'log.txt'), 'utf8').trim().split('\n');
}

test('--jobs 1 runs async blocks one after another', () => {
  const lines = run(1);
  assert.equal(lines.length, 6);
  for (let i = 0; i < 6; i += 2) assert.deepEqual([lines[i]?.split(' ')[0], lines[i + 1]?.split(' ')[0], lines[i]?.split(' ')[1]], ['start', 'end', lines[i + 1]?.split(' ')[1]]);
});

test('--jobs 3 runs them side by side', () => {
  const lines = run(3);
  assert.deepEqual(lines.slice(0, 3).map((l) => l.split(' ')[0]), ['start', 'start', 'start']);
  assert.deepEqual(lines.slice(3).map((l) => l.split(' ')[0]), ['end', 'end', 'end']);
});
