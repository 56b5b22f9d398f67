/**
 * The fleet wiring every front end that acts on many machines shares: connect the chosen inventory hosts
 * (host keys, become, timeouts), fan the work out through the engine (forks, unreachable hosts apart),
 * record one run whose results carry their host, print, and give the fleet's exit code. What runs on each
 * host, how a host's outcome is classed and how it is printed are the front end's (`runFleet`); a program
 * that runs once per host and prints each host in its own format (graph file, Converge, Zapusk) takes the
 * defaults through `runOnFleet`.
 */
import type { NodeResult, RunMode } from '../core/model.js';
import type { RunReport } from '../core/runtime.js';
import { fleetExitCode, type FleetTotals, type HostOutcome, runOnHosts } from '../engine/fanout.js';
import type { RunOptions } from '../engine/run-options.js';
import { withRunStore } from '../engine/session.js';
import { hostsFor } from '../host/fleet.js';
import type { Inventory, InventoryHost } from '../host/inventory.js';
import { LocalHost } from '../host/local.js';
import type { Host } from '../host/types.js';
import { defaultStateDir, ensureStateDir } from '../store/index.js';
import { classify, fleetJson, type HostClass, type HostRun, hostProgress, printFleetText, totalsOf } from './hosts-report.js';
import { fanoutOptions, type FleetOptions, fleetSecurity, hostPattern, selectFromInventory } from './inventory.js';
import { writeOut } from '../engine/stdio.js';

export type { HostRun };

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

export interface FleetWork<T> {
  readonly mode: RunMode;
  readonly frontEnd: string;
  readonly source: readonly string[];
  /** The command line to record (default: this process's). */
  readonly command?: string;
  /** The work on one connected host. */
  run(target: Host, pool: HostPool): Promise<T>;
  classify(outcome: HostOutcome<T>): HostClass;
  /** The results of one host's work as recorded: each with the host it acted on. */
  results(value: T, host: string): NodeResult[];
  /** Told as each host's work ends, or as the host turns out unreachable. */
  onDone?(outcome: HostOutcome<T>): void;
  /** Values the printed output may show but the run store must not keep (see RecordedOutcome.unstored). */
  unstored?(): readonly string[];
  /** `hosts` are the connected hosts, in the order of `outcomes` (what reaching each cost, where they count it). */
  print(outcomes: readonly HostOutcome<T>[], totals: FleetTotals, runId: number, hosts: readonly Host[]): void;
}

/**
 * Hosts of the inventory beyond the one a host's work runs on (an OtterScript `for server`): each made
 * once, connected on first use, closed when the run ends.
 */
export class HostPool {
  private readonly made = new Map<string, Host>();

  constructor(
    readonly inventory: Inventory,
    private readonly make: (h: InventoryHost) => Host,
  ) {}

  get(name: string): Host | undefined {
    const entry = this.inventory.hosts.find((h) => h.name === name);
    if (!entry) return undefined;
    let host = this.made.get(entry.name);
    if (!host) {
      host = this.make(entry);
      this.made.set(entry.name, host);
    }
    return host;
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.made.values()].map((h) => h.close().catch(() => {})));
  }
}

/** A graph run's results on one host, each marked with that host (what the run store records). */
export function reportResults(report: RunReport, host: string): NodeResult[] {
  return report.results.map((r) => ({ ...r, host }));
}

/** Runs `work` on the selected inventory hosts as one recorded run; returns the fleet's exit code. */
export async function runFleet<T>(
  opts: RunOptions & FleetOptions,
  inventory: Inventory,
  selected: readonly InventoryHost[],
  work: FleetWork<T>,
): Promise<number> {
  const stateDir = ensureStateDir(opts.stateDir ?? defaultStateDir());
  const security = fleetSecurity(opts, stateDir);
  const hosts = hostsFor(selected, inventory, security);
  const pool = new HostPool(inventory, (h) => hostsFor([h], inventory, security)[0] as Host);
  const meta = { mode: work.mode, frontEnd: work.frontEnd, source: work.source, ...(work.command !== undefined ? { command: work.command } : {}) };
  return withRunStore({ ...opts, stateDir }, meta, async () => {
    let outcomes: HostOutcome<T>[];
    try {
      const progress = hostProgress(undefined, work.classify);
      const onDone = (o: HostOutcome<unknown>): void => {
        work.onDone?.(o as HostOutcome<T>);
        progress?.(o as HostOutcome<T>);
      };
      outcomes = await runOnHosts(hosts, { ...fanoutOptions(opts), onDone }, (target) => work.run(target, pool));
    } finally {
      await pool.closeAll();
    }
    const totals = totalsOf(outcomes, work.classify);
    return {
      results: outcomes.flatMap((o) => (o.status === 'done' ? work.results(o.value, o.host) : [])),
      exitCode: fleetExitCode(totals, opts.detailedExitcode),
      ...(work.unstored ? { unstored: work.unstored() } : {}),
      print: (runId) => work.print(outcomes, totals, runId, hosts),
    };
  });
}

export interface FleetRunMeta {
  readonly mode: RunMode;
  readonly frontEnd: string;
  /** What the run was made from (files, a program folder); the host pattern is added. */
  readonly source: readonly string[];
  /** Extra keys of the JSON output (e.g. `source`). */
  readonly json?: Record<string, unknown>;
}

export type Selection = Awaited<ReturnType<typeof selectFromInventory>>;

export type FleetRunOptions = RunOptions & FleetOptions & { out: string; changesOnly?: boolean };

/**
 * Runs a program once per selected host and prints each host's results (or the system's own text for the
 * host) with the unreachable hosts apart and a totals line. `selection` is the inventory and its selected
 * hosts when the caller read them already (to report a bad pattern first).
 */
export async function runOnFleet(opts: FleetRunOptions, meta: FleetRunMeta, work: (host: Host) => Promise<HostRun>, selection?: Selection): Promise<number> {
  const { inventory, selected } = selection ?? (await selectFromInventory(opts));
  return runFleet<HostRun>(opts, inventory, selected, {
    mode: meta.mode,
    frontEnd: meta.frontEnd,
    source: [...meta.source, `--hosts ${hostPattern(opts)}`],
    run: (target) => work(target),
    classify,
    results: reportResults,
    print(outcomes, _totals, runId, hosts) {
      const transport = new Map(hosts.filter((h) => 'stats' in h).map((h) => [h.name, (h as unknown as { stats: unknown }).stats]));
      if (opts.out === 'json') writeOut(`${JSON.stringify(fleetJson(outcomes, meta.mode, runId, meta.json ?? {}, transport), null, 2)}\n`);
      else printFleetText(outcomes, meta.mode, runId, opts.changesOnly === true);
    },
  });
}
