/** One recorded run: state dir, lock, run history entry, progress line; shared by every run command. */
import type { NodeResult, RunMode } from '../core/model.js';
import type { RunReport } from '../core/runtime.js';
import { acquireLock, beginRun, defaultStateDir, ensureStateDir, finishRun, readLock, releaseLockOnExit, type StateLock } from '../store/index.js';
import { createProgress, type Progress } from './progress.js';

export interface RunMeta {
  readonly mode: RunMode;
  readonly frontEnd: string;
  readonly source: readonly string[];
}

export interface SessionOptions {
  readonly stateDir?: string | undefined;
  readonly lockTimeout: number;
}

export interface SessionOutcome {
  readonly results: readonly NodeResult[];
  readonly exitCode: number;
  /** Prints the outcome once the run id is known. */
  readonly print: (runId: number) => void;
}

/**
 * Set while a run holds the lock, and inherited by the commands it runs: a step that runs cairn again on
 * the same state dir (a Zapusk os step calling the tool) joins its parent's lock instead of waiting for it.
 */
const HELD_LOCK_ENV = 'CAIRN_HELD_LOCK';

function inheritedLock(dir: string): boolean {
  const held = process.env[HELD_LOCK_ENV];
  if (!held) return false;
  const sep = held.lastIndexOf(':');
  return held.slice(0, sep) === dir && readLock(dir)?.token === held.slice(sep + 1);
}

async function lockStateDir(dir: string, opts: SessionOptions): Promise<StateLock | undefined> {
  if (inheritedLock(dir)) return undefined;
  const lock = await acquireLock(dir, {
    timeoutMs: opts.lockTimeout * 1000,
    onWait: (holder) => process.stderr.write(`cairn: waiting for the run holding ${dir}${holder ? ` (pid ${holder.pid})` : ''}...\n`),
  });
  releaseLockOnExit(lock);
  process.env[HELD_LOCK_ENV] = `${dir}:${lock.info.token}`;
  return lock;
}

/** The distinct line that tells a user a failure was cairn's bug, and where its stack is kept. */
function reportInternalResults(count: number, runId: number, stateDir: string | undefined): void {
  const where = `cairn history ${runId} --out json${stateDir ? ` --state-dir ${stateDir}` : ''}`;
  const what = count === 1 ? '1 result failed' : `${count} results failed`;
  process.stderr.write(`cairn: ${what} because of a bug in cairn (internal error); the stack is kept in run ${runId} (${where}). Please report it.\n`);
}

/** Locks the state dir, records the run around `work`, prints, and returns the exit code. */
export async function withRunStore(opts: SessionOptions, meta: RunMeta, work: (progress: Progress) => Promise<SessionOutcome>): Promise<number> {
  const dir = ensureStateDir(opts.stateDir ?? defaultStateDir());
  const lock = await lockStateDir(dir, opts);
  const progress = createProgress();
  try {
    const handle = beginRun(dir, { frontEnd: meta.frontEnd, source: meta.source, mode: meta.mode });
    const outcome = await work(progress);
    progress.stop();
    const bugs = outcome.results.filter((r) => r.internal !== undefined).length;
    const exitCode = bugs > 0 && outcome.exitCode === 0 ? 1 : outcome.exitCode;
    finishRun(handle, { results: outcome.results, exitCode });
    outcome.print(handle.id);
    if (bugs > 0) reportInternalResults(bugs, handle.id, opts.stateDir);
    return exitCode;
  } finally {
    progress.stop();
    if (lock) {
      lock.release();
      delete process.env[HELD_LOCK_ENV];
    }
  }
}

export type { RunReport };
