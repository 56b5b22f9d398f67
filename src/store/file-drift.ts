/**
 * The file store's drift index, `drift.json`: the latest known state of every resource per host, folded
 * in as each run finishes, so that the drift query reads one file instead of every run. It is a cache of
 * the run records: when it is missing it is rebuilt from them.
 */
import { readdirSync, readFileSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { NodeResult, RunMode } from '../core/model.js';
import { getRun, RECORDS_DIR } from './history.js';
import { driftFromRow, driftKey, type DriftRow, driftRowsFolder, driftToRow, foldDrift, localHostName } from './query.js';
import type { DriftEntry } from './types.js';
import { uniquePart } from './temp-name.js';
import { writeJsonList } from './json-list.js';

const DRIFT_FILE = 'drift.json';
const VERSION = 2;

interface DriftFile {
  readonly v: number;
  readonly rows: DriftRow[];
}

/** The index's rows, as stored (one per `host` and resource). */
function readRows(dir: string): DriftRow[] | undefined {
  let parsed: DriftFile;
  try {
    parsed = JSON.parse(readFileSync(join(dir, DRIFT_FILE), 'utf8')) as DriftFile;
  } catch {
    return undefined;
  }
  if (parsed?.v !== VERSION || !Array.isArray(parsed.rows)) return undefined;
  return parsed.rows;
}

function read(dir: string): Map<string, DriftEntry> | undefined {
  const rows = readRows(dir);
  if (!rows) return undefined;
  const latest = new Map<string, DriftEntry>();
  for (const r of rows) latest.set(driftKey(r[0], r[1]), driftFromRow(r));
  return latest;
}

function write(dir: string, rows: readonly DriftRow[]): void {
  const temp = join(dir, `.${DRIFT_FILE}.${uniquePart()}.tmp`);
  try {
    writeJsonList(temp, `{"v":${VERSION},"rows":`, rows, '}');
    renameSync(temp, join(dir, DRIFT_FILE));
  } catch (e) {
    try {
      unlinkSync(temp);
    } catch {
      // Never created.
    }
    throw e;
  }
}

/** Every recorded run's results, oldest first, folded into a fresh index. */
function rebuild(dir: string): Map<string, DriftEntry> {
  const latest = new Map<string, DriftEntry>();
  let names: string[] = [];
  try {
    names = readdirSync(join(dir, RECORDS_DIR));
  } catch {
    return latest;
  }
  const ids = names
    .map((n) => /^(\d+)\.json$/.exec(n)?.[1])
    .filter((x): x is string => x !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
  const fallback = localHostName();
  for (const id of ids) {
    const run = getRun(dir, id);
    if (run && run.state === 'finished') foldDrift(latest, run, run.results, run.hosts?.[0] ?? fallback);
  }
  return latest;
}

/** The last index read per directory, reused while the file is unchanged (a dashboard reads it often). */
const cache = new Map<string, { stamp: string; latest: Map<string, DriftEntry> }>();

function stampOf(dir: string): string | undefined {
  try {
    const s = statSync(join(dir, DRIFT_FILE));
    return `${s.ino}:${s.mtimeMs}:${s.size}`;
  } catch {
    return undefined;
  }
}

/** The current index (rebuilt and saved when missing). Read only: do not change what it returns. */
export function readDrift(dir: string): ReadonlyMap<string, DriftEntry> {
  const stamp = stampOf(dir);
  const hit = cache.get(dir);
  if (stamp !== undefined && hit?.stamp === stamp) return hit.latest;
  const found = read(dir);
  if (found) {
    if (stamp !== undefined) cache.set(dir, { stamp, latest: found });
    return found;
  }
  const built = rebuild(dir);
  if (built.size > 0) write(dir, [...built.values()].map(driftToRow));
  return built;
}

/**
 * Folds a finishing run into the index: the index is read now, each piece of the run's results is folded
 * in as it comes (in run order), and `save` writes the index. Call under the store lock. An index that
 * cannot be read or rebuilt fails `save`, not the run's record (written between the two).
 */
export function driftFold(dir: string, run: { id: number; start: string; mode: RunMode }, host: string): { fold: (results: readonly NodeResult[]) => void; save: () => void } {
  let rows: DriftRow[];
  try {
    rows = readRows(dir) ?? [...rebuild(dir).values()].map(driftToRow);
  } catch (e) {
    return {
      fold: () => {},
      save: () => {
        throw e;
      },
    };
  }
  return { fold: driftRowsFolder(rows, run, host), save: () => write(dir, rows) };
}
