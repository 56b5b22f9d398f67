import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { assertNoStack, cairn, tempDir, writeGraph } from './cli-helpers.js';

/** Every bad input: exit 1, a positioned diagnostic, no stack trace, and nothing written to disk. */
function rejects(graphFile: string, dir: string, expected: RegExp, cmd = 'apply') {
  const r = cairn([cmd, graphFile, '--state-dir', join(dir, 'state')]);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assertNoStack(r.stderr);
  assert.match(r.stderr, expected);
  assert.equal(r.stdout, '');
  assert.deepEqual(readdirSync(dir).filter((f) => f.startsWith('made')), [], 'nothing was created');
  return r;
}

const good = (dir: string) => ({ id: 'good', type: 'file', params: { path: join(dir, 'made-by-good'), content: 'x' } });

test('malformed JSON points at the line and column', () => {
  const dir = tempDir();
  const file = join(dir, 'graph.json');
  writeFileSync(file, '{\n  "version": 1,\n  "nodes": [\n    {"id": "a",, "type": "file"}\n  ]\n}\n');
  const r = rejects(file, dir, /graph\.json:4:16: F000 invalid JSON: /);
  assert.match(r.stderr, /\n 4 \| {5}\{"id": "a",, "type": "file"\}\n {3}\| {16}\^/);
});

test('an unknown resource type names the known ones, at the node position', () => {
  const dir = tempDir();
  const file = writeGraph(dir, [good(dir), { id: 'x', type: 'fiel', params: {} }]);
  rejects(file, dir, /graph\.json:\d+:\d+: R000 unknown resource type "fiel" \(known: .*file.*\)/);
});

test('a missing required param and a wrongly typed one point at the param', () => {
  const dir = tempDir();
  const file = writeGraph(dir, [good(dir), { id: 'nopath', type: 'file', params: { content: 'x' } }, { id: 'badmode', type: 'file', params: { path: '/tmp/x', mode: true } }]);
  const r = rejects(file, dir, /R001 file "nopath": missing required param "path"/);
  assert.match(r.stderr, /graph\.json:\d+:\d+: R001 file "badmode": param "mode"/);
  assert.match(r.stderr, /2 errors/);
});

test('an unknown param is an error', () => {
  const dir = tempDir();
  const file = writeGraph(dir, [good(dir), { id: 'typo', type: 'file', params: { path: '/tmp/x', contnet: 'x' } }]);
  rejects(file, dir, /R001 file "typo": unknown param "contnet"/);
});

test('a cycle is named', () => {
  const dir = tempDir();
  const file = writeGraph(dir, [
    { ...good(dir), require: ['c'] },
    { id: 'b', type: 'file', params: { path: join(dir, 'made-b'), content: '' }, require: ['good'] },
    { id: 'c', type: 'file', params: { path: join(dir, 'made-c'), content: '' }, watch: ['b'] },
  ]);
  rejects(file, dir, /graph\.json:\d+:\d+: G006 dependency cycle: "good" -> "b" -> "c" -> "good"/);
});

test('a requisite on an unknown node is positioned at the reference', () => {
  const dir = tempDir();
  const file = writeGraph(dir, [{ ...good(dir), require: ['ghost'] }]);
  rejects(file, dir, /graph\.json:12:9: G003 "good" has require on unknown node "ghost"/);
});

test('a missing source file is reported before anything changes', () => {
  const dir = tempDir();
  const file = writeGraph(dir, [good(dir), { id: 'src', type: 'file', params: { path: join(dir, 'made-src'), source: 'no-such.txt' } }]);
  rejects(file, dir, /graph\.json:\d+:\d+: .*no-such\.txt/);
});

test('a graph file that is not a graph, a wrong version and a missing file', () => {
  const dir = tempDir();
  const notGraph = join(dir, 'list.json');
  writeFileSync(notGraph, '[1, 2]');
  rejects(notGraph, dir, /list\.json:1:1: F001 a graph file holds an object/);
  const v2 = join(dir, 'v2.json');
  writeFileSync(v2, '{"version": 2, "nodes": []}');
  rejects(v2, dir, /v2\.json:1:13: F002 unsupported graph version 2/);
  const r = cairn(['plan', join(dir, 'nope.json'), '--state-dir', join(dir, 'state')]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^cairn: cannot read graph file .*nope\.json: no such file$/m);
});

test('bad usage exits 1 with a hint', () => {
  const r = cairn(['apply']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /missing required argument 'graph'/);
  const j = cairn(['apply', 'x.json', '--jobs', 'zero']);
  assert.equal(j.code, 1);
  assert.match(j.stderr, /--jobs/);
});

test('no state is written for rejected input', () => {
  const dir = tempDir();
  const file = writeGraph(dir, [{ id: 'x', type: 'nope', params: {} }]);
  cairn(['apply', file, '--state-dir', join(dir, 'state')]);
  assert.equal(existsSync(join(dir, 'state', 'runs.jsonl')), false);
});
