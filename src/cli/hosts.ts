/** `cairn hosts [PATTERN]` lists what a pattern selects; `cairn ping [PATTERN]` connects and reads facts. */
import type { Command } from 'commander';
import type { HostOutcome } from '../engine/fanout.js';
import type { HostFacts } from '../host/types.js';
import { addFleetOptions, fanoutOptions, type FleetOptions, fleetSecurity, selectFromInventory, sshConfigFile } from './inventory.js';
import { outOption, stateDirOption } from './options.js';
import { writeOut } from '../engine/stdio.js';

type Opts = FleetOptions & { out: 'text' | 'json'; stateDir?: string };

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ')).join('\n');
}

async function listHosts(pattern: string | undefined, opts: Opts): Promise<number> {
  const chosen = await selectFromInventory({ ...opts, hosts: pattern ?? opts.hosts ?? opts.limit ?? 'all', limit: undefined });
  // As the hosts will be connected: with what OpenSSH's client config gives where the inventory is silent.
  const { loadSshConfig, withSshConfig } = await import('../host/ssh-config.js');
  const config = loadSshConfig(sshConfigFile(opts));
  const selected = chosen.selected.map((h) => withSshConfig(h, config));
  if (opts.out === 'json') {
    const rows = selected.map(({ span: _span, unset: _unset, ...h }) => h);
    writeOut(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  const rows = [['HOST', 'ADDRESS', 'USER', 'BECOME', 'VIA', 'GROUPS']];
  for (const h of selected) {
    const address = h.connection === 'local' ? 'local' : `${h.address}:${h.port}`;
    rows.push([h.name, address, h.user, h.become ? 'sudo' : '-', h.jump ?? '-', h.groups.join(',') || '-']);
  }
  writeOut(`${table(rows)}\n${selected.length} host${selected.length === 1 ? '' : 's'}\n`);
  return 0;
}

function factsLine(f: HostFacts): string {
  const release = f.osRelease.PRETTY_NAME ?? f.osFamily;
  const gib = (f.memoryBytes / 1024 ** 3).toFixed(1);
  return `${f.hostname} ${release}, ${f.os} ${f.kernel} ${f.arch}, ${f.cpuCount} cpu, ${gib} GiB${f.ipAddresses.length ? `, ${f.ipAddresses.join(' ')}` : ''}`;
}

async function ping(pattern: string | undefined, opts: Opts): Promise<number> {
  const { inventory, selected } = await selectFromInventory({ ...opts, hosts: pattern ?? opts.hosts ?? opts.limit ?? 'all', limit: undefined });
  // ssh2 and the store load only for commands that use them (start-up time of every other command).
  const [{ hostsFor }, { fleetExitCode, runOnHosts, totalsLine }, { defaultStateDir, ensureStateDir }] = await Promise.all([
    import('../host/fleet.js'),
    import('../engine/fanout.js'),
    import('../store/index.js'),
  ]);
  const stateDir = ensureStateDir(opts.stateDir ?? defaultStateDir());
  const hosts = hostsFor(selected, inventory, fleetSecurity(opts, stateDir));
  const outcomes: HostOutcome<HostFacts>[] = await runOnHosts(
    hosts,
    fanoutOptions(opts),
    (h) => h.facts(),
  );
  const totals = { hosts: outcomes.length, changed: 0, ok: 0, failed: 0, unreachable: 0 };
  for (const o of outcomes) totals[o.status === 'done' ? 'ok' : o.status] += 1;
  if (opts.out === 'json') {
    const out: Record<string, unknown> = {};
    for (const o of outcomes) out[o.host] = o.status === 'done' ? { status: 'ok', facts: o.value } : { status: o.status, reason: o.reason };
    writeOut(`${JSON.stringify({ totals, hosts: out }, null, 2)}\n`);
  } else {
    const lines = outcomes.map((o) => (o.status === 'done' ? `${o.host}: ok: ${factsLine(o.value)}` : `${o.host}: ${o.status}: ${o.reason}`));
    writeOut(`${lines.join('\n')}\n${totalsLine(totals)}\n`);
  }
  return fleetExitCode(totals, false);
}

export function register(program: Command, finish: (code: number) => void): void {
  addFleetOptions(program.command('hosts').argument('[pattern]', 'host pattern (default: all)'), { limitAlias: false })
    .description('list the inventory hosts a pattern selects')
    .addOption(outOption())
    .action(async (pattern: string | undefined, opts: Opts) => finish(await listHosts(pattern, opts)));
  addFleetOptions(program.command('ping').argument('[pattern]', 'host pattern (default: all)'), { limitAlias: false })
    .description('connect to the hosts a pattern selects and read their facts')
    .addOption(outOption())
    .addOption(stateDirOption())
    .action(async (pattern: string | undefined, opts: Opts) => finish(await ping(pattern, opts)));
}
