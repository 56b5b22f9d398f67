/**
 * The one place the render stage runs a program: `salt['cmd.run'](...)` in a template runs at render time,
 * as in Salt, before any state is applied (also in test mode).
 */

import { runSync } from '../../../host/run-sync.js';

export interface CmdResult {
  stdout: string;
  stderr: string;
  retcode: number;
}

export function runShell(cmd: string, opts: { cwd?: string; env?: Record<string, string>; shell?: string }): CmdResult {
  const r = runSync(opts.shell ?? '/bin/sh', ['-c', cmd], { ...(opts.cwd ? { cwd: opts.cwd } : {}), env: { ...process.env, ...(opts.env ?? {}) }, input: '' });
  if (r.status === null && r.failure !== undefined) return { stdout: '', stderr: r.failure, retcode: 127 };
  return { stdout: (r.stdout ?? '').replace(/\s+$/, ''), stderr: (r.stderr ?? '').replace(/\s+$/, ''), retcode: r.status ?? 1 };
}
