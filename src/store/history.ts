/**
 * Run history of a state directory.
 *
 * Run ids are small integers, 1, 2, 3, … per state directory, so that `cairn history 42` is easy to type.
 * They are handed out under the state-directory lock (see lock.ts): callers hold the lock from
 * `beginRun` to `finishRun`.
 *
 * Layout:
 *   runs.jsonl     one summary line per event, appended: a `running` line when a run begins and a
 *                  `finished` line when it ends. The last line for an id wins; a run with only a
 *                  `running` line whose process is gone was interrupted (crash, SIGKILL, power loss).
 *   runs/ID.json   the full record with every node result, written atomically (temp file + rename)
 *                  before the `finished` line is appended.
 *
 * Appending never reads more than the tail of runs.jsonl, and listing the latest runs reads it from the
 * end, so a long history costs nothing per run. A line that does not parse (a torn write, a hand edit) is
 * skipped.
 */
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, readSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { NodeResult, NodeStatus, RunMode } from '../core/model.js';
import { storeIoError } from './errors.js';
import { currentProcess, identityFrom, processState } from './process-identity.js';
import { recordedCommandLine } from '../core/command-line.js';
import { replaceFile } from './temp-name.js';
import { writeJsonList } from './json-list.js';
import { appendLines } from './append-line.js';

export type RunCounts = Record<NodeStatus, number>;

/** `interrupted` is never written: it is how a `running` run whose process is gone is reported. */
export type RunState = 'running' | 'finished' | 'interrupted';

export interface RunSummary {
  readonly id: number;
  readonly state: RunState;
  /** Front end that compiled the run: `salt`, `converge`, `zapusk`, `otter`, `inmanta`, or `graph`. */
  readonly frontEnd: string;
  /** The input files (or other sources, e.g. `state.sls web`) the run was made from. */
  readonly source: readonly string[];
  readonly mode: RunMode;
  /** The command line, for display. */
  readonly command: string;
  /** ISO times. */
  readonly start: string;
  readonly end?: string;
  readonly durationMs?: number;
  readonly counts?: RunCounts;
  readonly exitCode?: number;
  readonly pid: number;
  /** The machine cairn ran on (the controller). */
  readonly host: string;
  /** The machines the results name (set when the run finished). */
  readonly hosts?: readonly string[];
}

export interface RunRecord extends RunSummary {
  /** Per-node results; empty for a run that did not finish (or whose record file was lost). */
  readonly results: readonly NodeResult[];
  /** The text the front end printed, when recorded. */
  readonly output?: string;
  readonly edges?: readonly { readonly from: string; readonly to: string; readonly kind: string }[];
}

export interface BeginRunInfo {
  readonly frontEnd: string;
  readonly source: readonly string[];
  readonly mode: RunMode;
  readonly command?: string;
  readonly start?: Date | string;
}

export interface FinishRunInfo {
  readonly results: readonly NodeResult[];
  readonly exitCode: number;
  readonly end?: Date | string;
  /** The machines the results name, kept in the summary line so that lists can filter on them. */
  readonly hosts?: readonly string[];
  readonly output?: string;
  readonly edges?: readonly { readonly from: string; readonly to: string; readonly kind: string }[];
  /** The form in which a result is kept, applied a piece of results at a time (FinishInfo.stored). */
  readonly stored?: (r: NodeResult) => NodeResult;
  /** Given each piece of kept results after it is written, in run order. */
  readonly onStored?: (piece: readonly NodeResult[]) => void;
}

/** A run that has begun; pass it to finishRun. */
export interface RunHandle {
  readonly dir: string;
  readonly id: number;
  readonly summary: RunSummary;
}

export const SUMMARY_FILE = 'runs.jsonl';
export const RECORDS_DIR = 'runs';
/** A running run's results so far, one JSON line each, next to where its record will be. */
export const PARTIAL_SUFFIX = '.partial.jsonl';
const TAIL_CHUNK = 64 * 1024;
const FORMAT_VERSION = 1;

