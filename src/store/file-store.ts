/** The embedded run store: a state directory of JSON files (history.ts), its lock file and drift index. */
import { appendFileSync, mkdirSync, readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { NodeResult } from '../core/model.js';
import { StoreError, storeIoError } from './errors.js';
import { driftFold, readDrift, SEEN_FILE } from './file-drift.js';
import { pruneFileStore } from './file-prune.js';
import { beginRun, finishRun, getRun, PARTIAL_SUFFIX, type RunHandle, type RunSummary, RECORDS_DIR, scanRuns, SUMMARY_FILE } from './history.js';
import { acquireLock, readLock, releaseLockOnExit } from './lock.js';
import { compareDrift, hostsOf, localHostName, matchesDriftQuery, matchesRunQuery, outcomeOf, pageSize, storedRun, withHosts } from './query.js';
import { ensureStateDir } from './state-dir.js';
import type {
  BeginInfo,
  DriftEntry,
  DriftQuery,
  FinishInfo,
  LockOptions,
  Page,
  PruneOptions,
  ResourceEvent,
  ResourceHistoryQuery,
  RunLock,
  RunQuery,
  RunStore,
  StoredRun,
  StoredRunSummary,
  StoreRunHandle,
} from './types.js';

/**
 * Set while a run holds the lock, and inherited by the commands it runs: a step that runs cairn again on
 * the same state dir (a Zapusk os step calling the tool) joins its parent's lock instead of waiting for it.
 */
export const HELD_LOCK_ENV = 'CAIRN_HELD_LOCK';

/** What cairn itself keeps in a store directory: the history, the lock, drift, and the front ends' own state (Otter's locks, Zapusk's instances). */
const STORE_FILES = new Set([SUMMARY_FILE, RECORDS_DIR, 'lock', 'drift.json', SEEN_FILE, 'otter-locks', 'zapusk']);

/**
 * Refuses a directory that holds files but none of a store's: pointing `--state-dir` at a home or project
 * directory by mistake must not read or prune it.
 */
export function checkIsStore(dir: string): void {
  let names: string[];
  try {
    if (!statSync(dir).isDirectory()) throw new StoreError('state-dir', `${dir} is not a cairn store: it is not a directory`);
    names = readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw storeIoError('state-dir', `cannot read the store ${dir}`, e);
  }
  const visible = names.filter((n) => !n.startsWith('.'));
  if (visible.length > 0 && !visible.some((n) => STORE_FILES.has(n))) {
    throw new StoreError('state-dir', `${dir} is not a cairn store (no ${SUMMARY_FILE} or ${RECORDS_DIR}/ in it); use --state-dir to choose another`);
  }
}

export function summaryOf(s: RunSummary): StoredRunSummary {
  return { ...s, hosts: s.hosts ?? [], outcome: outcomeOf(s) };
}

export class FileRunStore implements RunStore {
  readonly kind = 'file' as const;
  readonly location: string;
  readonly dir: string;
  private readonly handles = new Map<number, RunHandle>();

  constructor(dir: string) {
    this.dir = resolve(dir);
    this.location = this.dir;
  }

  private prepared = false;

  /** Creates the directory (owner-only) for a run that will write to it; once per store. */
  prepare(): void {
    if (this.prepared) return;
    checkIsStore(this.dir);
    ensureStateDir(this.dir);
    this.prepared = true;
  }

  async lock(options: LockOptions): Promise<RunLock> {
    this.prepare();
    const held = process.env[HELD_LOCK_ENV];
    if (held) {
      const sep = held.lastIndexOf(':');
      if (held.slice(0, sep) === this.dir && readLock(this.dir)?.token === held.slice(sep + 1)) return { release: async () => {} };
    }
    const lock = await acquireLock(this.dir, {
      ...(options.command !== undefined ? { command: options.command } : {}),
      timeoutMs: options.timeoutMs,
      onWait: (holder) => options.onWait?.(holder ? `pid ${holder.pid}` : undefined),
    });
    releaseLockOnExit(lock);
    process.env[HELD_LOCK_ENV] = `${this.dir}:${lock.info.token}`;
    return {
      release: async () => {
        lock.release();
        delete process.env[HELD_LOCK_ENV];
      },
    };
  }

  async beginRun(info: BeginInfo): Promise<StoreRunHandle> {
    this.prepare();
    const handle = beginRun(this.dir, info);
    this.handles.set(handle.id, handle);
    return { id: handle.id, start: handle.summary.start };
  }

  async progress(handle: StoreRunHandle, added: readonly NodeResult[]): Promise<void> {
    if (added.length === 0) return;
    try {
      mkdirSync(join(this.dir, RECORDS_DIR), { recursive: true, mode: 0o700 });
      // One line per result, appended in one write; a reader skips a line still being written.
      const lines = withHosts(added, localHostName()).map((r) => JSON.stringify(r));
      appendFileSync(this.partialPath(handle.id), `${lines.join('\n')}\n`, { mode: 0o600 });
    } catch {
      // The live view is best effort; the record written at the end is what counts.
    }
  }

  async finishRun(handle: StoreRunHandle, info: FinishInfo): Promise<void> {
    const begun = this.handles.get(handle.id);
    if (!begun) throw new Error(`run ${handle.id} was not begun by this store`);
    // A result without a host is the run's first host's: recorded as it is, given its host when read.
    const local = localHostName();
    const hosts = hostsOf(info.results, local);
    const edges = info.edges?.map((e) => ({ from: e.from, to: e.to, kind: e.kind }));
    // The drift index is folded from the kept results as each piece is written, then saved after the record.
    const drift = driftFold(this.dir, begun.summary, hosts[0] ?? local, info.results);
    finishRun(begun, { ...info, hosts, edges, onStored: drift.fold });
    this.handles.delete(handle.id);
    tryUnlink(this.partialPath(handle.id));
    try {
      drift.save();
    } catch (e) {
      throw storeIoError('io', `cannot update the drift index in ${this.dir}`, e);
    }
  }

  async listRuns(query: RunQuery = {}): Promise<Page<StoredRunSummary>> {
    checkIsStore(this.dir);
    const size = pageSize(query.limit);
    const found: StoredRunSummary[] = [];
    scanRuns(this.dir, (s) => {
      if (query.before !== undefined && s.id >= query.before) return true;
      const summary = summaryOf(s);
      if (matchesRunQuery(summary, query)) found.push(summary);
      // One past the page tells whether there is a next page.
      return found.length <= size;
    });
    found.sort((a, b) => b.id - a.id);
    const items = found.slice(0, size);
    const last = items[items.length - 1];
    return found.length > size && last ? { items, next: last.id } : { items };
  }

  async getRun(id: number | string): Promise<StoredRun | undefined> {
    checkIsStore(this.dir);
    const record = getRun(this.dir, id);
    if (!record) return undefined;
    const summary = summaryOf(record);
    let results = record.results;
    if (record.state === 'running') results = this.readPartial(record.id) ?? results;
    return storedRun(summary, results, { output: record.output, edges: record.edges });
  }

  async drift(query: DriftQuery = {}): Promise<DriftEntry[]> {
    checkIsStore(this.dir);
    return [...readDrift(this.dir).values()].filter((e) => matchesDriftQuery(e, query)).sort(compareDrift);
  }

  async resourceHistory(query: ResourceHistoryQuery): Promise<Page<ResourceEvent>> {
    checkIsStore(this.dir);
    const size = pageSize(query.limit);
    const found: ResourceEvent[] = [];
    scanRuns(this.dir, (s) => {
      if (query.before !== undefined && s.id >= query.before) return true;
      if (s.hosts && !s.hosts.includes(query.host)) return true;
      const record = getRun(this.dir, s.id);
      const hit = record && withHosts(record.results, s.hosts?.[0] ?? localHostName()).find((r) => r.id === query.resource && r.host === query.host);
      if (hit) found.push({ runId: s.id, start: s.start, mode: s.mode, frontEnd: s.frontEnd, result: hit });
      return found.length <= size;
    });
    found.sort((a, b) => b.runId - a.runId);
    const items = found.slice(0, size);
    const last = items[items.length - 1];
    return found.length > size && last ? { items, next: last.runId } : { items };
  }

  async prune(options: PruneOptions): Promise<number> {
    checkIsStore(this.dir);
    return pruneFileStore(this.dir, options);
  }

  async close(): Promise<void> {}

  private partialPath(id: number): string {
    return join(this.dir, RECORDS_DIR, `${id}${PARTIAL_SUFFIX}`);
  }

  private readPartial(id: number): NodeResult[] | undefined {
    let text: string;
    try {
      text = readFileSync(this.partialPath(id), 'utf8');
    } catch {
      return undefined;
    }
    const results: NodeResult[] = [];
    for (const line of text.split('\n')) {
      if (line === '') continue;
      try {
        results.push(JSON.parse(line) as NodeResult);
      } catch {
        // The last line of a run still writing it.
      }
    }
    return results;
  }
}

function tryUnlink(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}
