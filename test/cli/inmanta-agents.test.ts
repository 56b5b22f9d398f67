// The order of agents in a fleet deploy and what a failed requirement on another agent blocks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AgentOutcome, blockedResources, planAgents } from '../../src/cli/inmanta-agents.js';
import type { NodeResult } from '../../src/core/model.js';
import type { ExportedResource } from '../../src/frontends/inmanta/exporter.js';
import type { InventoryHost } from '../../src/host/inventory.js';

const host = (name: string): InventoryHost => ({ name }) as InventoryHost;
const res = (agent: string, path: string, requires: string[] = []): ExportedResource =>
  ({ id: `fs::File[${agent},path=${path}]`, type: 'fs::File', agent, attributes: {}, requires }) as unknown as ExportedResource;
const result = (id: string, status: NodeResult['status'], ok: boolean | null): NodeResult =>
  ({ id, name: id, type: 'file', status, result: ok, changes: {}, comment: '', start: '', duration: 0, run_num: 0 }) as NodeResult;

test('agents that others require go first; the rest keep inventory order; a cycle keeps inventory order', () => {
  const a = res('a', '/x');
  const c = res('c', '/y');
  const b = res('b', '/z', [c.id]);
  const plan = planAgents([host('a'), host('b'), host('c')], [a, b, c]);
  assert.deepEqual(plan.order.map((h) => h.name), ['a', 'c', 'b']);
  assert.deepEqual(Object.fromEntries(plan.waitsFor), { a: [], c: [], b: ['c'] });
  // b requires c and c requires b: inventory order, and only c's requirement on b (the earlier one) is waited for.
  const c2 = res('c', '/y', [b.id]);
  const cycle = planAgents([host('a'), host('b'), host('c')], [a, b, c2]);
  assert.deepEqual(cycle.order.map((h) => h.name), ['a', 'b', 'c']);
  assert.deepEqual(Object.fromEntries(cycle.waitsFor), { a: [], b: [], c: ['b'] });
  // An agent that is not deployed in this run (not selected) is not waited for.
  assert.deepEqual(Object.fromEntries(planAgents([host('a'), host('b')], [a, b, c]).waitsFor), { a: [], b: [] });
});

test('a failed or unreachable requirement on another agent blocks the resource and what requires it on its agent', () => {
  const dep = res('a', '/dep');
  const r1 = res('b', '/r1', [dep.id]);
  const r2 = res('b', '/r2', [r1.id]);
  const r3 = res('b', '/r3');
  const agentOf = new Map([dep, r1, r2, r3].map((r) => [r.id, r.agent]));
  const outcome = (status: NodeResult['status'], ok: boolean | null): Map<string, AgentOutcome> => new Map([['a', { results: new Map([[dep.id, result(dep.id, status, ok)]]) }]]);
  assert.deepEqual(blockedResources([r1, r2, r3], outcome('changed', true), agentOf), new Map());
  assert.deepEqual(blockedResources([r1, r2, r3], outcome('pending', null), agentOf), new Map(), 'a dry run does not block');
  assert.deepEqual(
    blockedResources([r1, r2, r3], outcome('failed', false), agentOf),
    new Map([
      [r1.id, `it requires ${dep.id}, which failed on agent a`],
      [r2.id, `it requires ${r1.id}, which was skipped`],
    ]),
  );
  assert.deepEqual(
    [...blockedResources([r1, r2, r3], new Map([['a', { reason: 'connection refused by 10.0.0.1:22' }]]), agentOf).values()],
    [`it requires ${dep.id}, and agent a was not deployed: connection refused by 10.0.0.1:22`, `it requires ${r1.id}, which was skipped`],
  );
});
