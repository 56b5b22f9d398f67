/** Hosts for inventory entries: an SSH host per machine (a jump host resolved by name), or the local one. */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Inventory, InventoryHost } from './inventory.js';
import { KnownHosts } from './known-hosts.js';
import { LocalHost } from './local.js';
import { SshHost } from './ssh.js';
import type { SshEndpoint } from './ssh-connect.js';
import type { Host } from './types.js';

export interface FleetSecurity {
  readonly acceptNewHostKeys: boolean;
  /** Where keys accepted with --accept-new-host-keys are kept (the run store's directory). */
  readonly managedKnownHosts: string;
  readonly connectTimeoutMs: number;
  /** `become` for every host of the run, whatever the inventory says. */
  readonly become?: boolean;
}

/** OpenSSH's own files, read only. */
export function openSshKnownHostsFiles(): string[] {
  return [join(homedir(), '.ssh', 'known_hosts'), join(homedir(), '.ssh', 'known_hosts2'), '/etc/ssh/ssh_known_hosts'];
}

function jumpEndpoint(jump: string, inventory: Inventory, from: InventoryHost): SshEndpoint {
  const known = inventory.hosts.find((h) => h.name === jump);
  if (known) return { name: known.name, address: known.address, port: known.port, user: known.user, keyFile: known.key };
  const m = /^(?:([^@]+)@)?(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(jump);
  if (!m) throw new Error(`${from.name}: jump ${JSON.stringify(jump)} is neither an inventory host nor user@host[:port]`);
  return { name: jump, address: (m[2] ?? '').replace(/^\[|\]$/g, ''), port: m[3] ? Number(m[3]) : 22, user: m[1] ?? from.user, keyFile: from.key };
}

export function hostsFor(selected: readonly InventoryHost[], inventory: Inventory, security: FleetSecurity): Host[] {
  const knownHosts = new KnownHosts(openSshKnownHostsFiles(), security.managedKnownHosts);
  const ssh = { knownHosts, acceptNewHostKeys: security.acceptNewHostKeys, connectTimeoutMs: security.connectTimeoutMs };
  return selected.map((h) => {
    if (h.connection === 'local') return new LocalHost(h.name);
    return new SshHost(
      {
        name: h.name,
        address: h.address,
        port: h.port,
        user: h.user,
        keyFile: h.key,
        become: h.become || security.become === true,
        jump: h.jump !== undefined ? jumpEndpoint(h.jump, inventory, h) : undefined,
      },
      ssh,
    );
  });
}
