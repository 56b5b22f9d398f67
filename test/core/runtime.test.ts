import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deferred } from '../../src/core/model.js';
import { edge, newWorld, node, run } from './helpers.js';

test('apply: drifted nodes change, in-sync nodes stay ok, result records are complete', async () => {
  const w = newWorld({ a: 1 });
  const { report, by } = await run({ nodes: [node('a', { want: 1 }), node('b', { want: 2 })], edges: [] }, w);
  assert.equal(by.a?.status, 'ok');
  assert.equal(by.a?.result, true);
  assert.deepEqual(by.a?.changes, {});
  assert.equal(by.b?.status, 'changed');
  assert.deepEqual(by.b?.changes, { new: 2 });
  assert.equal(w.state.get('b'), 2);
  for (const r of report.results) {
    assert.equal(r.type, 'mem');
    assert.equal(r.name, r.id);
    assert.match(r.start, /^\d{4}-\d\d-\d\dT/);
    assert.equal(typeof r.duration, 'number');
  }
  assert.deepEqual(report.results.map((r) => r.run_num), [0, 1]);
  assert.deepEqual(report.counts, { ok: 1, changed: 1, pending: 0, failed: 0, skipped: 0, unresolvable: 0 });
});

test('check mode reports would-change as null with the changes, and changes nothing', async () => {
  const w = newWorld({ a: 1 });
  const { by } = await run({ nodes: [node('a', { want: 1 }), node('b', { want: 2 })], edges: [] }, w, 'check');
  assert.equal(by.b?.result, null);
  assert.equal(by.b?.status, 'pending');
  assert.deepEqual(by.b?.changes, { old: null, new: 2 });
  assert.equal(w.state.has('b'), false);
  assert.ok(!w.log.some((l) => l.startsWith('apply')));
});

test('collect mode records drift without applying', async () => {
  const w = newWorld({ a: 0 });
  const { report } = await run({ nodes: [node('a', { want: 1 })], edges: [] }, w, 'collect');
  assert.equal(report.results[0]?.status, 'pending');
  assert.equal(w.state.get('a'), 0);
});

test('simulate mode runs apply through the context (the CLI gives it a host that records instead of acting)', async () => {
  const w = newWorld();
  const { by } = await run({ nodes: [node('a', { want: 1 })], edges: [] }, w, 'simulate');
  assert.equal(by.a?.status, 'changed');
  assert.deepEqual(w.log, ['check a', 'apply a']);
});

test('require: a failed dependency fails its dependents, independent branches still run', async () => {
  const w = newWorld();
  const g = {
    nodes: [node('bad', { want: 1, fail: true }), node('child', { want: 1 }), node('grandchild', { want: 1 }), node('free', { want: 1 })],
    edges: [edge('bad', 'child', 'require'), edge('child', 'grandchild', 'require')],
  };
  const { by } = await run(g, w);
  assert.equal(by.bad?.result, false);
  assert.equal(by.bad?.comment, 'boom');
  assert.equal(by.child?.result, false);
  assert.equal(by.child?.status, 'skipped');
  assert.equal(by.child?.comment, 'One or more requisite failed: bad');
  assert.equal(by.grandchild?.comment, 'One or more requisite failed: child');
  assert.equal(by.free?.status, 'changed');
  assert.equal(w.state.has('child'), false);
});

test('a check that throws becomes a failed result, not an exception', async () => {
  const { by } = await run({ nodes: [node('a', { checkFail: true })], edges: [] }, newWorld());
  assert.equal(by.a?.result, false);
  assert.equal(by.a?.comment, 'cannot read a');
});

test('depends orders like require', async () => {
  const w = newWorld();
  await run({ nodes: [node('b', { want: 1 }), node('a', { want: 1, delay: 20 })], edges: [edge('a', 'b', 'depends')] }, w);
  assert.deepEqual(w.log, ['check a', 'apply a', 'check b', 'apply b']);
});

test('onchanges: runs only when a dependency changed', async () => {
  const w = newWorld({ same: 1 });
  const g = {
    nodes: [node('same', { want: 1 }), node('diff', { want: 2 }), node('onSame', { want: 1 }), node('onDiff', { want: 1 })],
    edges: [edge('same', 'onSame', 'onchanges'), edge('diff', 'onDiff', 'onchanges')],
  };
  const { by } = await run(g, w);
  assert.equal(by.onSame?.status, 'skipped');
  assert.equal(by.onSame?.result, true);
  assert.equal(by.onSame?.comment, 'State was not run because none of the onchanges reqs changed');
  assert.equal(w.state.has('onSame'), false);
  assert.equal(by.onDiff?.status, 'changed');
});

