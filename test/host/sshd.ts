/**
 * Real OpenSSH servers for tests: each on its own loopback port with its own config, host key and
 * authorized keys, started by the test and stopped when the test process ends. Needs Debian's
 * openssh-server (and sudo for the `become` user); without them the tests skip with one loud line.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SSHD = process.env.CAIRN_TEST_SSHD ?? '/usr/sbin/sshd';
const SFTP_SERVER = '/usr/lib/openssh/sftp-server';
/** A non-root login with passwordless sudo, for `become`. */
export const BECOME_USER = 'cairn-become';

let skipReason: string | undefined | null = null;

/** Why real-sshd tests cannot run here, or undefined when they can. Printed once, loudly. */
export function sshdMissing(): string | undefined {
  if (skipReason !== null) return skipReason;
  if (!fs.existsSync(SSHD)) skipReason = `SKIP: no OpenSSH server at ${SSHD} (apt-get install -y openssh-server sudo): the SSH tests did not run`;
  else if (!fs.existsSync(SFTP_SERVER)) skipReason = `SKIP: no ${SFTP_SERVER} (apt-get install -y openssh-server): the SSH tests did not run`;
  else if (process.getuid?.() !== 0) skipReason = 'SKIP: the SSH tests start sshd on loopback ports and need root: they did not run';
  else skipReason = undefined;
  if (skipReason) process.stderr.write(`\n*** ${skipReason} ***\n\n`);
  return skipReason;
}

const work = fs.mkdtempSync(join(tmpdir(), 'cairn-sshd-'));
// sshd reads authorized_keys as the logging-in user, so a non-root login must be able to reach it.
fs.chmodSync(work, 0o755);
const servers: ChildProcess[] = [];
process.on('exit', () => {
  for (const s of servers) s.kill('SIGKILL');
  fs.rmSync(work, { recursive: true, force: true });
});

let clientKey: string | undefined;
/** The private key every test server accepts (made once per test process). */
export function testClientKey(): string {
  if (clientKey) return clientKey;
  const file = join(work, 'client_key');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'cairn-test', '-f', file]);
  clientKey = file;
  return file;
}

/**
 * Writes a sudoers file only when its text differs, through a temporary name sudo skips (it holds a dot):
 * test files run side by side, and a sudo reading a file another one is rewriting in place would find it
 * empty and refuse the become user.
 */
function writeSudoers(path: string, text: string): void {
  try {
    if (fs.readFileSync(path, 'utf8') === text) return;
  } catch {
    // not written yet
  }
  const temp = `${path}.${process.pid}.tmp`;
  fs.writeFileSync(temp, text, { mode: 0o440 });
  fs.renameSync(temp, path);
}

