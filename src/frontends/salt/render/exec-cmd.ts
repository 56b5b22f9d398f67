/**
 * The one place the render stage runs a program: `salt['cmd.run'](...)` in a template runs at render time,
 * as in Salt, before any state is applied (also in test mode).
 */

import { spawnSync } from 'node:child_process';

export interface CmdResult {
  stdout: string;
  stderr: string;
  retcode: number;
}

export function runShell(cmd: string, opts: { cwd?: string; env?: Record<string, string>; shell?: string }): CmdResult {
  const r = spawnSync(opts.shell ?? '/bin/sh', ['-c', cmd], {
    cwd: opts.cwd,
    env: { ...process.env, ...(opts.env ?? {}) },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (r.error) return { stdout: '', stderr: r.error.message, retcode: 127 };
  return { stdout: (r.stdout ?? '').replace(/\s+$/, ''), stderr: (r.stderr ?? '').replace(/\s+$/, ''), retcode: r.status ?? 1 };
}
