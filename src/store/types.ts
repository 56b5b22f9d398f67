/**
 * The run store as the CLI and the dashboard see it: one interface, two backends (the embedded file store,
 * the default, and PostgreSQL to share one history between controllers and people).
 */
import type { NodeResult, RunMode } from '../core/model.js';
import type { RunCounts, RunSummary } from './history.js';

/** A node result as stored: it names the machine it acted on. */
export interface StoredResult extends NodeResult {
  readonly host: string;
}

/** What a run came to, for lists and filters. */
export type RunOutcome = 'running' | 'interrupted' | 'failed' | 'changed' | 'ok';
export const RUN_OUTCOMES: readonly RunOutcome[] = ['running', 'interrupted', 'failed', 'changed', 'ok'];

/** A run as listed: the summary plus the machines its results name and its outcome. */
export interface StoredRunSummary extends RunSummary {
  readonly hosts: readonly string[];
  readonly outcome: RunOutcome;
}

export interface StoredRun extends StoredRunSummary {
  readonly results: readonly StoredResult[];
  /** The text the front end printed for the run (Salt's highstate, a converge plan, …), when recorded. */
  readonly output?: string;
  /** The requisites between its nodes, when the front end compiled a graph. */
  readonly edges?: readonly RunEdge[];
}

export interface RunEdge {
  readonly from: string;
  readonly to: string;
  readonly kind: string;
}

/** Filters for listing runs; every given one must hold. */
export interface RunQuery {
  /** ISO time or Date: runs that started at or after it. */
  readonly since?: string | Date;
  /** Runs that started before it. */
  readonly until?: string | Date;
  readonly frontEnd?: string;
  /** Runs with at least one result on this machine. */
  readonly host?: string;
  readonly mode?: RunMode;
  readonly outcome?: RunOutcome;
  /** Runs one of whose sources contains this text. */
  readonly source?: string;
  /** Page size (default 50). */
  readonly limit?: number;
  /** Cursor: runs with an id below this one (the `next` of the previous page). */
  readonly before?: number;
}

export interface Page<T> {
  readonly items: readonly T[];
  /** Pass as `before` to get the next page; absent on the last page. */
  readonly next?: number;
}

/** The latest known state of a resource: in sync, drifted (a check found changes to make), failed. */
export type DriftState = 'ok' | 'drifted' | 'failed' | 'unknown';
export const DRIFT_STATES: readonly DriftState[] = ['ok', 'drifted', 'failed', 'unknown'];

export interface DriftEntry {
  readonly host: string;
  readonly resource: string;
  readonly type: string;
  readonly name: string;
  readonly state: DriftState;
  /** The node status the last run gave it. */
  readonly status: string;
  readonly comment: string;
  /** The last run that saw it, and when that run started. */
  readonly runId: number;
  readonly seen: string;
  /** Since when (ISO time, and the run) it has been in this state. */
  readonly since: string;
  readonly sinceRunId: number;
}

export interface DriftQuery {
  readonly host?: string;
  readonly state?: DriftState;
  readonly type?: string;
  /** Resources whose id contains this text. */
  readonly resource?: string;
}

/** One run's word on one resource. */
export interface ResourceEvent {
  readonly runId: number;
  readonly start: string;
  readonly mode: RunMode;
  readonly frontEnd: string;
  readonly result: StoredResult;
}

export interface ResourceHistoryQuery {
  readonly host: string;
  readonly resource: string;
  readonly limit?: number;
  readonly before?: number;
}

export interface PruneOptions {
  /** Keep the newest N runs. */
  readonly keep?: number;
  /** Remove runs that started before this time. */
  readonly olderThan?: Date;
}

export interface BeginInfo {
  readonly frontEnd: string;
  readonly source: readonly string[];
  readonly mode: RunMode;
  readonly command?: string;
  readonly start?: Date | string;
}

export interface FinishInfo {
  readonly results: readonly NodeResult[];
  /**
   * The form in which a result is kept (contents as hashes, long texts cut), when it differs from the
   * result: applied as the results are written, a piece at a time, so that the kept copies of a large run
   * never all live at once. Without it the results are kept as given.
   */
  readonly stored?: (r: NodeResult) => NodeResult;
  readonly exitCode: number;
  readonly output?: string;
  readonly edges?: readonly RunEdge[];
  readonly end?: Date | string;
}

export interface StoreRunHandle {
  readonly id: number;
  readonly start: string;
}

/** The run lock: held from before a run acts until it is recorded. */
export interface RunLock {
  release(): Promise<void>;
}

export interface LockOptions {
  readonly timeoutMs: number;
  /** The command line shown to a waiter (default: this process's), e.g. with secrets masked. */
  readonly command?: string;
  readonly onWait?: (holder: string | undefined) => void;
}

export interface RunStore {
  readonly kind: 'file' | 'postgres';
  /** Where it is, for messages (a database URL without its password). */
  readonly location: string;
  lock(options: LockOptions): Promise<RunLock>;
  beginRun(info: BeginInfo): Promise<StoreRunHandle>;
  /**
   * Results a run in progress finished since the last call, for the live view: each call adds to what
   * the run has so far (so a long run writes each result once, not all of them again every time).
   */
  progress(handle: StoreRunHandle, added: readonly NodeResult[]): Promise<void>;
  finishRun(handle: StoreRunHandle, info: FinishInfo): Promise<void>;
  listRuns(query?: RunQuery): Promise<Page<StoredRunSummary>>;
  /** A run by id (a number, `#42`, `last`), with all its results; undefined when there is none. */
  getRun(id: number | string): Promise<StoredRun | undefined>;
  drift(query?: DriftQuery): Promise<DriftEntry[]>;
  resourceHistory(query: ResourceHistoryQuery): Promise<Page<ResourceEvent>>;
  /** Removes runs; returns how many. Running runs are kept. */
  prune(options: PruneOptions): Promise<number>;
  close(): Promise<void>;
}

/** Every run counted the same way in both backends. */
export type { RunCounts };