export function emptyCounts(): RunCounts {
  return { ok: 0, changed: 0, pending: 0, failed: 0, skipped: 0, unresolvable: 0 };
}

export function countResults(results: readonly NodeResult[]): RunCounts {
  const counts = emptyCounts();
  for (const r of results) if (r.status in counts) counts[r.status]++;
  return counts;
}

/**
 * Records the start of a run: allocates the next id and appends a `running` line. Call with the state
 * directory (created, e.g. by ensureStateDir) locked.
 */
export function beginRun(dir: string, info: BeginRunInfo): RunHandle {
  const abs = resolve(dir);
  const who = currentProcess();
  const id = nextRunId(abs);
  const summary: RunSummary = {
    id,
    state: 'running',
    frontEnd: info.frontEnd,
    source: [...info.source],
    mode: info.mode,
    command: info.command ?? recordedCommandLine(),
    start: isoTime(info.start),
    pid: who.pid,
    host: who.host,
  };
  try {
    appendSummary(abs, { ...summary, ...identityExtras() });
  } catch (e) {
    throw storeIoError('io', `cannot record run ${id} in ${join(abs, SUMMARY_FILE)}`, e);
  }
  return { dir: abs, id, summary };
}

/**
 * Records the end of a run: writes runs/ID.json with every result, then appends the `finished` line.
 * Returns the full record.
 */
export function finishRun(handle: RunHandle, info: FinishRunInfo): RunRecord {
  const end = isoTime(info.end);
  const summary: RunSummary = {
    ...handle.summary,
    state: 'finished',
    end,
    durationMs: Math.max(0, Date.parse(end) - Date.parse(handle.summary.start)),
    counts: countResults(info.results),
    exitCode: info.exitCode,
    ...(info.hosts ? { hosts: [...info.hosts] } : {}),
  };
  try {
    writeRecordFile(handle.dir, summary, info.results, { output: info.output, edges: info.edges, stored: info.stored, onStored: info.onStored });
    appendSummary(handle.dir, summary);
  } catch (e) {
    throw storeIoError('io', `cannot record run ${handle.id} in ${handle.dir}`, e);
  }
  return { ...summary, results: info.results, ...(info.output !== undefined ? { output: info.output } : {}), ...(info.edges ? { edges: info.edges } : {}) };
}

/** beginRun and finishRun in one, for a run recorded after the fact. */
export function recordRun(dir: string, info: BeginRunInfo & FinishRunInfo): RunRecord {
  return finishRun(beginRun(dir, info), info);
}

/** The latest runs, newest first (all of them without a limit). */
export function listRuns(dir: string, options: { limit?: number } = {}): RunSummary[] {
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  if (limit <= 0) return [];
  const byId = new Map<number, RunSummary>();
  readLinesBackward(join(resolve(dir), SUMMARY_FILE), (line) => {
    const s = parseSummary(line);
    if (!s) return true;
    // Reading backwards, the first line seen for an id is its latest.
    if (!byId.has(s.id)) byId.set(s.id, s);
    // Runs are appended in id order under the lock: an id beyond the limit means the newer ones are complete.
    return byId.size <= limit;
  });
  return [...byId.values()]
    .sort((a, b) => b.id - a.id)
    .slice(0, Number.isFinite(limit) ? limit : undefined)
    .map(withLiveness);
}

/**
 * Calls `visit` with every run, newest first (the latest line of each id), until it returns false. Ids
 * come in descending order except where a nested run (one started by a step of another) finished inside
 * its parent; callers that page sort what they collected.
 */
export function scanRuns(dir: string, visit: (s: RunSummary) => boolean): void {
  const seen = new Set<number>();
  readLinesBackward(join(resolve(dir), SUMMARY_FILE), (line) => {
    const s = parseSummary(line);
    if (!s || seen.has(s.id)) return true;
    seen.add(s.id);
    return visit(withLiveness(s));
  });
}

/**
 * One run with its node results, or undefined when there is no such run. `id` is a number or its text
 * (`"42"`, `"#42"`), or `"last"` / `"latest"`.
 */
