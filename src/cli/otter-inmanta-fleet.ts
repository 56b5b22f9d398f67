/**
 * The fleet wiring OtterScript and Inmanta share: connect the chosen inventory hosts (host keys, become,
 * timeouts), fan the work out through the engine (forks, unreachable hosts apart), record one run whose
 * results carry their host, print, and give the fleet's exit code. What runs on each host, how a host's
 * outcome is classed and how it is printed are the front end's.
 */
import type { NodeResult, RunMode } from '../core/model.js';
import type { RunReport } from '../core/runtime.js';
import { fleetExitCode, type FleetTotals, type HostOutcome, runOnHosts } from '../engine/fanout.js';
import type { RunOptions } from '../engine/run-options.js';
import { withRunStore } from '../engine/session.js';
import { hostsFor } from '../host/fleet.js';
import type { Inventory, InventoryHost } from '../host/inventory.js';
import type { Host } from '../host/types.js';
import { defaultStateDir, ensureStateDir } from '../store/index.js';
import { type HostClass, hostProgress, totalsOf } from './hosts-report.js';
import { fanoutOptions, type FleetOptions, fleetSecurity } from './inventory.js';

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
      const progress = hostProgress(process.stderr, work.classify);
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
      print: (runId) => work.print(outcomes, totals, runId, hosts),
    };
  });
}
