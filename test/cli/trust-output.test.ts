/** What plans show and what the run store keeps: bounded, linear-time diffs with paths; hashes, not contents. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cairn, tempDir, writeGraph } from './cli-helpers.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex').slice(0, 12);

function storeBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) n += statSync(join(e.parentPath, e.name)).size;
  return n;
}

test('a 50 MB file replaced by another plans with a summary, and the store keeps neither content', () => {
  const dir = tempDir();
  const path = join(dir, 'big.bin.txt');
  const src = join(dir, 'src.txt');
  const before = Buffer.alloc(50 << 20, 'a\n');
  const after = Buffer.alloc(50 << 20, 'b\n');
  writeFileSync(path, before);
  writeFileSync(src, after);
  const graph = writeGraph(dir, [{ id: 'big', type: 'file', params: { path, source: src } }]);
  const r = cairn(['plan', graph, '--state-dir', join(dir, 'state')]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`^ {4}diff: large file changed: ${before.length} bytes → ${after.length} bytes, sha256 ${sha(before)}… → ${sha(after)}…$`, 'm'));
  assert.ok(storeBytes(join(dir, 'state')) < 64 * 1024, `store is ${storeBytes(join(dir, 'state'))} bytes`);
});

test('diff headers name the file; a new file shows its content, bounded; binary content is only sized', () => {
  const dir = tempDir();
  const old = join(dir, 'old.txt');
  writeFileSync(old, 'one\ntwo\nthree\n');
  const long = Array.from({ length: 500 }, (_, i) => `row ${i}`).join('\n') + '\n';
  const graph = writeGraph(dir, [
    { id: 'old', type: 'file', params: { path: old, content: 'one\n2\nthree\n' } },
    { id: 'small', type: 'file', params: { path: join(dir, 'small.txt'), content: 'hello\nworld' } },
    { id: 'long', type: 'file', params: { path: join(dir, 'long.txt'), content: long } },
    { id: 'bin', type: 'file', params: { path: join(dir, 'bin.dat'), content: 'a\u0000b' } },
  ]);
  const r = cairn(['plan', graph, '--state-dir', join(dir, 'state')]);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stdout.includes(`    diff:\n      --- ${old}\n      +++ ${old}\n      @@ -1,3 +1,3 @@\n       one\n      -two\n      +2\n       three\n`), r.stdout);
  const small = join(dir, 'small.txt');
  assert.ok(r.stdout.includes(`    content:\n      --- /dev/null\n      +++ ${small}\n      @@ -0,0 +1,2 @@\n      +hello\n      +world\n`), r.stdout);
  assert.match(r.stdout, /^ {6}\+row 199\n {6}\[300 more lines, 3890 bytes in all\]$/m);
  assert.doesNotMatch(r.stdout, /row 200/);
  assert.match(r.stdout, /^ {6}binary file created: 3 bytes$/m);
  assert.equal(readdirSync(dir).sort().join(','), 'graph.json,old.txt,state');
});

test('a no-op plan of 1,000 files adds under 1 MB to the store, which keeps hashes instead of contents', () => {
  const dir = tempDir();
  const out = join(dir, 'out');
  const content = 'x'.repeat(2000) + '\n';
  const nodes = [{ id: 'out', type: 'directory', params: { path: out } }];
  for (let i = 0; i < 1000; i++) nodes.push({ id: `f${i}`, type: 'file', params: { path: join(out, `f${i}.txt`), content }, require: ['out'] } as never);
  const graph = writeGraph(dir, nodes);
  const state = join(dir, 'state');
  assert.equal(cairn(['apply', graph, '--state-dir', state]).code, 0);
  const before = storeBytes(state);
  const r = cairn(['plan', graph, '--state-dir', state]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Plan: 0 to change, 1001 ok/m);
  const added = storeBytes(state) - before;
  assert.ok(added < 1 << 20, `the no-op plan added ${added} bytes`);
  const record = readFileSync(join(state, 'runs', '2.json'), 'utf8');
  assert.ok(!record.includes(content.slice(0, 100)), 'the run record keeps a file content');
  assert.match(record, new RegExp(`"content_sha256":"${sha(Buffer.from(content))}"`));
});
