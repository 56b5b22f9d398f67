/** The file store through the CLI: owner-only files, history filters and pages, prune, a directory that is not a store. */
import assert from 'node:assert/strict';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cairn, tempDir } from '../cli/cli-helpers.js';

function graph(dir: string, name: string, content: string): string {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ version: 1, nodes: [{ id: name, type: 'file', params: { path: join(dir, `${name}.txt`), content } }] }));
  return file;
}

test('store files are readable by their owner only', () => {
  const dir = tempDir();
  const state = join(dir, 'state');
  assert.equal(cairn(['apply', graph(dir, 'a', '1\n'), '--state-dir', state]).code, 0);
  const mode = (p: string): string => (statSync(p).mode & 0o777).toString(8);
  assert.equal(mode(state), '700');
  assert.equal(mode(join(state, 'runs')), '700');
  for (const f of ['runs.jsonl', 'drift.json']) assert.equal(mode(join(state, f)), '600', f);
  for (const f of readdirSync(join(state, 'runs'))) assert.equal(mode(join(state, 'runs', f)), '600', f);
});

test('history filters by mode, outcome and source, and pages with --before', () => {
  const dir = tempDir();
  const state = join(dir, 'state');
  assert.equal(cairn(['apply', graph(dir, 'a', '1\n'), '--state-dir', state]).code, 0);
  assert.equal(cairn(['plan', graph(dir, 'a', '2\n'), '--state-dir', state]).code, 0);
  assert.equal(cairn(['apply', graph(dir, 'b', '1\n'), '--state-dir', state]).code, 0);
  const ids = (args: string[]): number[] => (JSON.parse(cairn(['history', '--state-dir', state, '--out', 'json', ...args]).stdout) as { id: number }[]).map((r) => r.id);
  assert.deepEqual(ids([]), [3, 2, 1]);
  assert.deepEqual(ids(['--mode', 'check']), [2]);
  assert.deepEqual(ids(['--source', 'b.json']), [3]);
  assert.deepEqual(ids(['--outcome', 'changed', '--mode', 'apply']), [3, 1]);
  assert.deepEqual(ids(['--front-end', 'salt']), []);
  assert.deepEqual(ids(['--since', '1h']), [3, 2, 1]);
  assert.deepEqual(ids(['--until', '2000-01-01']), []);
  const page = cairn(['history', '--state-dir', state, '--limit', '2']);
  assert.match(page.stdout, /\(more: --before 2\)/);
  assert.deepEqual(ids(['--before', '2']), [1]);
  const host = JSON.parse(cairn(['history', '--state-dir', state, '--out', 'json']).stdout)[0].hosts[0] as string;
  assert.deepEqual(ids(['--host', host]), [3, 2, 1]);
  assert.deepEqual(ids(['--host', 'elsewhere']), []);
  const bad = cairn(['history', '--state-dir', state, '--since', 'soon']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /--since "soon": expected an ISO date/);
});

test('history prune --keep and --older-than; the newest run always stays', () => {
  const dir = tempDir();
  const state = join(dir, 'state');
  for (const v of ['1\n', '2\n', '3\n', '4\n']) assert.equal(cairn(['apply', graph(dir, 'a', v), '--state-dir', state]).code, 0);
  assert.match(cairn(['history', 'prune', '--keep', '2', '--state-dir', state]).stdout, /removed 2 runs from /);
  assert.deepEqual(readdirSync(join(state, 'runs')).sort(), ['3.json', '4.json']);
  assert.equal(cairn(['history', '1', '--state-dir', state]).code, 1);
  assert.match(cairn(['history', 'prune', '--older-than', '2999-01-01', '--state-dir', state]).stdout, /removed 1 run from /);
  assert.deepEqual(readdirSync(join(state, 'runs')), ['4.json']);
  // Ids keep counting after a prune.
  assert.match(cairn(['apply', graph(dir, 'a', '5\n'), '--state-dir', state]).stdout, /run 5\)/);
  const none = cairn(['history', 'prune', '--state-dir', state]);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /give --keep N or --older-than AGE/);
});

test('a directory that is not a store is refused, for reading and for runs', () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'notes.txt'), 'mine\n');
  const h = cairn(['history', '--state-dir', dir]);
  assert.equal(h.code, 1);
  assert.match(h.stderr, /^cairn: .* is not a cairn store \(no runs\.jsonl or runs\/ in it\)/);
  const other = tempDir();
  const r = cairn(['apply', graph(other, 'x', '1\n'), '--state-dir', dir]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /is not a cairn store/);
  assert.deepEqual(readdirSync(dir), ['notes.txt']);
  const prune = cairn(['history', 'prune', '--keep', '1', '--state-dir', dir]);
  assert.equal(prune.code, 1);
});
