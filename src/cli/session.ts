/** One recorded run: state dir, lock, run history entry, progress line; shared by every run command. */
import type { NodeResult, RunMode } from '../core/model.js';
import type { RunReport } from '../core/runtime.js';
import { acquireLock, beginRun, defaultStateDir, ensureStateDir, finishRun, readLock, releaseLockOnExit, type StateLock } from '../store/index.js';
import { createProgress, type Progress } from './progress.js';

export interface RunMeta {
  readonly mode: RunMode;
  readonly frontEnd: string;
  readonly source: readonly string[];
  /** The command line recorded in the history and the lock file (default: this process's), e.g. with secrets masked. */
  readonly command?: string;
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

async function lockStateDir(dir: string, opts: SessionOptions, command: string | undefined): Promise<StateLock | undefined> {
  if (inheritedLock(dir)) return undefined;
  const lock = await acquireLock(dir, {
    ...(command !== undefined ? { command } : {}),
    timeoutMs: opts.lockTimeout * 1000,
    onWait: (holder) => process.stderr.write(`cairn: waiting for the run holding ${dir}${holder ? ` (pid ${holder.pid})` : ''}...\n`),
  });
  releaseLockOnExit(lock);
  process.env[HELD_LOCK_ENV] = `${dir}:${lock.info.token}`;
  return lock;
}

/** Locks the state dir, records the run around `work`, prints, and returns the exit code. */
export async function withRunStore(opts: SessionOptions, meta: RunMeta, work: (progress: Progress) => Promise<SessionOutcome>): Promise<number> {
  const dir = ensureStateDir(opts.stateDir ?? defaultStateDir());
  const lock = await lockStateDir(dir, opts, meta.command);
  const progress = createProgress();
  try {
    const handle = beginRun(dir, { frontEnd: meta.frontEnd, source: meta.source, mode: meta.mode, ...(meta.command !== undefined ? { command: meta.command } : {}) });
    const outcome = await work(progress);
    progress.stop();
    finishRun(handle, { results: outcome.results, exitCode: outcome.exitCode });
    outcome.print(handle.id);
    return outcome.exitCode;
  } finally {
    progress.stop();
    if (lock) {
      lock.release();
      delete process.env[HELD_LOCK_ENV];
    }
  }
}

export type { RunReport };
