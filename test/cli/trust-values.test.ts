/** Wrongly typed graph-file values are refused before anything changes, at their position, with a hint. */
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { assertNoStack, cairn, tempDir } from './cli-helpers.js';

test('an integer mode is refused with a positioned diagnostic and a hint; nothing is written', () => {
  const dir = tempDir();
  const graph = join(dir, 'graph.json');
  writeFileSync(
    graph,
    `{"version": 1, "nodes": [\n  {"id": "a", "type": "file", "params": {"path": "${join(dir, 'a')}", "content": "x\\n", "mode": 644}},\n  {"id": "d", "type": "directory", "params": {"path": "${join(dir, 'd')}", "mode": 493}}\n]}\n`,
  );
  for (const cmd of ['apply', 'plan']) {
    const r = cairn([cmd, graph, '--state-dir', join(dir, 'state')]);
    assert.equal(r.code, 1);
    assertNoStack(r.stderr);
    const col = `  {"id": "a", "type": "file", "params": {"path": "${join(dir, 'a')}", "content": "x\\n", "mode": `.length + 1;
    assert.ok(r.stderr.includes(`graph.json:2:${col}: F017 node "a": "mode" is the number 644, which is not an octal mode; write "0644" (a string)\n`), r.stderr);
    assert.match(r.stderr, /graph\.json:3:\d+: F017 node "d": "mode" is the number 493, which is not an octal mode; write "0755" \(a string\)/);
  }
  assert.deepEqual(readdirSync(dir), ['graph.json']);
});

test('a wrongly typed value never quotes a secret in its diagnostic', () => {
  const dir = tempDir();
  const graph = join(dir, 'graph.json');
  writeFileSync(graph, JSON.stringify({ version: 1, nodes: [{ id: 'a', type: 'file', params: { path: join(dir, 'a'), content: 'x', makedirs: { $secret: { env: 'CAIRN_TEST_SECRET' } } } }] }));
  const r = cairn(['apply', graph, '--state-dir', join(dir, 'state')], { env: { CAIRN_TEST_SECRET: 'PLANTED-in-diagnostic' } });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /R001 file "a": param "makedirs": Invalid type: Expected boolean but received "\*{8}"/);
  assert.ok(!r.stderr.includes('PLANTED'));
  assert.deepEqual(readdirSync(dir), ['graph.json']);
});
