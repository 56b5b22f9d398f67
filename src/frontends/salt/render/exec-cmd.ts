/**
 * The one place the render stage runs a program: `salt['cmd.run'](...)` in a template runs at render time,
 * as in Salt, before any state is applied (also in test mode), on the minion the states are for. The
 * `file.*` functions a template calls read that minion too.
 */

import { runSync } from '../../../host/run-sync.js';
import { splitWords } from '../../../resources/command/run.js';
import type { SaltTarget } from '../types.js';

export interface CmdResult {
  stdout: string;
  stderr: string;
  retcode: number;
}

/**
 * Runs `cmd` through the shell when `pythonShell`, else split into words (shlex) and run directly, as Salt
 * does: on the target minion when there is one, else on this machine.
 */
export function runShell(cmd: string, opts: { cwd?: string; env?: Record<string, string>; shell?: string; pythonShell?: boolean }, target?: SaltTarget): CmdResult {
  const argv = opts.pythonShell === false ? splitWords(cmd) : [opts.shell ?? '/bin/sh', '-c', cmd];
  if (argv.length === 0) return { stdout: '', stderr: '', retcode: 0 };
  if (target) {
    const r = target.execSync(argv, { stdin: '', ...(opts.cwd ? { cwd: opts.cwd } : {}), ...(opts.env ? { env: opts.env } : {}) });
    return { stdout: r.stdout.replace(/\s+$/, ''), stderr: r.stderr.replace(/\s+$/, ''), retcode: r.code ?? 1 };
  }
  const r = runSync(argv[0] as string, argv.slice(1), { ...(opts.cwd ? { cwd: opts.cwd } : {}), env: { ...process.env, ...(opts.env ?? {}) }, input: '' });
  if (r.status === null && r.failure !== undefined) return { stdout: '', stderr: r.failure, retcode: 127 };
  return { stdout: (r.stdout ?? '').replace(/\s+$/, ''), stderr: (r.stderr ?? '').replace(/\s+$/, ''), retcode: r.status ?? 1 };
}

/** `file.file_exists` / `file.directory_exists` / `file.exists` / `file.read` on the target minion. */
export function targetFileKind(target: SaltTarget, path: string): 'file' | 'dir' | 'other' | undefined {
  const r = target.execSync(['/bin/sh', '-c', 'if [ -f "$1" ]; then echo file; elif [ -d "$1" ]; then echo dir; elif [ -e "$1" ]; then echo other; fi', 'sh', path], { stdin: '' });
  const kind = r.stdout.trim();
  return kind === 'file' || kind === 'dir' || kind === 'other' ? kind : undefined;
}

export function targetReadFile(target: SaltTarget, path: string): string {
  const r = target.execSync(['cat', '--', path], { stdin: '' });
  if (r.code !== 0) throw new Error(`[Errno 2] No such file or directory: '${path}'`);
  return r.stdout;
}
