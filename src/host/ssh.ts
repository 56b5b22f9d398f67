/**
 * A machine reached over SSH (the ssh2 library; an OpenSSH server on the target, no agent of ours). One
 * connection per host for the whole run; files over one SFTP session whose requests are pipelined (many
 * resources checking at once share round trips instead of taking one each); commands over exec channels
 * (at most a few at a time, under OpenSSH's MaxSessions). With `become`, commands run under `sudo -n` and
 * the SFTP server itself is started through sudo, so file operations act as root.
 */
import type { Client, SFTPWrapper } from 'ssh2';
import { errnoCode } from './errors.js';
import { gatherFacts } from './facts.js';
import { connectSsh, forwardThrough, SshConnectError, type SshEndpoint, type SshSecurity } from './ssh-connect.js';
import { commandLine, runOnChannel, shellQuote, wrapCommand } from './ssh-exec.js';
import { SftpFiles } from './ssh-files.js';
import { execOverSshSync } from './ssh-sync.js';
import type { ExecOptions, ExecResult, Host, HostFacts, StatInfo, SyncExecOptions, TcpProbe, WriteOptions } from './types.js';

export interface SshHostOptions extends SshEndpoint {
  /** Run commands and file operations as root through `sudo -n` (the login user needs passwordless sudo). */
  readonly become?: boolean;
  /** One jump host (ProxyJump), itself checked and authenticated like any host. */
  readonly jump?: SshEndpoint | undefined;
}

/** Round trips and requests one host cost: what the fleet benchmark reports. */
export interface SshStats {
  requests: number;
  /** The longest chain of requests that each waited for an earlier answer: the sequential round trips. */
  roundTrips: number;
  execs: number;
}

const MAX_EXEC_CHANNELS = 8;
const SFTP_SERVERS = ['/usr/lib/openssh/sftp-server', '/usr/libexec/openssh/sftp-server', '/usr/lib/ssh/sftp-server', '/usr/libexec/sftp-server'];

interface Connection {
  readonly client: Client;
  readonly jump: Client | undefined;
}

export class SshHost implements Host {
  readonly name: string;
  readonly stats: SshStats = { requests: 0, roundTrips: 0, execs: 0 };
  private connection: Promise<Connection> | undefined;
  private filesOnce: Promise<SftpFiles> | undefined;
  private factsOnce: Promise<HostFacts> | undefined;
  /** Why the connection is gone, once it broke during use: later operations fail with it, they do not reconnect. */
  private lost: Error | undefined;
  private execsRunning = 0;
  private readonly execQueue: Array<() => void> = [];
  private depthDone = 0;
  /** Bumped by close: events of a connection from before it no longer concern this host. */
  private generation = 0;

  constructor(
    private readonly options: SshHostOptions,
    private readonly security: SshSecurity,
  ) {
    this.name = options.name;
  }

  open(): Promise<void> {
    return this.connect().then(() => undefined);
  }

  async close(): Promise<void> {
    const pending = this.connection;
    this.generation += 1;
    this.connection = undefined;
    this.filesOnce = undefined;
    this.lost = undefined;
    if (!pending) return;
    try {
      const conn = await pending;
      conn.client.end();
      conn.jump?.end();
    } catch {
      // it never opened: nothing to release
    }
  }

  facts(): Promise<HostFacts> {
    this.factsOnce ??= gatherFacts((script) => this.exec(script, { readOnly: true }), this.name);
    return this.factsOnce;
  }

  // ---- files (SFTP) ----

  async lstat(path: string): Promise<StatInfo | null> {
    return (await this.files()).lstat(path);
  }
  async stat(path: string): Promise<StatInfo | null> {
    return (await this.files()).stat(path);
  }
  async readFile(path: string): Promise<Buffer> {
    return (await this.files()).readFile(path);
  }
  async readText(path: string): Promise<string> {
    return (await this.readFile(path)).toString('utf8');
  }
  async readlink(path: string): Promise<string> {
    return (await this.files()).readlink(path);
  }
  async readdir(path: string): Promise<string[]> {
    return (await this.files()).readdir(path);
  }
  async writeFileAtomic(path: string, data: string | Uint8Array, options: WriteOptions = {}): Promise<void> {
    return (await this.files()).writeFileAtomic(path, data, options);
  }
  async mkdir(path: string, options: { readonly recursive?: boolean; readonly mode?: number } = {}): Promise<void> {
    return (await this.files()).mkdir(path, options);
  }
  async chmod(path: string, mode: number): Promise<void> {
    return (await this.files()).chmod(path, mode);
  }
  async chown(path: string, uid: number, gid: number): Promise<void> {
    return (await this.files()).chown(path, uid, gid);
  }
  async symlink(target: string, path: string): Promise<void> {
    return (await this.files()).symlink(target, path);
  }
  async remove(path: string, options: { readonly recursive?: boolean } = {}): Promise<void> {
    return (await this.files()).remove(path, options);
  }
  async rename(from: string, to: string): Promise<void> {
    return (await this.files()).rename(from, to);
  }