test('onchanges in check mode follows a would-change dependency', async () => {
  const { by } = await run({ nodes: [node('a', { want: 2 }), node('b', { want: 1 })], edges: [edge('a', 'b', 'onchanges')] }, newWorld(), 'check');
  assert.equal(by.b?.status, 'pending');
});

test('onfail: runs only when a dependency failed, and the failure does not skip it', async () => {
  const w = newWorld();
  const g = {
    nodes: [node('bad', { want: 1, fail: true }), node('good', { want: 1 }), node('rescue', { want: 1 }), node('idle', { want: 1 })],
    edges: [edge('bad', 'rescue', 'onfail'), edge('good', 'idle', 'onfail')],
  };
  const { by } = await run(g, w);
  assert.equal(by.rescue?.status, 'changed');
  assert.equal(by.idle?.status, 'skipped');
  assert.equal(by.idle?.comment, 'State was not run because onfail req did not change');
});

test('watch: a changed dependency triggers the watch action; an unchanged one does not', async () => {
  const w = newWorld({ conf: 1, svc: 'up', conf2: 1, svc2: 'up' });
  const g = {
    nodes: [node('conf', { want: 2 }), node('svc', { want: 'up' }), node('conf2', { want: 1 }), node('svc2', { want: 'up' })],
    edges: [edge('conf', 'svc', 'watch'), edge('conf2', 'svc2', 'watch')],
  };
  const { by } = await run(g, w);
  assert.deepEqual(w.watched, ['svc']);
  assert.equal(by.svc?.status, 'changed');
  assert.deepEqual(by.svc?.changes, { restarted: true });
  assert.equal(by.svc2?.status, 'ok');
});

test('watch in check mode reports the pending watch action', async () => {
  const w = newWorld({ svc: 'up' });
  const { by } = await run({ nodes: [node('conf', { want: 2 }), node('svc', { want: 'up' })], edges: [edge('conf', 'svc', 'watch')] }, w, 'check');
  assert.equal(by.svc?.status, 'pending');
  assert.match(by.svc?.comment ?? '', /watch action because conf changed/);
  assert.deepEqual(w.watched, []);
});

test('watch on a failed dependency skips like require', async () => {
  const { by } = await run({ nodes: [node('conf', { want: 2, fail: true }), node('svc', { want: 1 })], edges: [edge('conf', 'svc', 'watch')] }, newWorld());
  assert.equal(by.svc?.result, false);
  assert.equal(by.svc?.status, 'skipped');
});

test('prereq: runs before its target, only when the target would change', async () => {
  const w = newWorld({ steady: 1 });
  const g = {
    nodes: [node('stop', { want: 'stopped' }), node('upgrade', { want: 2 }), node('noStop', { want: 'stopped' }), node('steady', { want: 1 })],
    edges: [edge('upgrade', 'stop', 'prereq'), edge('steady', 'noStop', 'prereq')],
  };
  const { by } = await run(g, w, 'apply', 1);
  assert.equal(by.stop?.status, 'changed');
  assert.ok((by.stop?.run_num ?? 99) < (by.upgrade?.run_num ?? -1), 'the prereq node runs first');
  assert.ok(w.log.indexOf('check upgrade') < w.log.indexOf('apply stop'), 'the target is checked before the prereq node acts');
  assert.equal(by.noStop?.status, 'skipped');
  assert.equal(by.noStop?.result, true);
  assert.equal(by.noStop?.comment, 'No changes detected');
  assert.equal(w.state.has('noStop'), false);
});

test('prereq: when the prereq node fails, its target does not run', async () => {
  const w = newWorld();
  const g = { nodes: [node('stop', { want: 1, fail: true }), node('upgrade', { want: 2 })], edges: [edge('upgrade', 'stop', 'prereq')] };
  const { by } = await run(g, w);
  assert.equal(by.upgrade?.result, false);
  assert.equal(by.upgrade?.comment, 'One or more requisite failed: stop');
  assert.equal(w.state.has('upgrade'), false);
});

test('deferred values resolve from the outputs of the node they refer to', async () => {
  const w = newWorld();
  const ref = deferred([{ node: 'src', field: 'ip' }], (v) => `addr=${v[0]}`, 'src.ip');
  const g = { nodes: [node('dst', { want: ref }), node('src', { want: 1, out: { ip: '10.0.0.1' } })], edges: [] };
  const { by } = await run(g, w);
  assert.equal(w.state.get('dst'), 'addr=10.0.0.1');
  assert.equal(by.dst?.status, 'changed');
});

