/**
 * `cairn plan|apply|collect GRAPH --hosts PATTERN`: the graph runs once per selected host, acting on that
 * host over SSH; source files are read here, on the controller. One recorded run holds every host's
 * results, each marked with its host.
 */
import { dirname, resolve } from 'node:path';
import { DiagnosticError } from '../core/diag.js';
import type { RunMode } from '../core/model.js';
import { preflightGraph, type RunReport, runGraph } from '../core/runtime.js';
import { LocalHost } from '../host/local.js';
import { SimulatedHost } from '../host/simulated.js';
import type { Host, ResourceContext } from '../host/types.js';
import { kinds } from '../resources/index.js';
import { classify, fleetJson, printFleetText } from './hosts-report.js';
import { type FleetOptions, hostPattern, selectFromInventory } from './inventory.js';
import { reportResults, runFleet } from './otter-inmanta-fleet.js';
import type { RunOptions } from '../engine/run-options.js';
import { loadGraph } from './run-graph.js';

/**
 * Remote hosts wait on the network, not on this machine's CPU: at least this many resources act at once on
 * each, so their requests share round trips (a no-op costs the same few round trips for 10 or 1,000
 * resources). Commands are still bounded by the SSH host's own limit on exec channels.
 */
const REMOTE_JOBS_FLOOR = 4096;

/** Resources acting at once on a host: `--jobs` on this machine, at least REMOTE_JOBS_FLOOR on a remote one. */
export function jobsFor(target: Host, jobs: number): number {
  return target instanceof LocalHost ? jobs : Math.max(jobs, REMOTE_JOBS_FLOOR);
}

export async function runGraphOnHosts(file: string, mode: RunMode, opts: RunOptions & FleetOptions & { out: 'text' | 'json' }): Promise<number> {
  const { graph, index } = await loadGraph(file);
  const { inventory, selected } = await selectFromInventory(opts);
  const baseDir = dirname(resolve(file));
  const sources = new LocalHost();
  // Problems with the configuration itself (a missing source file) stop the run before any host is touched.
  const here: ResourceContext = { host: sources, sources, baseDir };
  const sourceProblems = (await preflightGraph(graph, kinds, here)).filter((d) => d.code === 'R002');
  if (sourceProblems.length > 0) throw new DiagnosticError((await preflightGraph((await loadGraph(file, { withSpans: true })).graph, kinds, here)).filter((d) => d.code === 'R002'));
  return runFleet(opts, inventory, selected, {
    mode,
    frontEnd: 'graph',
    source: [file, `--hosts ${hostPattern(opts)}`],
    async run(target: Host): Promise<RunReport> {
      const host = mode === 'simulate' ? new SimulatedHost(target) : target;
      const ctx: ResourceContext = { host, sources, baseDir };
      return runGraph(graph, index, { mode, jobs: jobsFor(target, opts.jobs), kinds, ctx });
    },
    classify,
    results: reportResults,
    print(outcomes, _totals, runId, hosts) {
      const transport = new Map(hosts.filter((h) => 'stats' in h).map((h) => [h.name, (h as unknown as { stats: unknown }).stats]));
      if (opts.out === 'json') process.stdout.write(`${JSON.stringify(fleetJson(outcomes, mode, runId, { source: file }, transport), null, 2)}\n`);
      else printFleetText(outcomes, mode, runId);
    },
  });
}
