import assert from 'node:assert/strict';
import { test } from 'node:test';
import { indexGraph } from '../../src/core/graph.js';
import { deferred } from '../../src/core/model.js';
import { edge, node } from './helpers.js';

test('a cycle is reported with the nodes that form it', () => {
  const g = { nodes: [node('a', {}), node('b', {}), node('c', {}), node('d', {})], edges: [edge('a', 'b', 'require'), edge('b', 'c', 'watch'), edge('c', 'a', 'onchanges'), edge('a', 'd', 'require')] };
  const { index, diagnostics } = indexGraph(g);
  assert.equal(index, undefined);
  assert.equal(diagnostics.length, 1);
  assert.equal(diagnostics[0]?.code, 'G006');
  assert.equal(diagnostics[0]?.message, 'dependency cycle: "a" -> "b" -> "c" -> "a"');
});

test('prereq orders the dependent first, so a prereq against a require is a cycle', () => {
  const g = { nodes: [node('a', {}), node('b', {})], edges: [edge('b', 'a', 'prereq'), edge('b', 'a', 'require')] };
  const { diagnostics } = indexGraph(g);
  assert.match(diagnostics[0]?.message ?? '', /dependency cycle/);
});

test('a deferred value orders the referring node after its source, and cycles through refs are found', () => {
  const ref = (n: string) => deferred([{ node: n, field: 'value' }], (v) => v[0], `${n}.value`);
  const ok = indexGraph({ nodes: [node('b', { want: ref('a') }), node('a', {})], edges: [] });
  assert.deepEqual(ok.index?.before.get('b'), ['a']);
  const bad = indexGraph({ nodes: [node('b', { want: ref('a') }), node('a', { want: ref('b') })], edges: [] });
  assert.match(bad.diagnostics[0]?.message ?? '', /dependency cycle: "b" -> "a" -> "b"/);
});

test('unknown edge ends, self edges and duplicate ids are diagnostics', () => {
  const { diagnostics } = indexGraph({
    nodes: [node('a', {}), node('a', {}), node('b', {})],
    edges: [edge('zz', 'b', 'require'), edge('b', 'b', 'watch'), edge('a', 'nope', 'require')],
  });
  assert.deepEqual(
    diagnostics.map((d) => d.message),
    ['duplicate node id "a"', '"b" has require on unknown node "zz"', '"b" cannot watch itself', 'edge from unknown node "nope"'],
  );
});

test('a 10,000-long chain is indexed without recursion limits', () => {
  const nodes = Array.from({ length: 10000 }, (_, i) => node(`n${i}`, {}));
  const edges = nodes.slice(1).map((_, i) => edge(`n${i}`, `n${i + 1}`, 'require'));
  const { index, diagnostics } = indexGraph({ nodes, edges });
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(index?.before.get('n9999'), ['n9998']);
});

test('a cycle of 100,000 nodes is found without recursion and its message names a bounded number of them', () => {
  const n = 100_000;
  const nodes = Array.from({ length: n }, (_, i) => node(`n${i}`, {}));
  const edges = Array.from({ length: n }, (_, i) => edge(`n${i}`, `n${(i + 1) % n}`, 'require'));
  const { index, diagnostics } = indexGraph({ nodes, edges });
  assert.equal(index, undefined);
  assert.equal(diagnostics[0]?.code, 'G006');
  const message = diagnostics[0]?.message ?? '';
  assert.ok(message.startsWith('dependency cycle: "n0" -> "n1" -> '), message);
  assert.ok(message.endsWith('-> "n99999" -> "n0" (100000 nodes in all)'), message);
  assert.match(message, / … 99981 more nodes … /);
  assert.equal(message.match(/"n\d+"/g)?.length, 20);
});

test('a 100,000-long chain is indexed with each node waiting for the one before it', () => {
  const n = 100_000;
  const nodes = Array.from({ length: n }, (_, i) => node(`n${i}`, {}));
  const edges = Array.from({ length: n - 1 }, (_, i) => edge(`n${i}`, `n${i + 1}`, 'require'));
  const { index, diagnostics } = indexGraph({ nodes, edges });
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(index?.before.get('n99999'), ['n99998']);
  assert.deepEqual(index?.after.get('n0'), ['n1']);
});

test('order in the list does not matter: a graph listed backwards indexes, a cycle listed forwards but for one edge is found', () => {
  const n = 1000;
  const nodes = Array.from({ length: n }, (_, i) => node(`n${i}`, {}));
  // Each node waits for the one listed after it.
  const backwards = Array.from({ length: n - 1 }, (_, i) => edge(`n${i + 1}`, `n${i}`, 'require'));
  const back = indexGraph({ nodes, edges: backwards });
  assert.deepEqual(back.diagnostics, []);
  assert.deepEqual(back.index?.before.get('n0'), ['n1']);
  // Every edge forward, and the last one back to the start.
  const forwards = Array.from({ length: n - 1 }, (_, i) => edge(`n${i}`, `n${i + 1}`, 'require'));
  const loop = indexGraph({ nodes, edges: [...forwards, edge(`n${n - 1}`, 'n0', 'require')] });
  assert.equal(loop.index, undefined);
  assert.equal(loop.diagnostics[0]?.code, 'G006');
  assert.ok(loop.diagnostics[0]?.message.startsWith('dependency cycle: "n0" -> "n1" -> '), loop.diagnostics[0]?.message);
});
