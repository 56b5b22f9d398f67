/**
 * The run report's failed-module lines stay near-linear in the number of modules and failures: each
 * failure is placed in the module it sits directly in, found by its id's prefixes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { GraphNode, NodeResult } from '../../../src/core/model.js';
import { formatRunReport } from '../../../src/frontends/converge/format-text.js';
import { NodeTree } from '../../../src/frontends/converge/tree.js';
import type { RawNode } from '../../../src/frontends/converge/types.js';

function stopped(id: string): { node: GraphNode; result: NodeResult } {
  return {
    node: { id, type: 'task', name: id, params: {} } as GraphNode,
    result: { id, name: id, type: 'task', result: false, status: 'skipped', changes: {}, comment: 'requisite failed: root/task.first', start: '', duration: 0 } as NodeResult,
  };
}

test('a module is failed by the first failure directly inside it, innermost modules first', () => {
  const ids = ['root/module.a/module.b/task.x', 'root/module.a/task.y', 'root/module.c/task.z'];
  const parts = ids.map(stopped);
  const modules = ['root', 'root/module.a', 'root/module.a/module.b', 'root/module.c', 'root/module.d'];
  const { text } = formatRunReport(
    parts.map((p) => p.node),
    parts.map((p) => p.result),
    new Map(),
    'apply',
    { moduleIds: modules },
  );
  const lines = text.split('\n').filter((l) => l.includes('error in dependency'));
  assert.deepEqual(lines.slice(3), [
    ' * root/module.a/module.b: error in dependency "root/module.a/module.b/task.x"',
    ' * root/module.a: error in dependency "root/module.a/task.y"',
    ' * root/module.c: error in dependency "root/module.c/task.z"',
  ]);
});

test('20,000 modules inside one module, each with a failure inside, each get their line, and so does the outer one', () => {
  const n = 20000;
  const parts = Array.from({ length: n }, (_, i) => stopped(`root/module.o/module.m${i}/task.t`));
  const modules = ['root', 'root/module.o', ...Array.from({ length: n }, (_, i) => `root/module.o/module.m${i}`)];
  const { text, errors } = formatRunReport(
    parts.map((p) => p.node),
    parts.map((p) => p.result),
    new Map(),
    'apply',
    { moduleIds: modules },
  );
  assert.equal(errors, 2 * n + 1);
  assert.ok(text.includes(' * root/module.o/module.m19999: error in dependency "root/module.o/module.m19999/task.t"\n'));
  assert.ok(text.includes(' * root/module.o: error in dependency "root/module.o/module.m0"\n'));
  assert.match(text, /Summary: 0 errors, 0 changes, 40001 dependency errors/);
});

test('the nodes inside a container, and directly inside it, are those a scan of every id finds', () => {
  const ids = ['root', 'root/module.a', 'root/module.a/task.x', 'root/module.a/module.b', 'root/module.a/module.b/file.content./etc/motd', 'root/task.y', 'root/macro.switch.s', 'root/macro.switch.s/macro.case.one', 'root/macro.switch.s/macro.case.one/task.z', 'root/module.ab/task.w'];
  const nodes = ids.map((id) => ({ id }) as RawNode);
  const tree = new NodeTree(nodes);
  for (const c of [...ids, 'root/module.a/module.b/file.content.', 'nothing']) {
    assert.deepEqual(tree.within(c), nodes.filter((n) => n.id.startsWith(`${c}/`)), c);
    assert.deepEqual(tree.directlyIn(c), nodes.filter((n) => n.id.startsWith(`${c}/`) && !n.id.slice(c.length + 1).includes('/')), c);
  }
  assert.deepEqual(tree.within('root/module.a').map((n) => n.id), ['root/module.a/task.x', 'root/module.a/module.b', 'root/module.a/module.b/file.content./etc/motd']);
});