  // ---- commands ----

  async exec(command: string | readonly string[], options: ExecOptions = {}): Promise<ExecResult> {
    const { client } = await this.connect();
    await this.execSlot();
    const depth = this.depthDone + 1;
    this.stats.execs += 1;
    this.stats.requests += 1;
    try {
      return await runOnChannel(client, commandLine(wrapCommand(command, options), this.options.become === true), options);
    } catch (e) {
      throw this.failure(e);
    } finally {
      this.noteDone(depth);
      this.execsRunning -= 1;
      this.execQueue.shift()?.();
    }
  }

  /** Through OpenSSH's client (ssh-sync.ts): the same endpoint, key, known hosts, jump host and become. */
  execSync(command: string | readonly string[], options: SyncExecOptions = {}): ExecResult {
    this.stats.execs += 1;
    return execOverSshSync(this.options, this.options.jump, this.security, this.options.become === true, command, options);
  }

  /** The SSH server makes the connection (a direct-tcpip channel); where forwarding is off, a shell probe does. */
  async probeTcp(host: string, port: number, timeoutMs: number): Promise<TcpProbe> {
    const { client } = await this.connect();
    const opened = await new Promise<TcpProbe | 'prohibited'>((resolve) => {
      const timer = setTimeout(() => resolve({ ok: false, code: 'ETIMEDOUT', message: 'i/o timeout' }), timeoutMs);
      client.forwardOut('127.0.0.1', 0, host, port, (err, stream) => {
        clearTimeout(timer);
        if (!err) {
          stream.on('error', () => {});
          stream.destroy();
          resolve({ ok: true });
          return;
        }
        const why = err.message.replace(/^\(SSH\) Channel open failure: /, '');
        // Reason 1 is SSH_OPEN_ADMINISTRATIVELY_PROHIBITED: the server does not forward (AllowTcpForwarding no).
        if ((err as { reason?: unknown }).reason === 1 || /prohibited/i.test(why)) resolve('prohibited');
        else if (/refused/i.test(why)) resolve({ ok: false, code: 'ECONNREFUSED', message: why });
        else if (/name|resolve|known/i.test(why)) resolve({ ok: false, code: 'ENOTFOUND', message: why });
        else if (/timed out/i.test(why)) resolve({ ok: false, code: 'ETIMEDOUT', message: why });
        else resolve({ ok: false, code: 'EIO', message: why });
      });
    });
    if (opened !== 'prohibited') return opened;
    const seconds = Math.max(1, Math.ceil(timeoutMs / 1000));
    const script = `if command -v nc >/dev/null 2>&1; then nc -z -w ${seconds} ${shellQuote(host)} ${port}; else exec 3<>/dev/tcp/${host}/${port}; fi`;
    const r = await this.exec(['/bin/bash', '-c', script], { readOnly: true, timeout: timeoutMs + 1000 });
    return r.code === 0 ? { ok: true } : { ok: false, code: 'ECONNREFUSED', message: r.stderr.trim() || 'connection failed' };
  }

  // ---- internals ----

  private connect(): Promise<Connection> {
    if (this.lost) return Promise.reject(this.lost);
    this.connection ??= this.dial(this.generation).catch((e: unknown) => {
      this.connection = undefined;
      throw e;
    });
    return this.connection;
  }