export function getRun(dir: string, id: number | string): RunRecord | undefined {
  const abs = resolve(dir);
  const wanted = parseRunId(id, abs);
  if (wanted === undefined) return undefined;
  const fromFile = readRecordFile(abs, wanted);
  // The record file is written before the `finished` line, so when it exists it is the whole story.
  if (fromFile) return fromFile;
  const summary = findSummary(abs, wanted);
  return summary && { ...withLiveness(summary), results: [] };
}

/** Parses a run id as typed by a user; undefined when it is not one. */
export function parseRunId(id: number | string, dir?: string): number | undefined {
  if (typeof id === 'number') return Number.isSafeInteger(id) && id > 0 ? id : undefined;
  const text = id.trim();
  if ((text === 'last' || text === 'latest') && dir !== undefined) return lastRunId(resolve(dir)) || undefined;
  const m = /^#?(\d{1,15})$/.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  return n > 0 ? n : undefined;
}

// ---- ids --------------------------------------------------------------------------------------------

function lastRunId(dir: string): number {
  let last = 0;
  readLinesBackward(join(dir, SUMMARY_FILE), (line) => {
    const s = parseSummary(line);
    if (!s) return true;
    last = s.id;
    return false;
  });
  return last;
}

function nextRunId(dir: string): number {
  let id = lastRunId(dir) + 1;
  // A record file without its summary lines (runs.jsonl truncated or lost) keeps its id.
  while (exists(join(dir, RECORDS_DIR, `${id}.json`))) id++;
  return id;
}

// ---- runs.jsonl ---------------------------------------------------------------------------------------

/** Extra identity fields kept on the `running` line, to tell an interrupted run after a pid is reused. */
function identityExtras(): Record<string, unknown> {
  const { boot, pstart } = currentProcess();
  return { boot, pstart };
}

function appendSummary(dir: string, summary: RunSummary | Record<string, unknown>): void {
  appendLines(join(dir, SUMMARY_FILE), `${JSON.stringify({ v: FORMAT_VERSION, ...summary })}\n`);
}

const STATES: ReadonlySet<string> = new Set(['running', 'finished']);

function parseSummary(line: string): (RunSummary & { boot?: string; pstart?: number }) | undefined {
  if (line.length === 0 || line.charCodeAt(0) !== 0x7b) return undefined;
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const { id, state, start } = v;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0) return undefined;
  if (typeof state !== 'string' || !STATES.has(state) || typeof start !== 'string') return undefined;
  const out: Record<string, unknown> = {
    ...v,
    frontEnd: typeof v.frontEnd === 'string' ? v.frontEnd : '',
    source: Array.isArray(v.source) ? v.source.filter((s): s is string => typeof s === 'string') : [],
    command: typeof v.command === 'string' ? v.command : '',
    pid: typeof v.pid === 'number' ? v.pid : 0,
    host: typeof v.host === 'string' ? v.host : '',
  };
  delete out.v;
  return out as unknown as RunSummary & { boot?: string; pstart?: number };
}

/** A `running` run whose process is gone is reported as interrupted. Identity extras are not shown. */
function withLiveness(s: RunSummary & { boot?: string; pstart?: number }): RunSummary {
  const { boot: _boot, pstart: _pstart, ...rest } = s;
  if (s.state !== 'running') return rest;
  const who = identityFrom(s as unknown as Record<string, unknown>);
  return who && processState(who) === 'dead' ? { ...rest, state: 'interrupted' } : rest;
}

function findSummary(dir: string, id: number): (RunSummary & { boot?: string; pstart?: number }) | undefined {
  let found: (RunSummary & { boot?: string; pstart?: number }) | undefined;
  readLinesBackward(join(dir, SUMMARY_FILE), (line) => {
    const s = parseSummary(line);
    if (!s) return true;
    if (s.id === id) {
      found = s;
      return false;
    }
    return s.id > id;
  });
  return found;
}

/**
 * Calls `visit` with each line of a file, last line first, reading 64 KiB chunks from the end; stops when
 * `visit` returns false. A missing file has no lines.
 */
