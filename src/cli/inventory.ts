/** The fleet options every run command can take, and reading the inventory they name. */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { join } from 'node:path';
import type { FanoutOptions } from '../engine/fanout.js';
import type { FleetSecurity } from '../host/fleet.js';
import type { Inventory, InventoryHost } from '../host/inventory.js';
import { UserError } from '../engine/errors.js';
import { positiveInt, seconds } from './options.js';

export interface FleetOptions {
  inventory?: string;
  hosts?: string;
  limit?: string;
  forks: number;
  acceptNewHostKeys: boolean;
  become: boolean;
  connectTimeout: number;
  commandTimeout?: number;
  /** OpenSSH client config file, or `none`. */
  sshConfig?: string;
}

export const DEFAULT_INVENTORY = 'inventory.yaml';
export const DEFAULT_FORKS = 20;

/** --inventory, --hosts (alias --limit), --forks, --accept-new-host-keys, --connect-timeout, --command-timeout. */
export function addFleetOptions(cmd: Command, settings: { limitAlias?: boolean } = {}): Command {
  cmd
    .option('--inventory <file>', `inventory of machines (YAML, or a Salt roster; default ./${DEFAULT_INVENTORY} when present)`)
    .option('--hosts <pattern>', 'act on these inventory hosts over SSH: names, globs, groups, a,b, !excluded, &also (exit 4 when a host was unreachable)');
  if (settings.limitAlias !== false) cmd.addOption(new Option('--limit <pattern>', 'the same as --hosts').hideHelp());
  return cmd
    .option('--forks <n>', 'hosts worked on at once', positiveInt, DEFAULT_FORKS)
    .option('--become', 'act as root on every selected host through sudo -n (as if each had become: true)', false)
    .option('--accept-new-host-keys', 'record the host key of a machine never seen before (a changed key is always refused)', false)
    .option('--connect-timeout <seconds>', 'seconds to connect to a host before it counts as unreachable', seconds, 10)
    .option('--command-timeout <seconds>', 'seconds the work on one host may take before that host is reported failed', seconds)
    .option('--ssh-config <file>', "OpenSSH client config giving HostName, User, Port, IdentityFile and ProxyJump where the inventory gives none (default ~/.ssh/config; 'none' reads none)");
}

/** Whether the command was asked to act on inventory hosts rather than on this machine. */
export function wantsFleet(opts: Partial<FleetOptions>): boolean {
  return opts.hosts !== undefined || opts.limit !== undefined || opts.inventory !== undefined;
}

export function hostPattern(opts: Partial<FleetOptions>): string {
  if (opts.hosts !== undefined && opts.limit !== undefined && opts.hosts !== opts.limit) throw new UserError('give --hosts or --limit, not both');
  return opts.hosts ?? opts.limit ?? 'all';
}

export async function loadInventory(file: string | undefined): Promise<Inventory> {
  const path = file ?? DEFAULT_INVENTORY;
  if (file === undefined && !existsSync(path)) throw new UserError(`no inventory: give --inventory FILE, or put one at ./${DEFAULT_INVENTORY}`);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UserError(`cannot read inventory ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (e as Error).message}`);
  }
  const { parseInventory } = await import('../host/inventory.js');
  return parseInventory(path === resolve(path) ? path : path, text);
}

export async function selectFromInventory(opts: Partial<FleetOptions>): Promise<{ inventory: Inventory; selected: InventoryHost[] }> {
  const inventory = await loadInventory(opts.inventory);
  const { selectHosts } = await import('../host/targeting.js');
  const selected = selectHosts(inventory, hostPattern(opts));
  if (selected.length === 0) throw new UserError(`the pattern ${JSON.stringify(hostPattern(opts))} selects no host in ${inventory.file}`);
  return { inventory, selected };
}

/** --ssh-config: a file, null for `none`, undefined for the default (~/.ssh/config). */
export function sshConfigFile(opts: Partial<FleetOptions>): string | null | undefined {
  return opts.sshConfig === undefined ? undefined : opts.sshConfig === 'none' ? null : resolve(opts.sshConfig);
}

/** How every fleet command connects: host keys (OpenSSH's files and the store's own), become, timeout. */
export function fleetSecurity(opts: FleetOptions, stateDir: string): FleetSecurity {
  const sshConfig = sshConfigFile(opts);
  return { acceptNewHostKeys: opts.acceptNewHostKeys, become: opts.become, managedKnownHosts: join(stateDir, 'known_hosts'), connectTimeoutMs: opts.connectTimeout * 1000, ...(sshConfig !== undefined ? { sshConfig } : {}) };
}

/** The fan-out limits every fleet command takes from its options. */
export function fanoutOptions(opts: FleetOptions): FanoutOptions {
  return { forks: opts.forks, connectTimeoutMs: opts.connectTimeout * 1000, commandTimeoutMs: opts.commandTimeout !== undefined ? opts.commandTimeout * 1000 : undefined };
}
