/**
 * Requirements between resources of different agents in a fleet deploy: an agent starts once the agents
 * whose resources it requires have finished, and a resource whose requirement on another agent did not
 * succeed (it failed, was skipped, or its host could not be reached) is skipped, with those that require
 * it on its own agent, as Inmanta skips a resource whose dependency failed.
 */
import { type NodeResult, stepResult } from '../core/model.js';
import type { ExportedResource } from '../frontends/inmanta/exporter.js';
import type { InventoryHost } from '../host/inventory.js';

/** The outcome of one agent's deploy as the agents after it see it: each resource's result, or why there are none. */
export type AgentOutcome = { readonly results: ReadonlyMap<string, NodeResult> } | { readonly reason: string };

export interface AgentPlan {
  /** The selected hosts, each after the agents it requires (inventory order otherwise). */
  readonly order: InventoryHost[];
  /** Agent → the agents before it in `order` whose resources it requires. */
  readonly waitsFor: ReadonlyMap<string, readonly string[]>;
}

/**
 * Orders the selected agents so that required agents come first. Agents that require each other (a
 * cycle) keep inventory order, and the later one's requirement on the earlier is waited for only.
 */
export function planAgents(selected: readonly InventoryHost[], resources: readonly ExportedResource[]): AgentPlan {
  const agentOf = new Map(resources.map((r) => [r.id, r.agent]));
  const names = new Set(selected.map((h) => h.name));
  const needs = new Map<string, Set<string>>(selected.map((h) => [h.name, new Set()]));
  for (const r of resources) {
    for (const dep of r.requires) {
      const other = agentOf.get(dep);
      if (other !== undefined && other !== r.agent && names.has(other) && names.has(r.agent)) needs.get(r.agent)?.add(other);
    }
  }
  const order: InventoryHost[] = [];
  const placed = new Set<string>();
  while (order.length < selected.length) {
    const ready = selected.find((h) => !placed.has(h.name) && [...(needs.get(h.name) ?? [])].every((n) => placed.has(n)));
    // In a cycle no agent is ready: the first one left in inventory order goes next.
    const next = (ready ?? selected.find((h) => !placed.has(h.name))) as InventoryHost;
    order.push(next);
    placed.add(next.name);
  }
  const position = new Map(order.map((h, i) => [h.name, i]));
  const waitsFor = new Map(order.map((h) => [h.name, [...(needs.get(h.name) ?? [])].filter((n) => (position.get(n) ?? 0) < (position.get(h.name) ?? 0))]));
  return { order, waitsFor };
}

/**
 * The resources of `own` that cannot be deployed because a requirement on another agent did not succeed,
 * with why; resources requiring a blocked one on the same agent are blocked too.
 */
export function blockedResources(own: readonly ExportedResource[], others: ReadonlyMap<string, AgentOutcome>, agentOf: ReadonlyMap<string, string>): Map<string, string> {
  const blocked = new Map<string, string>();
  for (const r of own) {
    for (const dep of r.requires) {
      const agent = agentOf.get(dep);
      const outcome = agent !== undefined && agent !== r.agent ? others.get(agent) : undefined;
      if (!outcome) continue;
      if ('reason' in outcome) blocked.set(r.id, `it requires ${dep}, and agent ${agent} was not deployed: ${outcome.reason}`);
      else {
        const result = outcome.results.get(dep);
        if (result && result.result === false) blocked.set(r.id, `it requires ${dep}, which ${result.status === 'failed' ? 'failed' : 'was skipped'} on agent ${agent}`);
      }
      if (blocked.has(r.id)) break;
    }
  }
  // What requires a blocked resource on the same agent cannot run either.
  for (let grew = true; grew; ) {
    grew = false;
    for (const r of own) {
      if (blocked.has(r.id)) continue;
      const dep = r.requires.find((d) => blocked.has(d));
      if (dep !== undefined) {
        blocked.set(r.id, `it requires ${dep}, which was skipped`);
        grew = true;
      }
    }
  }
  return blocked;
}

/** The result of a resource skipped because of a requirement on another agent (a failed requisite, as the scheduler words it). */
export function skippedResult(r: ExportedResource, type: string, why: string, runNum: number, at: number): NodeResult {
  const base = stepResult({ id: r.id, name: r.id, type, status: 'skipped', changes: {}, comment: `Skipped: ${why}`, started: at, ended: at, run_num: runNum, span: r.instance.span });
  return { ...base, result: false };
}
