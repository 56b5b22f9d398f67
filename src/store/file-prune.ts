/** Retention for the file store: drop old runs from runs.jsonl and their record files. Call under the lock. */
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { storeIoError } from './errors.js';
import { PARTIAL_SUFFIX, RECORDS_DIR, scanRuns, SUMMARY_FILE } from './history.js';
import type { PruneOptions } from './types.js';
import { replaceFile } from './temp-name.js';

/**
 * The ids a prune removes: beyond the newest `keep`, or started before `olderThan`. Never a running run,
 * and never the newest run, so that run ids keep counting up and old links never point at a new run.
 */
export function idsToPrune(runs: readonly { id: number; start: string; state: string }[], options: PruneOptions): Set<number> {
  const sorted = [...runs].sort((a, b) => b.id - a.id);
  const out = new Set<number>();
  sorted.forEach((r, i) => {
    if (i === 0 || r.state === 'running') return;
    if (options.keep !== undefined && i >= options.keep) out.add(r.id);
    if (options.olderThan !== undefined && Date.parse(r.start) < options.olderThan.getTime()) out.add(r.id);
  });
  return out;
}

export function pruneFileStore(dir: string, options: PruneOptions): number {
  const runs: { id: number; start: string; state: string }[] = [];
  scanRuns(dir, (s) => {
    runs.push({ id: s.id, start: s.start, state: s.state });
    return true;
  });
  const gone = idsToPrune(runs, options);
  if (gone.size === 0) return 0;
  const path = join(dir, SUMMARY_FILE);
  try {
    const kept = readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => {
        const m = /"id":(\d+)/.exec(line);
        return line !== '' && !(m && gone.has(Number(m[1])));
      });
    replaceFile(dir, SUMMARY_FILE, (temp) => writeFileSync(temp, kept.length > 0 ? `${kept.join('\n')}\n` : '', { mode: 0o600 }));
  } catch (e) {
    throw storeIoError('io', `cannot prune ${path}`, e);
  }
  // The summary lines go first: a record file without its line is harmless (it only keeps its id taken).
  for (const id of gone) {
    for (const name of [`${id}.json`, `${id}.partial.json`, `${id}${PARTIAL_SUFFIX}`]) {
      try {
        unlinkSync(join(dir, RECORDS_DIR, name));
      } catch {
        // Never written, or lost.
      }
    }
  }
  return gone.size;
}
