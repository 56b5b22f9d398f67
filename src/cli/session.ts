/** One recorded run: state dir, lock, run history entry, progress line; shared by every run command. */
import type { NodeResult, RunMode } from '../core/model.js';
import type { RunReport } from '../core/runtime.js';
import { acquireLock, beginRun, defaultStateDir, ensureStateDir, finishRun, releaseLockOnExit } from '../store/index.js';
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

/** Locks the state dir, records the run around `work`, prints, and returns the exit code. */
export async function withRunStore(opts: SessionOptions, meta: RunMeta, work: (progress: Progress) => Promise<SessionOutcome>): Promise<number> {
  const dir = ensureStateDir(opts.stateDir ?? defaultStateDir());
  const lock = await acquireLock(dir, {
    timeoutMs: opts.lockTimeout * 1000,
    onWait: (holder) => process.stderr.write(`cairn: waiting for the run holding ${dir}${holder ? ` (pid ${holder.pid})` : ''}...\n`),
  });
  releaseLockOnExit(lock);
  const progress = createProgress();
  try {
    const handle = beginRun(dir, { frontEnd: meta.frontEnd, source: meta.source, mode: meta.mode });
    const outcome = await work(progress);
    progress.stop();
    finishRun(handle, { results: outcome.results, exitCode: outcome.exitCode });
    outcome.print(handle.id);
    return outcome.exitCode;
  } finally {
    progress.stop();
    lock.release();
  }
}

export type { RunReport };
