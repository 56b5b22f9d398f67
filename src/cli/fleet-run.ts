/**
 * One program run on many hosts, for every front end that acts on a fleet (graph file, Converge, Zapusk):
 * select the inventory hosts, connect each with the run's security, run the work once per host through the
 * fan-out, record one run whose results carry their host, print each host in the system's own format with
 * the unreachable hosts apart and a totals line, and exit with the fleet's code.
 */
import type { RunMode } from '../core/model.js';
import { fleetExitCode, runOnHosts } from '../engine/fanout.js';
import type { RunOptions } from '../engine/run-options.js';
import { withRunStore } from '../engine/session.js';
import { hostsFor } from '../host/fleet.js';
import { LocalHost } from '../host/local.js';
import type { Host } from '../host/types.js';
import { defaultStateDir, ensureStateDir } from '../store/index.js';
import { fleetJson, fleetResults, type HostRun, hostProgress, printFleetText, totalsOf } from './hosts-report.js';
import { fanoutOptions, type FleetOptions, fleetSecurity, hostPattern, selectFromInventory } from './inventory.js';

export type { HostRun };

export interface FleetRunMeta {
  readonly mode: RunMode;
  readonly frontEnd: string;
  /** What the run was made from (files, a program folder); the host pattern is added. */
  readonly source: readonly string[];
  /** Extra keys of the JSON output (e.g. `source`). */
  readonly json?: Record<string, unknown>;
}

/**
 * Remote hosts wait on the network, not on this machine's CPU: at least this many resources act at once on
 * each, so their requests share round trips (a no-op costs the same few round trips for 10 or 1,000
 * resources). Commands are still bounded by the SSH host's own limit on exec channels.
 */
const REMOTE_JOBS_FLOOR = 4096;

/** The resources that may act at once on a host: --jobs here, at least REMOTE_JOBS_FLOOR on a remote one. */
export function jobsOn(host: Host, jobs: number): number {
  return host instanceof LocalHost ? jobs : Math.max(jobs, REMOTE_JOBS_FLOOR);
}

export type Selection = Awaited<ReturnType<typeof selectFromInventory>>;

export type FleetRunOptions = RunOptions & FleetOptions & { out: string };

/**
 * Runs `work` once per selected host (its own connection each) and records it all as one run. `selection`
 * is the inventory and its selected hosts when the caller read them already (to report a bad pattern first).
 */
export async function runOnFleet(opts: FleetRunOptions, meta: FleetRunMeta, work: (host: Host) => Promise<HostRun>, selection?: Selection): Promise<number> {
  const { inventory, selected } = selection ?? (await selectFromInventory(opts));
  const stateDir = ensureStateDir(opts.stateDir ?? defaultStateDir());
  const hosts = hostsFor(selected, inventory, fleetSecurity(opts, stateDir));
  const recorded = { mode: meta.mode, source: [...meta.source, `--hosts ${hostPattern(opts)}`], frontEnd: meta.frontEnd };
  return withRunStore({ ...opts, stateDir }, recorded, async () => {
    const outcomes = await runOnHosts(hosts, { ...fanoutOptions(opts), onDone: hostProgress() as ((o: unknown) => void) | undefined }, work);
    return {
      results: fleetResults(outcomes),
      exitCode: fleetExitCode(totalsOf(outcomes), opts.detailedExitcode),
      print: (runId) => {
        const transport = new Map(hosts.filter((h) => 'stats' in h).map((h) => [h.name, (h as unknown as { stats: unknown }).stats]));
        if (opts.out === 'json') process.stdout.write(`${JSON.stringify(fleetJson(outcomes, meta.mode, runId, meta.json ?? {}, transport), null, 2)}\n`);
        else printFleetText(outcomes, meta.mode, runId);
      },
    };
  });
}
