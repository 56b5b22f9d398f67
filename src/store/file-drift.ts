/**
 * The file store's drift index, `drift.json`: the latest known state of every resource per host, folded
 * in as each run finishes, so that the drift query reads one file instead of every run. It is a cache of
 * the run records: when it is missing it is rebuilt from them.
 *
 * A run that says exactly what an earlier run said about the same resources (the same hosts, ids, types,
 * names, states, statuses and comments, in the same order: a no-op repeated) changes nothing in the index
 * but when each of them was last seen. Such a run does not read or rewrite the index: `drift-seen.jsonl`
 * keeps, for each of the last few runs that folded rows in, a digest of what it said, and for the latest
 * run found to say the same, its id and start. The rows an earlier run X folded are the rows that hold run
 * id X; they are shown (and folded into, by the next run that does rewrite the index) as seen by that
 * latest run. A run that rewrites one of X's rows ends X's entry. Each line names the index it goes with
 * (the run that last wrote `drift.json`): lines of an earlier index, or left by a crash between the two
 * writes, are ignored. The file is appended to (replacing a file costs ext4 a flush of the new one's data)
 * and rewritten with only its live lines once it is long.
 */
import { closeSync, openSync, readdirSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendLines } from './append-line.js';
import type { NodeResult, RunMode } from '../core/model.js';
import { getRun, RECORDS_DIR } from './history.js';
import { driftFromRow, driftKey, type DriftRow, driftRowsFolder, driftStateOf, driftToRow, foldDrift, hostOf, localHostName } from './query.js';
import type { DriftEntry } from './types.js';
import { replaceFile } from './temp-name.js';
import { writeJsonList } from './json-list.js';

const DRIFT_FILE = 'drift.json';
export const SEEN_FILE = 'drift-seen.jsonl';
const VERSION = 2;
/** Earlier runs kept in the seen file. */
const SEEN_KEPT = 16;
/** Lines the seen file may reach before it is rewritten with only its live ones. */
const SEEN_COMPACT_AT = 128;
/**
 * Runs of this many results or more are digested. A smaller run folds into drift.json as it always does:
 * its digest and the seen file would cost it more than they save.
 */
export const DIGEST_FROM = 64;

interface DriftFile {
  readonly v: number;
  /** The run that wrote the index; absent in one rebuilt from the records. */
  readonly by?: number;
  readonly rows: DriftRow[];
}

/** One earlier run that folded rows in: what it said, and the latest run that said the same. */
interface SeenEntry {
  /** The run whose rows these are (they hold its id). */
  readonly base: number;
  readonly digest: string;
  readonly runId: number;
  readonly seen: string;
}

/** The index as stored (one row per `host` and resource), and the run that wrote it. */
function readIndex(dir: string): { rows: DriftRow[]; by: number | undefined } | undefined {
  let parsed: DriftFile;
  try {
    parsed = JSON.parse(readFileSync(join(dir, DRIFT_FILE), 'utf8')) as DriftFile;
  } catch {
    return undefined;
  }
  if (parsed?.v !== VERSION || !Array.isArray(parsed.rows)) return undefined;
  return { rows: parsed.rows, by: typeof parsed.by === 'number' ? parsed.by : undefined };
}