function readLinesBackward(path: string, visit: (line: string) => boolean): void {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  try {
    let pos = fstatSync(fd).size;
    // Bytes of a line whose start is in an earlier chunk; kept as bytes so a split UTF-8 sequence survives.
    let carry: Buffer = Buffer.alloc(0);
    while (pos > 0) {
      const size = Math.min(TAIL_CHUNK, pos);
      pos -= size;
      const chunk = Buffer.alloc(size);
      readSync(fd, chunk, 0, size, pos);
      let buf = carry.length > 0 ? Buffer.concat([chunk, carry]) : chunk;
      let end = buf.length;
      for (let i = end - 1; i >= 0; i--) {
        if (buf[i] !== 0x0a) continue;
        if (end > i + 1 && !visit(buf.toString('utf8', i + 1, end))) return;
        end = i;
      }
      buf = buf.subarray(0, end);
      carry = Buffer.from(buf);
    }
    if (carry.length > 0) visit(carry.toString('utf8'));
  } finally {
    closeSync(fd);
  }
}

// ---- runs/ID.json -------------------------------------------------------------------------------------

interface RecordExtra {
  readonly output?: string | undefined;
  readonly edges?: readonly unknown[] | undefined;
  readonly stored?: ((r: NodeResult) => NodeResult) | undefined;
  readonly onStored?: ((piece: readonly NodeResult[]) => void) | undefined;
}

function writeRecordFile(dir: string, summary: RunSummary, results: readonly NodeResult[], extra: RecordExtra = {}): void {
  const runsDir = join(dir, RECORDS_DIR);
  mkdirSync(runsDir, { recursive: true, mode: 0o700 });
  const head = JSON.stringify({ v: FORMAT_VERSION, ...summary, ...(extra.output !== undefined ? { output: extra.output } : {}), ...(extra.edges ? { edges: extra.edges } : {}) });
  const { stored, onStored } = extra;
  const piece = (items: readonly unknown[]): string => {
    const kept = stored ? (items as readonly NodeResult[]).map(stored) : (items as readonly NodeResult[]);
    const text = stringifyResults(kept);
    onStored?.(kept);
    return text;
  };
  replaceFile(runsDir, `${summary.id}.json`, (temp) => writeJsonList(temp, `${head.slice(0, -1)},"results":`, results, '}\n', piece));
}

/**
 * One JSON.stringify over a piece of the list: about twice as fast as a call per result (10,000 file results,
 * 2.7 MB, take about 10 ms). Results carry arbitrary change values; one that JSON cannot hold (a cycle, a
 * bigint) must not lose the run, so then each value is made safe instead.
 */
function stringifyResults(results: readonly unknown[]): string {
  try {
    return JSON.stringify(results);
  } catch {
    return JSON.stringify(jsonSafe(results, new Set()));
  }
}

/** A copy JSON can hold: bigints as strings, a reference back to an enclosing object as "[Circular]". */
function jsonSafe(value: unknown, ancestors: Set<object>): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object' || value === null) return value;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return jsonSafe(toJSON.call(value), ancestors);
  if (ancestors.has(value)) return '[Circular]';
  ancestors.add(value);
  const out = Array.isArray(value)
    ? value.map((v) => jsonSafe(v, ancestors))
    : Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonSafe(v, ancestors)]));
  ancestors.delete(value);
  return out;
}

function readRecordFile(dir: string, id: number): RunRecord | undefined {
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(readFileSync(join(dir, RECORDS_DIR, `${id}.json`), 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null || v.id !== id || !Array.isArray(v.results)) return undefined;
  const { v: _version, ...record } = v;
  return record as unknown as RunRecord;
}

function isoTime(t: Date | string | undefined): string {
  if (t === undefined) return new Date().toISOString();
  return typeof t === 'string' ? t : t.toISOString();
}

function exists(path: string): boolean {
  try {
    closeSync(openSync(path, 'r'));
    return true;
  } catch {
    return false;
  }
}
