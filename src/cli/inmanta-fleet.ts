/**
 * `cairn inmanta deploy PROJECT --inventory F [--hosts P]`: each resource goes to the machine named by its
 * `std::Host` (its agent), which must be an inventory host; the resources of each agent are deployed (or
 * dry-run) on that host over SSH, agents side by side except where one requires resources of another
 * (inmanta-agents.ts). One recorded run holds every host's results.
 */
import { DiagnosticError, error } from '../core/diag.js';
import type { RunMode } from '../core/model.js';
import { countResults, runGraph } from '../core/runtime.js';
import { checkCompiled } from '../engine/pipeline.js';
import { UserError } from '../engine/errors.js';
import { type ExportedResource, toGraph } from '../frontends/inmanta/exporter.js';
import type { InventoryHost } from '../host/inventory.js';
import { selectHosts } from '../host/targeting.js';
import { kinds } from '../resources/index.js';
import { classify, fleetJson, printFleetText } from './hosts-report.js';
import type { InmantaOptions } from './inmanta-command.js';
import { hostPattern, loadInventory } from './inventory.js';
import { type AgentOutcome, blockedResources, planAgents, skippedResult } from './inmanta-agents.js';
import { jobsOn, reportResults, runFleet } from './fleet-run.js';
import { writeOut } from '../engine/stdio.js';

interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
}

function deferred<T>(): Deferred<T> {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** The resources of each agent, agents in name order. */
function byAgent(resources: readonly ExportedResource[]): Map<string, ExportedResource[]> {
  const out = new Map<string, ExportedResource[]>();
  for (const r of [...resources].sort((a, b) => (a.agent < b.agent ? -1 : a.agent > b.agent ? 1 : 0))) {
    const list = out.get(r.agent) ?? [];
    list.push(r);
    out.set(r.agent, list);
  }
  return out;
}

export async function deployOnHosts(resources: readonly ExportedResource[], projectDir: string, mainFile: string, opts: InmantaOptions): Promise<number> {
  const inventory = await loadInventory(opts.inventory);
  const agents = byAgent(resources);
  const known = new Set(inventory.hosts.map((h) => h.name));
  const unknown = [...agents].filter(([agent]) => !known.has(agent));
  if (unknown.length > 0) {
    const names = inventory.hosts.map((h) => h.name).join(', ');
    throw new DiagnosticError(
      unknown.map(([agent, list]) => error('INV009', `std::Host ${JSON.stringify(agent)} is not a host of the inventory ${inventory.file} (it has ${names})`, { span: list[0]?.agentSpan })),
    );
  }
  // --hosts narrows the agents deployed; without it every agent of the model is.
  const wanted = opts.hosts !== undefined || opts.limit !== undefined ? new Set(selectHosts(inventory, hostPattern(opts)).map((h) => h.name)) : undefined;
  const selected: InventoryHost[] = inventory.hosts.filter((h) => agents.has(h.name) && (wanted === undefined || wanted.has(h.name)));
  if (selected.length === 0) throw new UserError(`no agent of the model is selected by ${JSON.stringify(hostPattern(opts))} (the model's agents: ${[...agents.keys()].join(', ')})`);
  // Each agent's resources form their own graph, checked before any host is contacted.
  for (const h of selected) checkCompiled(toGraph(agents.get(h.name) ?? []));
  const mode: RunMode = opts.dryRun ? 'check' : 'apply';
  const plan = planAgents(selected, resources);
  const agentOf = new Map(resources.map((r) => [r.id, r.agent]));
  const finished = new Map(plan.order.map((h) => [h.name, deferred<AgentOutcome>()]));
  return runFleet(opts, inventory, plan.order, {
    mode,
    frontEnd: 'inmanta',
    source: [mainFile],
    async run(target) {
      const own = agents.get(target.name) ?? [];
      // Agents whose resources this one requires finish first; what failed there is skipped here.
      const others = new Map<string, AgentOutcome>();
      for (const agent of plan.waitsFor.get(target.name) ?? []) others.set(agent, await (finished.get(agent) as Deferred<AgentOutcome>).promise);
      const blocked = blockedResources(own, others, agentOf);
      const graph = toGraph(own.filter((r) => !blocked.has(r.id)));
      const report = await runGraph(graph, checkCompiled(graph), { mode, jobs: jobsOn(target, opts.jobs), kinds, ctx: { host: target, baseDir: projectDir } });
      if (blocked.size === 0) return report;
      const types = new Map(toGraph(own).nodes.map((n) => [n.id, n.type]));
      const now = Date.now();
      const skipped = own.filter((r) => blocked.has(r.id) && types.has(r.id)).map((r, i) => skippedResult(r, types.get(r.id) as string, blocked.get(r.id) as string, report.results.length + i, now));
      const results = [...report.results, ...skipped];
      return { ...report, results, counts: countResults(results) };
    },
    onDone(o) {
      finished.get(o.host)?.resolve(o.status === 'done' ? { results: new Map(o.value.results.map((r) => [r.id, r])) } : { reason: o.reason });
    },
    classify,
    results: reportResults,
    print(outcomes, _totals, runId) {
      if (opts.out === 'json') writeOut(`${JSON.stringify(fleetJson(outcomes, mode, runId, { project: projectDir }), null, 2)}\n`);
      else printFleetText(outcomes, mode, runId);
    },
  });
}
