/** The run store: state directories, the lock that keeps runs apart, and run history. */
export { StoreError, type StoreErrorCode } from './errors.js';
export {
  type BeginRunInfo,
  beginRun,
  countResults,
  emptyCounts,
  type FinishRunInfo,
  finishRun,
  getRun,
  listRuns,
  parseRunId,
  type RunCounts,
  type RunHandle,
  type RunRecord,
  type RunState,
  type RunSummary,
  recordRun,
} from './history.js';
export {
  type AcquireLockOptions,
  acquireLock,
  DEFAULT_LOCK_TIMEOUT_MS,
  type LockInfo,
  lockPath,
  readLock,
  releaseLockOnExit,
  type StateLock,
  tryAcquireLock,
} from './lock.js';
export { defaultStateDir, ensureStateDir } from './state-dir.js';
export { checkIsStore, FileRunStore } from './file-store.js';
export { openRunStore, storeUrl, type OpenStoreOptions } from './open.js';
export { parseAge } from './query.js';
export type * from './types.js';
