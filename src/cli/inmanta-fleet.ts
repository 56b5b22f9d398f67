/**
 * `cairn inmanta deploy PROJECT --inventory F [--hosts P]`: each resource goes to the machine named by its
 * `std::Host` (its agent), which must be an inventory host; the resources of each agent are deployed (or
 * dry-run) on that host over SSH, agents side by side. One recorded run holds every host's results.
 */
import { DiagnosticError, error } from '../core/diag.js';
import type { RunMode } from '../core/model.js';
import { runGraph } from '../core/runtime.js';
import { checkCompiled } from '../engine/pipeline.js';
import { UserError } from '../engine/errors.js';
import { type ExportedResource, toGraph } from '../frontends/inmanta/exporter.js';
import type { InventoryHost } from '../host/inventory.js';
import { selectHosts } from '../host/targeting.js';
import { kinds } from '../resources/index.js';
import { jobsFor } from './hosts-graph.js';
import { classify, fleetJson, printFleetText } from './hosts-report.js';
import type { InmantaOptions } from './inmanta-command.js';
import { hostPattern, loadInventory } from './inventory.js';
import { reportResults, runFleet } from './otter-inmanta-fleet.js';

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
  const graphs = new Map(
    selected.map((h) => {
      const graph = toGraph(agents.get(h.name) ?? []);
      return [h.name, { graph, index: checkCompiled(graph) }] as const;
    }),
  );
  const mode: RunMode = opts.dryRun ? 'check' : 'apply';
  return runFleet(opts, inventory, selected, {
    mode,
    frontEnd: 'inmanta',
    source: [mainFile],
    async run(target) {
      const { graph, index } = graphs.get(target.name) as (typeof graphs extends Map<string, infer V> ? V : never);
      return runGraph(graph, index, { mode, jobs: jobsFor(target, opts.jobs), kinds, ctx: { host: target, baseDir: projectDir } });
    },
    classify,
    results: reportResults,
    print(outcomes, _totals, runId) {
      if (opts.out === 'json') process.stdout.write(`${JSON.stringify(fleetJson(outcomes, mode, runId, { project: projectDir }), null, 2)}\n`);
      else printFleetText(outcomes, mode, runId);
    },
  });
}
