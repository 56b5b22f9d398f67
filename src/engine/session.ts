/** One recorded run: run store, lock, run history entry, progress line; shared by every run command. */
import type { Edge, NodeResult, RunMode } from '../core/model.js';
import type { RunReport } from '../core/runtime.js';
import type { Progress } from './progress.js';
import { recordedRun } from './store-session.js';

export interface RunMeta {
  readonly mode: RunMode;
  readonly frontEnd: string;
  readonly source: readonly string[];
  /** The command line recorded in the history and the lock (default: this process's), e.g. with secrets masked. */
  readonly command?: string;
}

export interface SessionOptions {
  /** `--store`: a postgres:// URL or a store directory (default: $CAIRN_STORE, else the state dir). */
  readonly store?: string | undefined;
  readonly stateDir?: string | undefined;
  readonly lockTimeout: number;
}

export interface SessionOutcome {
  readonly results: readonly NodeResult[];
  readonly exitCode: number;
  /** Prints the outcome once the run id is known. */
  readonly print: (runId: number) => void;
  /** The requisites of the graph that ran, kept with the run for the dashboard's graph view. */
  readonly edges?: readonly Edge[];
}

/** Locks the run store, records the run around `work`, prints, and returns the exit code. */
export async function withRunStore(opts: SessionOptions, meta: RunMeta, work: (progress: Progress) => Promise<SessionOutcome>): Promise<number> {
  return recordedRun(opts, meta, work);
}

export type { RunReport };