test('a deferred value known only after apply is unresolvable in a plan, and fails an apply when never produced', async () => {
  const ref = deferred([{ node: 'src', field: 'stdout' }], (v) => v[0], 'src.stdout');
  const g = { nodes: [node('src', { want: 1 }), node('dst', { want: ref })], edges: [] };
  const plan = await run(g, newWorld(), 'check');
  assert.equal(plan.by.dst?.status, 'unresolvable');
  assert.equal(plan.by.dst?.result, null);
  assert.equal(plan.by.dst?.comment, 'unresolvable: src.stdout is known only after src has been applied');
  const applied = await run(g, newWorld());
  assert.equal(applied.by.dst?.result, false);
});

test('independent slow nodes overlap under --jobs, and run one at a time with jobs=1', async () => {
  const g = { nodes: [node('a', { want: 1, delay: 150 }), node('b', { want: 1, delay: 150 })], edges: [] };
  const par = await run(g, newWorld(), 'apply', 2);
  const [a, b] = par.report.results;
  const aStart = Date.parse(a!.start);
  const bStart = Date.parse(b!.start);
  assert.ok(Math.abs(aStart - bStart) < 150, 'both started before either finished');
  const ser = await run(g, newWorld(), 'apply', 1);
  const [s1, s2] = ser.report.results;
  assert.ok(Date.parse(s2!.start) - Date.parse(s1!.start) >= 290, 'the second started after the first finished');
});

test('unknown resource types and invalid params are load-time diagnostics', async () => {
  const { checkGraph } = await import('../../src/core/runtime.js');
  const { memKind } = await import('./helpers.js');
  const kinds = new Map([['mem', memKind(newWorld())]]);
  const g = { nodes: [{ id: 'x', type: 'nope', name: 'x', params: {} }, { id: 'y', type: 'mem', name: 'y', params: {} }], edges: [] };
  const { index, diagnostics } = checkGraph(g, kinds);
  assert.equal(index, undefined);
  assert.deepEqual(diagnostics.map((d) => d.message), ['unknown resource type "nope" (known: mem)', 'mem y: missing required param "key"']);
});

test('ready nodes start in graph order (front ends control the order by how they list nodes)', async () => {
  const w = newWorld();
  const g = { nodes: [node('c', { want: 1 }), node('a', { want: 1 }), node('b', { want: 1 }), node('d', { want: 1 })], edges: [edge('b', 'c', 'require')] };
  const { report } = await run(g, w, 'apply', 1);
  assert.deepEqual(report.results.map((r) => r.id), ['a', 'b', 'c', 'd']);
});

test('require with any: one successful dependency is enough; all failing fails', async () => {
  const anyEdge = (from: string, to: string) => ({ from, to, kind: 'require' as const, any: true });
  const g = {
    nodes: [node('bad', { want: 1, fail: true }), node('good', { want: 1 }), node('bad2', { want: 1, fail: true }), node('either', { want: 1 }), node('neither', { want: 1 })],
    edges: [anyEdge('bad', 'either'), anyEdge('good', 'either'), anyEdge('bad', 'neither'), anyEdge('bad2', 'neither')],
  };
  const { by } = await run(g, newWorld());
  assert.equal(by.either?.status, 'changed');
  assert.equal(by.neither?.result, false);
  assert.equal(by.neither?.comment, 'One or more requisite failed: bad, bad2');
});

test('a node that stops on failure keeps later nodes from starting', async () => {
  const w = newWorld();
  const hard = { ...node('hard', { want: 1, fail: true }), stopOnFailure: true };
  const { report } = await run({ nodes: [node('first', { want: 1 }), hard, node('later', { want: 1 })], edges: [] }, w, 'apply', 1);
  assert.deepEqual(report.results.map((r) => r.id), ['first', 'hard']);
  assert.equal(w.state.has('later'), false);
});

test('requisite comments use the label the front end gives', async () => {
  const { checkGraph, runGraph } = await import('../../src/core/runtime.js');
  const { memKind } = await import('./helpers.js');
  const w = newWorld();
  const kinds = new Map([['mem', memKind(w)]]);
  const g = { nodes: [node('bad', { want: 1, fail: true }), node('b', { want: 1 })], edges: [edge('bad', 'b', 'require')] };
  const { index } = checkGraph(g, kinds);
  const report = await runGraph(g, index!, { mode: 'apply', jobs: 1, kinds, ctx: w, label: (n) => `web.${n.id}` });
  assert.equal(report.results[1]?.comment, 'One or more requisite failed: web.bad');
});
