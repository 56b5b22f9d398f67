/**
 * The one place the render stage runs a program: `salt['cmd.run'](...)` in a template runs at render time,
 * as in Salt, before any state is applied (also in test mode).
 */

import { runSync } from '../../../host/run-sync.js';
import { splitWords } from '../../../resources/command/run.js';

export interface CmdResult {
  stdout: string;
  stderr: string;
  retcode: number;
}

/** Runs `cmd` through the shell when `pythonShell`, else split into words (shlex) and run directly, as Salt does. */
export function runShell(cmd: string, opts: { cwd?: string; env?: Record<string, string>; shell?: string; pythonShell?: boolean }): CmdResult {
  const argv = opts.pythonShell === false ? splitWords(cmd) : [opts.shell ?? '/bin/sh', '-c', cmd];
  if (argv.length === 0) return { stdout: '', stderr: '', retcode: 0 };
  const r = runSync(argv[0] as string, argv.slice(1), { ...(opts.cwd ? { cwd: opts.cwd } : {}), env: { ...process.env, ...(opts.env ?? {}) }, input: '' });
  if (r.status === null && r.failure !== undefined) return { stdout: '', stderr: r.failure, retcode: 127 };
  return { stdout: (r.stdout ?? '').replace(/\s+$/, ''), stderr: (r.stderr ?? '').replace(/\s+$/, ''), retcode: r.status ?? 1 };
}
