/**
 * Runs a helper program to completion, synchronously, for a compiler that must call out while it evaluates
 * (Inmanta's Python plugins). Not a resource action: resources go through a Host.
 */

export interface SyncRun {
  /** Exit status, or null when the program could not start or was killed. */
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Set when the program is not installed (not found on PATH). */
  readonly missing: boolean;
  /** Why it did not run or finish, when it did not. */
  readonly failure?: string;
}

export function runSync(file: string, args: readonly string[], options: { input?: string; cwd?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): SyncRun {
  const r = process.getBuiltinModule('node:child_process').spawnSync(file, args, {
    input: options.input,
    cwd: options.cwd,
    env: options.env ?? process.env,
    encoding: 'utf8',
    timeout: options.timeoutMs,
    maxBuffer: 256 * 1024 * 1024,
  });
  const err = r.error as (Error & { code?: string }) | undefined;
  const base = { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', missing: err?.code === 'ENOENT' };
  if (err) return { ...base, failure: err.message };
  if (r.signal) return { ...base, failure: `killed by ${r.signal}` };
  return base;
}