  private async dial(generation: number): Promise<Connection> {
    const { jump: jumpEndpoint, ...target } = this.options;
    let jump: Client | undefined;
    let client: Client;
    try {
      if (jumpEndpoint) {
        jump = await connectSsh({ ...jumpEndpoint, name: `${this.name} (jump host ${jumpEndpoint.name})` }, this.security);
        const sock = await forwardThrough(jump, target, jumpEndpoint.name);
        client = await connectSsh(target, this.security, sock);
      } else {
        client = await connectSsh(target, this.security);
      }
    } catch (e) {
      jump?.end();
      throw e;
    }
    const onGone = (why: string) => (): void => {
      if (generation === this.generation && this.connection && !this.lost) this.lost = new SshConnectError(this.name, why);
    };
    client.on('close', onGone('the connection was lost'));
    client.on('error', (e: Error) => onGone(`the connection failed: ${e.message}`)());
    jump?.on('close', onGone('the connection to the jump host was lost'));
    const conn = { client, jump };
    if (this.options.become) await this.checkBecome(client);
    return conn;
  }

  private async checkBecome(client: Client): Promise<void> {
    const r = await runOnChannel(client, 'sudo -n true', {});
    if (r.code !== 0) {
      client.end();
      throw new SshConnectError(this.name, `become failed: sudo -n as ${this.options.user} did not succeed (${r.stderr.trim() || `exit ${r.code}`}); give ${this.options.user} passwordless sudo or log in as root`);
    }
  }

  private files(): Promise<SftpFiles> {
    this.filesOnce ??= this.openSftp().catch((e: unknown) => {
      this.filesOnce = undefined;
      throw this.failure(e);
    });
    return this.filesOnce;
  }

  private async openSftp(): Promise<SftpFiles> {
    const { client } = await this.connect();
    const sftp = this.options.become ? await sftpThroughSudo(client) : await new Promise<SFTPWrapper>((resolve, reject) => client.sftp((err, s) => (err ? reject(err) : resolve(s))));
    // A session that dies fails its pending requests; the event itself must not end the process.
    sftp.on('error', () => {});
    return new SftpFiles(sftp, {
      track: <T>(p: Promise<T>) => this.track(p),
      failure: (e: unknown) => this.failure(e),
    });
  }

  /** Counts a request and where it sits on the chain of sequential round trips. */
  private track<T>(p: Promise<T>): Promise<T> {
    const depth = this.depthDone + 1;
    this.stats.requests += 1;
    return p.finally(() => this.noteDone(depth));
  }

  private noteDone(depth: number): void {
    if (depth > this.depthDone) this.depthDone = depth;
    if (depth > this.stats.roundTrips) this.stats.roundTrips = depth;
  }

  private async execSlot(): Promise<void> {
    if (this.execsRunning >= MAX_EXEC_CHANNELS) await new Promise<void>((resolve) => this.execQueue.push(resolve));
    this.execsRunning += 1;
  }

  /** After the connection broke, every error is reported as that (what the user needs to know). */
  private failure(e: unknown): Error {
    if (this.lost) return this.lost;
    if (e instanceof Error && errnoCode(e) === undefined && /No response from server|Not connected|closed/i.test(e.message)) {
      return new SshConnectError(this.name, 'the connection was lost');
    }
    return e instanceof Error ? e : new Error(String(e));
  }
}

/**
 * SFTP as root: ssh2 opens SFTP as a subsystem request; for `become` the same channel is instead started
 * as an exec of the sftp-server program under `sudo -n`. ssh2 has no public call for that, so its one
 * subsystem request on this channel is turned into an exec request (ssh2 is pinned; the conformance
 * suite runs this path).
 */
function sftpThroughSudo(client: Client): Promise<SFTPWrapper> {
  const protocol = (client as unknown as { _protocol: { subsystem: (id: number, name: string, wantReply: boolean) => void; exec: (id: number, cmd: string, wantReply: boolean) => void } })._protocol;
  const original = protocol.subsystem;
  const servers = SFTP_SERVERS.map((p) => `[ -x ${p} ] && exec ${p}`).join('; ');
  protocol.subsystem = function (id: number, name: string, wantReply: boolean): void {
    protocol.subsystem = original;
    if (name !== 'sftp') return original.call(this, id, name, wantReply);
    return protocol.exec(id, `sudo -n -- /bin/sh -c ${shellQuote(`${servers}; echo 'no sftp-server found' >&2; exit 127`)}`, wantReply);
  };
  return new Promise((resolve, reject) =>
    client.sftp((err, s) => {
      protocol.subsystem = original;
      if (err) reject(err);
      else resolve(s);
    }),
  );
}