/** The run that wrote drift.json, read from the file's first bytes (the rows are not parsed). */
function indexWriter(dir: string): number | undefined {
  let fd: number;
  try {
    fd = openSync(join(dir, DRIFT_FILE), 'r');
  } catch {
    return undefined;
  }
  try {
    const head = Buffer.alloc(64);
    const n = readSync(fd, head, 0, head.length, 0);
    const m = new RegExp(`^\\{"v":${VERSION},"by":(\\d+),"rows":\\[`).exec(head.toString('latin1', 0, n));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * The seen file's live entries (of the index written by run `by`), the latest first, and how many lines it
 * holds in all.
 */
function readSeen(dir: string, by: number | undefined): { entries: SeenEntry[]; lines: number } {
  let text: string;
  try {
    text = readFileSync(join(dir, SEEN_FILE), 'utf8');
  } catch {
    return { entries: [], lines: 0 };
  }
  const lines = text.split('\n').filter((l) => l !== '');
  const live = new Map<number, SeenEntry>();
  if (by !== undefined) {
    for (const line of lines) {
      let e: SeenEntry & { by?: unknown };
      try {
        e = JSON.parse(line) as SeenEntry & { by?: unknown };
      } catch {
        continue;
      }
      if (e?.by !== by || typeof e.base !== 'number' || typeof e.digest !== 'string' || typeof e.runId !== 'number' || typeof e.seen !== 'string') continue;
      live.delete(e.base);
      live.set(e.base, { base: e.base, digest: e.digest, runId: e.runId, seen: e.seen });
    }
  }
  return { entries: [...live.values()].reverse().slice(0, SEEN_KEPT), lines: lines.length };
}

/**
 * Notes `changed` entries (of the index written by run `by`) in the seen file: appended, or, once the file is
 * long, the file rewritten with only the live ones, `live` (the latest first).
 */
function noteSeen(dir: string, by: number, changed: readonly SeenEntry[], live: readonly SeenEntry[], lines: number): void {
  if (changed.length === 0) return;
  const text = (entries: readonly SeenEntry[]): string =>
    entries
      .slice()
      .reverse()
      .map((e) => `${JSON.stringify({ by, base: e.base, digest: e.digest, runId: e.runId, seen: e.seen })}\n`)
      .join('');
  if (lines + changed.length > SEEN_COMPACT_AT) replaceFile(dir, SEEN_FILE, (temp) => writeFileSync(temp, text(live), { mode: 0o600 }));
  else appendLines(join(dir, SEEN_FILE), text(changed));
}

/** Rows an earlier run folded, shown as seen by the latest run that said the same. */
function applySeen(rows: DriftRow[], entries: readonly SeenEntry[]): void {
  const later = new Map<number, SeenEntry>();
  for (const e of entries) if (e.runId !== e.base) later.set(e.base, e);
  if (later.size === 0) return;
  for (const row of rows) {
    const e = later.get(Number(row[7]));
    if (e !== undefined) {
      row[7] = e.runId;
      row[8] = e.seen;
    }
  }
}

function write(dir: string, rows: readonly DriftRow[], by?: number): void {
  replaceFile(dir, DRIFT_FILE, (temp) => writeJsonList(temp, `{"v":${VERSION},${by === undefined ? '' : `"by":${by},`}"rows":`, rows, '}'));
}

function read(dir: string): Map<string, DriftEntry> | undefined {
  const index = readIndex(dir);
  if (!index) return undefined;
  applySeen(index.rows, readSeen(dir, index.by).entries);
  const latest = new Map<string, DriftEntry>();
  for (const r of index.rows) latest.set(driftKey(r[0], r[1]), driftFromRow(r));
  return latest;
}

/**
 * What a run's results say about drift, as a sha256 digest: each result's host, id, type, name, state,
 * status and comment, in order, each field with its length. Undefined for a small run, and for one with
 * a result that says nothing about its resource (that result leaves an existing row as it is, so the rows
 * holding the run's id are not then all of the resources it named).
 */
export function driftDigest(results: readonly NodeResult[], mode: RunMode, fallback: string): string | undefined {
  if (results.length < DIGEST_FROM) return undefined;
  const hash = process.getBuiltinModule('node:crypto').createHash('sha256');
  let text = '';
  for (let i = 0; i < results.length; i++) {
    const r = results[i] as NodeResult;
    const state = driftStateOf(r.status, mode);
    if (state === undefined) return undefined;
    const host = hostOf(r, fallback);
    const id = String(r.id);
    const type = String(r.type);
    const name = String(r.name);
    const status = String(r.status);
    const comment = String(r.comment);
    text += `${host.length} ${id.length} ${type.length} ${name.length} ${state} ${status.length} ${comment.length}\n${host}${id}${type}${name}${status}${comment}\n`;
    if (text.length > 65536) {
      hash.update(text);
      text = '';
    }
  }
  hash.update(text);
  return hash.digest('hex');
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

/** The last index read per directory, reused while its files are unchanged (a dashboard reads it often). */
const cache = new Map<string, { stamp: string; latest: Map<string, DriftEntry> }>();

function stampOf(dir: string): string | undefined {
  const one = (name: string): string => {
    try {
      const s = statSync(join(dir, name));
      return `${s.ino}:${s.mtimeMs}:${s.size}`;
    } catch {
      return '-';
    }
  };
  const index = one(DRIFT_FILE);
  return index === '-' ? undefined : `${index}/${one(SEEN_FILE)}`;
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
 * in as it comes (in run order), and `save` writes the index. A run that says what one of the last runs
 * that folded rows in said (see the top of this file) reads and writes only the seen file. Call under the
 * store lock, with all of the run's results (for its digest). An index that cannot be read or rebuilt
 * fails `save`, not the run's record (written between the two).
 */
export function driftFold(
  dir: string,
  run: { id: number; start: string; mode: RunMode },
  host: string,
  results: readonly NodeResult[],
): { fold: (results: readonly NodeResult[]) => void; save: () => void } {
  const digest = driftDigest(results, run.mode, host);
  let by: number | undefined;
  let seen: { entries: SeenEntry[]; lines: number } = { entries: [], lines: 0 };
  if (digest !== undefined) {
    by = indexWriter(dir);
    seen = readSeen(dir, by);
    const same = seen.entries.find((e) => e.digest === digest);
    if (same !== undefined && by !== undefined) {
      const writer = by;
      const { entries, lines } = seen;
      const now = { ...same, runId: run.id, seen: run.start };
      return { fold: () => {}, save: () => noteSeen(dir, writer, [now], [now, ...entries.filter((e) => e !== same)], lines) };
    }
  }
  let rows: DriftRow[];
  try {
    const index = readIndex(dir);
    if (index) {
      if (digest === undefined || index.by !== by) seen = readSeen(dir, index.by);
      applySeen(index.rows, seen.entries);
      rows = index.rows;
    } else {
      seen = { entries: [], lines: seen.lines };
      rows = [...rebuild(dir).values()].map(driftToRow);
    }
  } catch (e) {
    return {
      fold: () => {},
      save: () => {
        throw e;
      },
    };
  }
  // After applySeen an entry's rows hold the id of its latest run: that is their base from now on. A row
  // this run rewrites ends its entry.
  const kept = new Map(seen.entries.map((e) => [e.runId, { base: e.runId, digest: e.digest, runId: e.runId, seen: e.seen }]));
  const ended = (previous: number): void => {
    kept.delete(previous);
  };
  return {
    fold: driftRowsFolder(rows, run, host, kept.size > 0 ? ended : undefined),
    save: () => {
      write(dir, rows, run.id);
      const now = digest === undefined ? [] : [{ base: run.id, digest, runId: run.id, seen: run.start }];
      const live = [...now, ...kept.values()].slice(0, SEEN_KEPT);
      noteSeen(dir, run.id, live, live, seen.lines);
    },
  };
}
