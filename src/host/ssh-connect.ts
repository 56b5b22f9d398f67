/**
 * Opening one SSH connection: host-key check against known_hosts, authentication by ssh-agent and key
 * files, one jump host. Errors name the host and say why, never showing key material.
 */
import { readFileSync } from 'node:fs';
import { userHome } from '../core/home.js';
import { join } from 'node:path';
import ssh2, { type Client, type ClientChannel, type ConnectConfig } from 'ssh2';
import { fingerprint, type KnownHosts, keyTypeOf, knownHostsName } from './known-hosts.js';

export interface SshEndpoint {
  /** The inventory name, used in messages. */
  readonly name: string;
  readonly address: string;
  readonly port: number;
  readonly user: string;
  /** A private key file on the controller. */
  readonly keyFile?: string | undefined;
}

export interface SshSecurity {
  readonly knownHosts: KnownHosts;
  /** Accept (and record) a key never seen for a host; a changed key is refused whatever this says. */
  readonly acceptNewHostKeys: boolean;
  /** ssh-agent socket (default $SSH_AUTH_SOCK). */
  readonly agentSocket?: string | undefined;
  readonly connectTimeoutMs: number;
}

/** A connection failure: `reason` is what the user is told (the host cannot be reached, or is refused). */
export class SshConnectError extends Error {
  readonly isSshConnectError = true;
  constructor(
    readonly host: string,
    readonly reason: string,
  ) {
    super(`${host}: ${reason}`);
    this.name = 'SshConnectError';
  }
}

const DEFAULT_IDENTITIES = ['id_ed25519', 'id_ecdsa', 'id_rsa'];

const HOST_KEY_ALGORITHMS: Readonly<Record<string, readonly string[]>> = {
  'ssh-ed25519': ['ssh-ed25519'],
  'ecdsa-sha2-nistp256': ['ecdsa-sha2-nistp256'],
  'ecdsa-sha2-nistp384': ['ecdsa-sha2-nistp384'],
  'ecdsa-sha2-nistp521': ['ecdsa-sha2-nistp521'],
  'ssh-rsa': ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'],
};
const ALL_HOST_KEY_ALGORITHMS = Object.values(HOST_KEY_ALGORITHMS).flat();

type AuthMethod = { type: 'agent'; username: string; agent: string } | { type: 'publickey'; username: string; key: Buffer };

