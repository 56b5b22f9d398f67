/**
 * `cairn otter run SCRIPT --hosts PATTERN`: inventory hosts are Otter servers and their inventory groups
 * are their roles. The script runs as one execution per selected server (as an Otter configuration job
 * runs it for each of its servers), acting on that server over SSH; `for server NAME` switches to another
 * inventory server, `for role R` runs only on the servers with that role. Rafts are read here, on the
 * controller. Each server's log is printed in Otter's format under its name; one recorded run holds
 * every server's results.
 */
import { posix, resolve } from 'node:path';
import { recordedCommandLine } from '../core/command-line.js';
import type { NodeResult } from '../core/model.js';
import { type FleetTotals, type HostOutcome, totalsLine } from '../engine/fanout.js';
import { colors } from '../engine/color.js';
import type { OtterRunResult, ServerContext, ServerDirectory } from '../frontends/otter/index.js';
import { runOtter } from '../frontends/otter/index.js';
import type { Inventory } from '../host/inventory.js';
import { LocalHost } from '../host/local.js';
import { SimulatedHost } from '../host/simulated.js';
import type { Host } from '../host/types.js';
import { defaultStateDir } from '../store/index.js';
import type { HostClass } from './hosts-report.js';
import { type FleetOptions, selectFromInventory } from './inventory.js';
import type { OtterOptions } from './otter-command.js';
import { otterRunOptions, prepareScript } from './otter-prepare.js';
import { type HostPool, runFleet } from './fleet-run.js';
import { jsonOf, textLines } from './otter-output.js';
import { writeOut } from '../engine/stdio.js';

function classify(o: HostOutcome<OtterRunResult>): HostClass {
  if (o.status !== 'done') return o.status;
  if (o.value.status === 'error') return 'failed';
  return o.value.drift.length > 0 || o.value.changed ? 'changed' : 'ok';
}

/**
 * The inventory as Otter's servers: names in inventory order, roles from groups. A server other than
 * the execution's own is connected on first use (from the run's pool) and, in a simulation, only simulated.
 */
function directory(inventory: Inventory, pool: HostPool, simulation: boolean): ServerDirectory {
  const find = (name: string) => inventory.hosts.find((h) => h.name.toLowerCase() === name.toLowerCase());
  const made = new Map<string, ServerContext>();
  return {
    names: inventory.hosts.map((h) => h.name),
    rolesOf: (name) => find(name)?.groups ?? [],
    server(name) {
      const entry = find(name);
      if (!entry) return undefined;
      let server = made.get(entry.name);
      if (!server) {
        const host = pool.get(entry.name) as Host;
        server = { name: entry.name, host: simulation ? new SimulatedHost(host) : host, roles: entry.groups };
        made.set(entry.name, server);
      }
      return server;
    },
  };
}

/** The working directory on a server: --root (a relative one under the login's home), else that home. */
async function rootOn(host: Host, root: string | undefined): Promise<string> {
  if (root !== undefined && posix.isAbsolute(root)) return root;
  const home = (await host.facts()).env.HOME ?? '/';
  return root === undefined ? home : posix.resolve(home, root);
}

function print(outcomes: readonly HostOutcome<OtterRunResult>[], totals: FleetTotals, runId: number, opts: OtterOptions, warnings: readonly string[]): void {
  if (opts.out === 'json') {
    const hosts: Record<string, unknown> = {};
    for (const o of outcomes) {
      const base = { status: classify(o), duration_ms: o.durationMs };
      if (o.status !== 'done') hosts[o.host] = { ...base, reason: o.reason };
      else {
        // Otter's own status (Normal, Warning, Error) is the execution's; `status` is the host's class.
        const { status, ...execution } = jsonOf(o.value, opts, []);
        hosts[o.host] = { ...base, execution_status: status, ...execution };
      }
    }
    const mode = opts.simulation ? 'simulate' : opts.mode;
    writeOut(`${JSON.stringify({ run: runId, mode, totals, hosts, ...(warnings.length > 0 ? { warnings } : {}) }, null, 2)}\n`);
    return;
  }
  const c = colors();
  const out: string[] = [];
  for (const o of outcomes) {
    if (o.status === 'unreachable') continue;
    out.push(c.bold(`== ${o.host}`));
    if (o.status === 'failed') out.push(`${c.red('failed')}: ${o.reason}`);
    else out.push(...textLines(o.value, opts, runId));
  }
  const unreachable = outcomes.filter((o) => o.status === 'unreachable');
  if (unreachable.length > 0) {
    out.push(c.bold('unreachable:'));
    for (const o of unreachable) out.push(`  ${o.host}: ${o.status === 'unreachable' ? o.reason : ''}`);
  }
  out.push(`${totalsLine(totals)} (run ${runId})`);
  writeOut(`${out.join('\n')}\n`);
}

export async function runOtterOnHosts(file: string, opts: OtterOptions & FleetOptions): Promise<number> {
  const controller = new LocalHost();
  const prepared = await prepareScript(file, opts, controller);
  const { inventory, selected } = await selectFromInventory(opts);
  const stateDir = opts.stateDir ?? defaultStateDir();
  return runFleet({ ...opts, stateDir }, inventory, selected, {
    mode: prepared.runMode,
    frontEnd: 'otter',
    source: [resolve(file)],
    // The recorded command line never holds a sensitive value.
    command: recordedCommandLine(),
    async run(target, pool) {
      const servers = directory(inventory, pool, opts.simulation);
      const own = inventory.hosts.find((h) => h.name === target.name);
      const host = opts.simulation ? new SimulatedHost(target) : target;
      const root = await rootOn(target, opts.root);
      return runOtter(prepared.script, otterRunOptions(prepared, opts, stateDir, { host, sources: controller, servers, serverName: target.name, roles: own?.groups ?? [], root }));
    },
    classify,
    results: (value, host) => value.results.map((r): NodeResult => ('host' in r && typeof r.host === 'string' ? r : { ...r, host } as NodeResult)),
    print: (outcomes, totals, runId) => print(outcomes, totals, runId, opts, prepared.warnings),
  });
}
