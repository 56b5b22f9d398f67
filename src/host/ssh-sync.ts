/**
 * A command run on an SSH host synchronously, for a compiler that must call out while it evaluates (Salt's
 * render-time execution functions): OpenSSH's own `ssh` client, run to completion, to the same endpoint
 * with the same key, the same known-hosts files (OpenSSH's and cairn's own, strictly checked: by then the
 * run's connection has already checked or recorded the key), the same jump host, and no prompt (BatchMode).
 * The command line is the one the ssh2 connection sends (environment wrapper, `sudo -n` with become).
 */
import { runSync } from './run-sync.js';
import type { SshEndpoint, SshSecurity } from './ssh-connect.js';
import { commandLine, shellQuote, wrapCommand } from './ssh-exec.js';
import type { ExecResult, SyncExecOptions } from './types.js';

/** OpenSSH's `-o` value for a list of files (quoted, so a path may hold spaces). */
function fileList(files: readonly string[]): string {
  return files.map((f) => `"${f}"`).join(' ');
}

/** The options every `ssh` call takes: no config file, strict host keys from our files, no prompt. */
function baseOptions(endpoint: SshEndpoint, security: SshSecurity): string[] {
  const known = security.knownHosts;
  const args = [
    '-F', '/dev/null',
    '-o', 'BatchMode=yes',
    '-o', 'StrictHostKeyChecking=yes',
    '-o', 'CheckHostIP=no',
    // Every file the run's own check reads (OpenSSH's and cairn's), and no other.
    '-o', `UserKnownHostsFile=${fileList([...known.files, known.managedFile])}`,
    '-o', 'GlobalKnownHostsFile=/dev/null',
    '-o', `ConnectTimeout=${Math.max(1, Math.ceil(security.connectTimeoutMs / 1000))}`,
    '-o', 'LogLevel=ERROR',
    '-p', String(endpoint.port),
    '-l', endpoint.user,
  ];
  if (endpoint.keyFile !== undefined) args.push('-o', 'IdentitiesOnly=yes', '-i', endpoint.keyFile);
  return args;
}

/** The argv of `ssh` that runs `line` on the endpoint (through the jump host, when there is one). */
export function sshArgv(endpoint: SshEndpoint, jump: SshEndpoint | undefined, security: SshSecurity, line: string): string[] {
  const args = baseOptions(endpoint, security);
  if (jump) {
    const proxy = ['ssh', ...baseOptions(jump, security), '-W', '%h:%p', jump.address].map((w) => (w === '%h:%p' ? w : shellQuote(w))).join(' ');
    args.push('-o', `ProxyCommand=${proxy}`);
  }
  return [...args, '--', endpoint.address, line];
}

export function execOverSshSync(
  endpoint: SshEndpoint,
  jump: SshEndpoint | undefined,
  security: SshSecurity,
  become: boolean,
  command: string | readonly string[],
  options: SyncExecOptions,
): ExecResult {
  const line = commandLine(wrapCommand(command, options), become);
  const env = security.agentSocket !== undefined ? { ...process.env, SSH_AUTH_SOCK: security.agentSocket } : process.env;
  const r = runSync('ssh', sshArgv(endpoint, jump, security, line), { input: options.stdin ?? '', env, ...(options.timeout !== undefined ? { timeoutMs: options.timeout } : {}) });
  if (r.missing) return { code: 127, signal: null, stdout: '', stderr: `cannot run a command on ${endpoint.name} here: the OpenSSH client (ssh) is not installed\n`, timedOut: false };
  const timedOut = r.failure !== undefined && /ETIMEDOUT|SIGTERM/.test(r.failure);
  // ssh exits 255 for its own failures (connection, host key, authentication): say so with its message.
  if (r.status === 255) return { code: 255, signal: null, stdout: r.stdout, stderr: `${endpoint.name}: ssh failed: ${r.stderr.trim() || 'exit 255'}\n`, timedOut };
  return { code: r.status, signal: r.status === null && !timedOut ? 'SIGKILL' : null, stdout: r.stdout, stderr: r.stderr, timedOut };
}