function userExists(): boolean {
  try {
    execFileSync('id', [BECOME_USER], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The user's password field in /etc/shadow, or undefined when it has no entry there. */
function shadowPassword(): string | undefined {
  const line = fs.readFileSync('/etc/shadow', 'utf8').split('\n').find((l) => l.startsWith(`${BECOME_USER}:`));
  return line?.split(':')[1];
}

/**
 * Creates the `become` user (no password, passwordless sudo) when it does not exist yet. Several test files
 * call this at once: what is already as wanted is left alone, and a user another file has just added is
 * taken as it is.
 */
export function ensureBecomeUser(): string | undefined {
  if (!fs.existsSync('/usr/bin/sudo')) return 'no sudo (apt-get install -y sudo)';
  if (!userExists()) {
    try {
      execFileSync('useradd', ['-m', '-s', '/bin/sh', BECOME_USER], { stdio: 'ignore' });
    } catch (e) {
      if (!userExists()) throw e;
    }
  }
  // '*' rather than a locked '!': sshd without PAM refuses locked accounts even for key logins.
  if (shadowPassword() !== '*') execFileSync('usermod', ['-p', '*', BECOME_USER]);
  // CAIRN_TEST_ROOT and XDG_STATE_HOME (set by each test server) survive sudo, so a run can tell the test machines apart.
  writeSudoers(`/etc/sudoers.d/${BECOME_USER}`, `Defaults:${BECOME_USER} env_keep += "CAIRN_TEST_ROOT XDG_STATE_HOME"\n${BECOME_USER} ALL=(ALL) NOPASSWD:ALL\n`);
  // Its own secure_path, so what runs through its sudo has a PATH (Salt's `path` grain) the other test
  // machines do not. A file of its own, read after the one above, so rewriting that one keeps it.
  const securePath = `/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/${BECOME_USER}/bin`;
  writeSudoers(`/etc/sudoers.d/${BECOME_USER}-path`, `Defaults:${BECOME_USER} secure_path="${securePath}"\n`);
  return undefined;
}

export interface TestSshd {
  readonly port: number;
  readonly hostKeyFile: string;
  /** The host public key line (`type base64 comment`). */
  readonly hostPublicKey: string;
  readonly pid: number;
  /** Kills the connection processes this server forked (the listener stays): a connection dying mid-run. */
  killSessions(): void;
  stop(): void;
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function waitForPort(port: number, child: ChildProcess, log: () => string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`sshd exited ${child.exitCode}: ${log()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.on('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`sshd on port ${port} did not start: ${log()}`);
}

export async function startSshd(options: { allowForwarding?: boolean; hostKeyType?: 'ed25519' | 'ecdsa'; setEnv?: Record<string, string> } = {}): Promise<TestSshd> {
  const port = await freePort();
  const dir = fs.mkdtempSync(join(work, `sshd-${port}-`));
  fs.chmodSync(dir, 0o755);
  const hostKeyFile = join(dir, 'host_key');
  execFileSync('ssh-keygen', ['-q', '-t', options.hostKeyType ?? 'ed25519', '-N', '', '-C', `test-${port}`, '-f', hostKeyFile]);
  const authorized = join(dir, 'authorized_keys');
  fs.copyFileSync(`${testClientKey()}.pub`, authorized);
  fs.chmodSync(authorized, 0o644);
  fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const config = join(dir, 'sshd_config');
  fs.writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKeyFile}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${authorized}`,
      'StrictModes no',
      'PermitRootLogin prohibit-password',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      `AllowTcpForwarding ${options.allowForwarding === false ? 'no' : 'yes'}`,
      `Subsystem sftp ${SFTP_SERVER}`,
      'MaxStartups 200',
      'MaxSessions 20',
      'LogLevel ERROR',
      // sshd takes the first SetEnv line only: every variable goes on one. SHLVL=1: bash, the login
      // shell sshd runs each command with, reads the login's ~/.bashrc when sshd started it at the first
      // shell level; one level up it does not, so what this machine's ~/.bashrc does (a version manager's
      // set-up, dozens of programs per session) stays out of the test machines' sessions.
      `SetEnv ${Object.entries({ SHLVL: '1', ...options.setEnv }).map(([k, v]) => `${k}=${v}`).join(' ')}`,
      '',
    ].join('\n'),
  );
  const child = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (b: Buffer) => {
    stderr += b.toString();
  });
  servers.push(child);
  await waitForPort(port, child, () => stderr);
  const pid = child.pid ?? 0;
  return {
    port,
    hostKeyFile,
    hostPublicKey: fs.readFileSync(`${hostKeyFile}.pub`, 'utf8').trim(),
    pid,
    killSessions() {
      for (const child of childrenOf(pid)) {
        try {
          process.kill(child, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    },
    stop() {
      child.kill('SIGKILL');
    },
  };
}

/** Process ids whose parent is `pid` (from /proc). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(name));
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

/** The machines of a fleet test: one sshd per name, each standing for a machine whose root is its own folder. */
export interface TestFleet {
  /** The test's folder (readable by the become user). */
  readonly dir: string;
  /** HOME for the controller's runs (its own ~/.ssh). */
  readonly home: string;
  /** Per name, the folder its sessions see as CAIRN_TEST_ROOT. */
  readonly roots: Record<string, string>;
  /** In the order of the names. */
  readonly servers: TestSshd[];
  /** A loopback port nobody listens on: an unreachable host. */
  readonly downPort: number;
}

/** Starts an sshd per name, with CAIRN_TEST_ROOT (and what `env` adds for the root) set in its sessions. */
export async function startTestFleet(prefix: string, names: readonly string[], env: (root: string) => Record<string, string> = () => ({})): Promise<TestFleet> {
  const dir = fs.mkdtempSync(join(work, prefix));
  fs.chmodSync(dir, 0o755);
  const home = join(dir, 'home');
  fs.mkdirSync(home);
  const roots: Record<string, string> = {};
  const servers: TestSshd[] = [];
  for (const name of names) {
    const root = join(dir, name);
    roots[name] = root;
    fs.mkdirSync(root);
    servers.push(await startSshd({ setEnv: { CAIRN_TEST_ROOT: root, ...env(root) } }));
  }
  return { dir, home, roots, servers, downPort: await freePort() };
}

/**
 * Writes the fleet's inventory, `inventory.yaml` in its folder, and returns its path: every server under
 * its name, logging in as root with the test key, except `become`, which logs in as BECOME_USER and
 * becomes root; `delta`, unreachable; then `groups` (inventory text) when given.
 */
export function writeFleetInventory(fleet: TestFleet, become: string, groups = ''): string {
  const hosts = Object.keys(fleet.roots).map((name, i) => {
    const port = (fleet.servers[i] as TestSshd).port;
    return `  ${name}: {address: 127.0.0.1, port: ${port}${name === become ? `, user: ${BECOME_USER}, become: true` : ''}}\n`;
  });
  const path = join(fleet.dir, 'inventory.yaml');
  fs.writeFileSync(path, `defaults:\n  user: root\n  key: ${testClientKey()}\nhosts:\n${hosts.join('')}  delta: {address: 127.0.0.1, port: ${fleet.downPort}}\n${groups}`);
  return path;
}
