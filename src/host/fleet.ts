/** Hosts for inventory entries: an SSH host per machine (a jump host resolved by name), or the local one. */
import { userHome } from '../core/home.js';
import { join } from 'node:path';
import type { Inventory, InventoryHost } from './inventory.js';
import { KnownHosts } from './known-hosts.js';
import { loadSshConfig, type SshConfig, withSshConfig } from './ssh-config.js';
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
  /** OpenSSH's client config file, for what the inventory leaves unset (default ~/.ssh/config; none: not read). */
  readonly sshConfig?: string | null;
}

/** OpenSSH's own files, read only. */
export function openSshKnownHostsFiles(): string[] {
  return [join(userHome(), '.ssh', 'known_hosts'), join(userHome(), '.ssh', 'known_hosts2'), '/etc/ssh/ssh_known_hosts'];
}

/** A jump host cairn cannot go through: the user's to fix (reported without a stack). */
class JumpError extends Error {
  readonly isUserError = true;
}

function jumpEndpoint(jump: string, inventory: Inventory, from: InventoryHost, config: SshConfig): SshEndpoint {
  const known = inventory.hosts.find((h) => h.name === jump);
  if (known) {
    const k = withSshConfig(known, config);
    return { name: k.name, address: k.address, port: k.port, user: k.user, keyFile: k.key };
  }
  if (jump.includes(',')) throw new JumpError(`${from.name}: jump ${JSON.stringify(jump)} names several jump hosts; cairn goes through one`);
  const m = /^(?:ssh:\/\/)?(?:([^@]+)@)?(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(jump);
  if (!m) throw new JumpError(`${from.name}: jump ${JSON.stringify(jump)} is neither an inventory host nor user@host[:port]`);
  const name = (m[2] ?? '').replace(/^\[|\]$/g, '');
  // A jump host named as in ssh's ProxyJump: its HostName, User, Port and IdentityFile come from the config too.
  const c = config.lookup(name);
  return { name: jump, address: c.hostName ?? name, port: m[3] ? Number(m[3]) : (c.port ?? 22), user: m[1] ?? c.user ?? from.user, keyFile: c.identityFile ?? from.key };
}

export function hostsFor(selected: readonly InventoryHost[], inventory: Inventory, security: FleetSecurity): Host[] {
  const knownHosts = new KnownHosts(openSshKnownHostsFiles(), security.managedKnownHosts);
  const ssh = { knownHosts, acceptNewHostKeys: security.acceptNewHostKeys, connectTimeoutMs: security.connectTimeoutMs };
  const config = loadSshConfig(security.sshConfig);
  return selected.map((given) => {
    const h = withSshConfig(given, config);
    if (h.connection === 'local') return new LocalHost(h.name);
    return new SshHost(
      {
        name: h.name,
        address: h.address,
        port: h.port,
        user: h.user,
        keyFile: h.key,
        become: h.become || security.become === true,
        jump: h.jump !== undefined ? jumpEndpoint(h.jump, inventory, h, config) : undefined,
      },
      ssh,
    );
  });
}
