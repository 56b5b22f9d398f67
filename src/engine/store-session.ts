/**
 * A run recorded in the run store: open the store, take the run lock, record the start, feed the live
 * view, capture what the front end prints, record the end. Behind `withRunStore` in session.ts.
 *
 * An unreachable database stops the command before anything acts (the store is opened and the lock taken
 * first). If the database goes away during the run, the run finishes, its output is printed, and the
 * command ends with exit 1 and a message that the run could not be recorded.
 */
import { maskValues } from '../core/redact.js';
import type { NodeResult } from '../core/model.js';
import { openRunStore, StoreError, type RunStore, type StoreRunHandle } from '../store/index.js';
import type { Progress } from './progress.js';
import { createProgress } from './progress.js';
import { recordableResult } from './record-results.js';
import { mark } from './profile.js';
import { captureStdout, writeErr } from './stdio.js';

export interface RecordedRunOptions {
  readonly store?: string | undefined;
  readonly stateDir?: string | undefined;
  readonly lockTimeout: number;
}

export interface RecordedRunMeta {
  readonly mode: import('../core/model.js').RunMode;
  readonly frontEnd: string;
  readonly source: readonly string[];
  readonly command?: string;
}

export interface RecordedOutcome {
  readonly results: readonly NodeResult[];
  readonly exitCode: number;
  readonly print: (runId: number) => void;
  readonly edges?: readonly { readonly from: string; readonly to: string; readonly kind: string }[];
  /**
   * Values the printed output may show (as the real system prints them) but the store must not keep
   * (Salt's pillar): masked in the stored copy of the output. The results are the front end's to mask.
   */
  readonly unstored?: readonly string[];
}

/** A result as the store keeps it (recordableResult without its second argument). */
const recordable = (r: NodeResult): NodeResult => recordableResult(r);

/** Results are shown live only for runs that last: the first snapshot is written after this long. */
const LIVE_AFTER_MS = 400;
const LIVE_EVERY_MS = 400;
/** The printed output kept with a run, at most. */
const OUTPUT_CAP = 1024 * 1024;

/** Feeds the store's live view, throttled, so that a short run writes nothing extra. */
function liveFeed(store: RunStore, handle: StoreRunHandle, progress: Progress): { progress: Progress; stop: () => Promise<void> } {
  const results: NodeResult[] = [];
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  let stopped = false;
  let sent = 0;
  const flush = (): void => {
    timer = undefined;
    if (stopped) return;
    // Only what finished since the last write: a long run writes each result once.
    const added = results.slice(sent).map((r) => recordableResult(r, true));
    sent = results.length;
    writing = writing.then(() => store.progress(handle, added));
    timer = setTimeout(flush, LIVE_EVERY_MS);
    timer.unref();
  };
  return {
    progress: {
      ...(progress.onStart ? { onStart: progress.onStart } : {}),
      onResult(r, done, total) {
        results.push(r);
        progress.onResult?.(r, done, total);
        if (timer === undefined && !stopped) {
          timer = setTimeout(flush, LIVE_AFTER_MS);
          timer.unref();
        }
      },
      stop: () => progress.stop(),
    },
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await writing;
    },
  };
}

/** Calls `print`, passing stdout through and keeping a copy (up to a cap) to store with the run. */
function storedOutput(print: () => void): string {
  let kept = captureStdout(print, OUTPUT_CAP);
  // Colours are for the terminal; the stored copy is plain text.
  if (kept.includes('\x1b')) kept = kept.replace(/\x1b\[[0-9;]*m/g, '');
  return kept.length > OUTPUT_CAP ? `${kept.slice(0, OUTPUT_CAP)}\n[output cut at ${OUTPUT_CAP} bytes]\n` : kept;
}

/** The distinct line that tells a user a failure was cairn's bug, and where its stack is kept. */
function reportInternalResults(count: number, runId: number, opts: RecordedRunOptions): void {
  const where = `cairn history ${runId} --out json${opts.store ? ` --store ${opts.store}` : opts.stateDir ? ` --state-dir ${opts.stateDir}` : ''}`;
  const what = count === 1 ? '1 result failed' : `${count} results failed`;
  writeErr(`cairn: ${what} because of a bug in cairn (internal error); the stack is kept in run ${runId} (${where}). Please report it.\n`);
}

export async function recordedRun(opts: RecordedRunOptions, meta: RecordedRunMeta, work: (progress: Progress) => Promise<RecordedOutcome>): Promise<number> {
  const store = await openRunStore({ store: opts.store, stateDir: opts.stateDir, migrate: true });
  try {
    const lock = await store.lock({
      ...(meta.command !== undefined ? { command: meta.command } : {}),
      timeoutMs: opts.lockTimeout * 1000,
      onWait: (holder) => writeErr(`cairn: waiting for the run holding ${store.location}${holder ? ` (${holder})` : ''}...\n`),
    });
    const progress = createProgress();
    try {
      const handle = await store.beginRun({ frontEnd: meta.frontEnd, source: meta.source, mode: meta.mode, ...(meta.command !== undefined ? { command: meta.command } : {}) });
      const live = liveFeed(store, handle, progress);
      mark('store open');
      let outcome: RecordedOutcome;
      try {
        outcome = await work(live.progress);
      } finally {
        progress.stop();
        await live.stop();
      }
      mark('run');
      const printed = storedOutput(() => outcome.print(handle.id));
      const output = outcome.unstored?.length ? maskValues(printed, outcome.unstored) : printed;
      mark('print');
      // A result that ended in a bug in cairn fails the run whatever the front end made of it.
      const bugs = outcome.results.filter((r) => r.internal !== undefined).length;
      const exitCode = bugs > 0 && outcome.exitCode === 0 ? 1 : outcome.exitCode;
      try {
        await store.finishRun(handle, { results: outcome.results, stored: recordable, exitCode, output, ...(outcome.edges ? { edges: outcome.edges } : {}) });
      } catch (e) {
        if (!StoreError.is(e)) throw e;
        throw new StoreError(e.code, `${e.message}\nrun ${handle.id} finished (exit ${exitCode}) and its results are above, but it was not recorded`);
      }
      mark('record');
      if (bugs > 0) reportInternalResults(bugs, handle.id, opts);
      return exitCode;
    } finally {
      progress.stop();
      await lock.release();
    }
  } finally {
    await store.close();
    mark('close');
  }
}