/** Agent first, then the key file given (or OpenSSH's default identities that are not encrypted). */
function authMethods(endpoint: SshEndpoint, security: SshSecurity): AuthMethod[] {
  const methods: AuthMethod[] = [];
  const agent = security.agentSocket ?? process.env.SSH_AUTH_SOCK;
  if (agent) methods.push({ type: 'agent', username: endpoint.user, agent });
  const files = endpoint.keyFile !== undefined ? [endpoint.keyFile] : DEFAULT_IDENTITIES.map((n) => join(userHome(), '.ssh', n));
  for (const file of files) {
    let key: Buffer;
    try {
      key = readFileSync(file);
    } catch (e) {
      if (endpoint.keyFile === undefined) continue;
      throw new SshConnectError(endpoint.name, `cannot read key file ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
    }
    const parsed = ssh2.utils.parseKey(key);
    if (parsed instanceof Error) {
      // Encrypted keys are for the agent: cairn never asks for or stores a passphrase.
      const encrypted = /encrypted|passphrase/i.test(parsed.message);
      if (endpoint.keyFile === undefined) continue;
      if (encrypted && agent) continue;
      throw new SshConnectError(endpoint.name, encrypted ? `key file ${file} is encrypted: load it into ssh-agent (ssh-add ${file})` : `key file ${file} is not a private key cairn can read`);
    }
    methods.push({ type: 'publickey', username: endpoint.user, key });
  }
  if (methods.length === 0) throw new SshConnectError(endpoint.name, 'no way to authenticate: no ssh-agent (SSH_AUTH_SOCK) and no key file (give `key` in the inventory)');
  return methods;
}

/** Server host-key algorithms with the ones known for this host first, so a known key is what we are shown. */
function hostKeyOrder(known: readonly string[]): string[] {
  const first = known.flatMap((t) => HOST_KEY_ALGORITHMS[t] ?? []);
  return [...new Set([...first, ...ALL_HOST_KEY_ALGORITHMS])];
}

function describeConnectError(e: Error & { level?: string; code?: string }, endpoint: SshEndpoint): string {
  const where = `${endpoint.address}:${endpoint.port}`;
  if (e.level === 'client-authentication') return `authentication as ${endpoint.user} failed (tried ssh-agent and key files; the server accepted none)`;
  if (e.code === 'ECONNREFUSED') return `connection refused by ${where}`;
  if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN') return `cannot resolve ${endpoint.address}`;
  if (e.code === 'EHOSTUNREACH' || e.code === 'ENETUNREACH') return `no route to ${where}`;
  if (e.code === 'ECONNRESET') return `connection to ${where} reset`;
  if (/Timed out while waiting for handshake/i.test(e.message)) return `timed out connecting to ${where}`;
  return `cannot connect to ${where}: ${e.message}`;
}

/**
 * Connects and authenticates. `sock` is a stream through a jump host, when there is one. The returned
 * client is ready; its `close` event tells the caller the connection is gone.
 */
export function connectSsh(endpoint: SshEndpoint, security: SshSecurity, sock?: ClientChannel): Promise<Client> {
  const name = knownHostsName(endpoint.address, endpoint.port);
  const methods = authMethods(endpoint, security);
  return new Promise((resolve, reject) => {
    const client = new ssh2.Client();
    let refused: string | undefined;
    let settled = false;
    const timer = setTimeout(() => fail(new SshConnectError(endpoint.name, `timed out connecting to ${endpoint.address}:${endpoint.port}`)), security.connectTimeoutMs);
    const fail = (e: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      client.end();
      client.destroy();
      reject(e);
    };
    client.on('ready', () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(client);
    });
    client.on('error', (e: Error & { level?: string; code?: string }) => {
      fail(new SshConnectError(endpoint.name, refused ?? describeConnectError(e, endpoint)));
    });
    client.on('close', () => fail(new SshConnectError(endpoint.name, refused ?? `connection to ${endpoint.address}:${endpoint.port} closed during the handshake`)));
    const config: ConnectConfig = {
      host: endpoint.address,
      port: endpoint.port,
      username: endpoint.user,
      readyTimeout: security.connectTimeoutMs,
      keepaliveInterval: 15_000,
      keepaliveCountMax: 4,
      authHandler: methods as unknown as ConnectConfig['authHandler'],
      algorithms: { serverHostKey: hostKeyOrder(security.knownHosts.typesFor(name)) as never },
      hostVerifier: (key: Buffer): boolean => {
        const verdict = security.knownHosts.verify(name, key);
        const shown = `${keyTypeOf(key)} ${fingerprint(key)}`;
        if (verdict.status === 'known') return true;
        if (verdict.status === 'revoked') refused = `host key ${shown} of ${name} is revoked (${verdict.entry.file}:${verdict.entry.line}); refusing to connect`;
        else if (verdict.status === 'changed') {
          refused =
            `HOST KEY CHANGED for ${name}: the server now shows ${shown}, but ${verdict.entry.file}:${verdict.entry.line} has another key; ` +
            'refusing to connect (someone may be intercepting the connection, or the host was reinstalled: if so, remove that line and run again)';
        } else if (!security.acceptNewHostKeys) {
          refused = `host key of ${name} is not known (${shown}); check it, then run again with --accept-new-host-keys to record it in ${security.knownHosts.managedFile}`;
        } else {
          security.knownHosts.accept(name, key);
          return true;
        }
        return false;
      },
    };
    if (sock) config.sock = sock;
    client.connect(config);
  });
}

/** A stream to `target` opened through an already connected jump host (OpenSSH's ProxyJump). */
export function forwardThrough(jump: Client, target: SshEndpoint, jumpName: string): Promise<ClientChannel> {
  return new Promise((resolve, reject) => {
    jump.forwardOut('127.0.0.1', 0, target.address, target.port, (err, stream) => {
      if (err) reject(new SshConnectError(target.name, `jump host ${jumpName} cannot reach ${target.address}:${target.port}: ${err.message.replace(/^\(SSH\) /, '')}`));
      else resolve(stream);
    });
  });
}
