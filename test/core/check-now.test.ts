// The engine's fast path: a kind that can tell at once that a node is in its state (checkNow) settles it
// without check, with the result check would give; everything else still goes through check.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Graph } from '../../src/core/graph.js';
import { deferred, type NodeResult, type ResourceKind } from '../../src/core/model.js';
import { checkGraph, runGraph } from '../../src/core/runtime.js';
import { edge, memKind, newWorld, node, type World } from './helpers.js';

/** memKind with checkNow: answers when the value is already what is wanted; `nowThrows` makes it throw. */
function quickKind(w: World, calls: string[]): ResourceKind<World> {
  const base = memKind(w);
  return {
    ...base,
    checkNow(world, params, n) {
      calls.push(n.id);
      if (params.nowThrows) throw new Error('cannot tell at once');
      const cur = world.state.get(params.key as string);
      return cur === params.want ? { inSync: true, comment: 'in sync', outputs: { value: cur, ...(params.out as object) } } : undefined;
    },
  };
}

async function runWith(graph: Graph, w: World, quick: boolean, mode: 'apply' | 'check' = 'apply', jobs = 4) {
  const calls: string[] = [];
  const kinds = new Map([['mem', quick ? quickKind(w, calls) : memKind(w)]]);
  const { index, diagnostics } = checkGraph(graph, kinds);
  if (!index) throw new Error(diagnostics.map((d) => d.message).join('\n'));
  const report = await runGraph(graph, index, { mode, jobs, kinds, ctx: w });
  return { report, calls, by: Object.fromEntries(report.results.map((r) => [r.id, r])) };
}

const timeless = (r: NodeResult) => ({ ...r, start: '', duration: 0 });

test('a node in its state is settled at once, with the result check gives; a drifted one goes through check and apply', async () => {
  const g = { nodes: [node('a', { want: 1, out: { x: 1 } }), node('b', { want: 2 }), node('c', { want: 3 })], edges: [edge('a', 'c', 'require')] };
  const fast = newWorld({ a: 1, c: 3 });
  const slow = newWorld({ a: 1, c: 3 });
  const quick = await runWith(g, fast, true);
  const plain = await runWith(g, slow, false);
  assert.deepEqual(quick.calls, ['a', 'b', 'c']);
  assert.deepEqual(fast.log, ['check b', 'apply b']);
  assert.deepEqual([...slow.log].sort(), ['apply b', 'check a', 'check b', 'check c']);
  assert.deepEqual(quick.report.results.map(timeless), plain.report.results.map(timeless));
  assert.deepEqual(quick.report.counts, plain.report.counts);
  assert.match(quick.by.a!.start, /^\d{4}-\d\d-\d\dT/);
  assert.equal(typeof quick.by.a!.duration, 'number');
});

test('a kind that throws at once is asked again through check, which decides', async () => {
  const w = newWorld({ a: 1 });
  const { by, calls } = await runWith({ nodes: [node('a', { want: 1, nowThrows: true })], edges: [] }, w, true);
  assert.deepEqual(calls, ['a']);
  assert.deepEqual(w.log, ['check a']);
  assert.equal(by.a?.status, 'ok');
});

test('requisites other than met plain requires, and deferred values, always go through check', async () => {
  const w = newWorld({ a: 1, b: 1, c: 1, d: 1, e: 1, f: 1, g: 1 });
  const g = {
    nodes: [
      node('a', { want: 1 }),
      node('b', { want: 1 }),
      node('c', { want: 1 }),
      node('d', { want: 1 }),
      node('e', { want: 1 }),
      node('f', { want: 1, copy: deferred([{ node: 'a', field: 'value' }], (v) => v[0], '${a.value}') }),
      node('g', { want: 1, fail: true }),
    ],
    edges: [edge('a', 'b', 'onchanges'), edge('a', 'c', 'watch'), edge('a', 'd', 'prereq'), edge('a', 'e', 'onfail')],
  };
  const { calls, by } = await runWith(g, w, true);
  assert.deepEqual(calls, ['g']);
  // a (which d has a prereq on) is checked for itself and again for d's gate; c and f through check.
  assert.deepEqual(w.log.filter((l) => l.startsWith('check ')).sort(), ['check a', 'check a', 'check c', 'check f']);
  assert.equal(by.b?.comment, 'State was not run because none of the onchanges reqs changed');
  assert.equal(by.f?.status, 'ok');
  assert.equal(by.g?.status, 'ok');
});

test('a failed dependency is never passed over by the fast path', async () => {
  const w = newWorld({ b: 1 });
  const g = { nodes: [node('a', { want: 1, fail: true }), node('b', { want: 1 })], edges: [edge('a', 'b', 'require')] };
  const { by, calls } = await runWith(g, w, true);
  // a is asked (not in its state: it goes on to check and a failed apply); b never is.
  assert.deepEqual(calls, ['a']);
  assert.equal(by.a?.result, false);
  assert.equal(by.b?.result, false);
  assert.match(by.b?.comment ?? '', /One or more requisite failed: a/);
});

test('20,000 nodes in one require chain, every one settled at once: no stack overflow (a completion inside the loop never recurses), start order kept', async () => {
  const n = 20_000;
  const init: Record<string, number> = {};
  const nodes = [];
  const edges = [];
  for (let i = 0; i < n; i++) {
    init[`n${i}`] = 1;
    nodes.push(node(`n${i}`, { want: 1 }));
    if (i > 0) edges.push(edge(`n${i - 1}`, `n${i}`, 'require'));
  }
  const w = newWorld(init);
  const { report, calls } = await runWith({ nodes, edges }, w, true, 'check', 4);
  assert.equal(calls.length, n);
  assert.equal(w.log.length, 0);
  assert.equal(report.results.length, n);
  assert.equal(report.counts.ok, n);
  assert.ok(report.results.every((r, i) => r.run_num === i && r.id === `n${i}`));
});
