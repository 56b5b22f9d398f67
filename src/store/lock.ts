/**
 * An exclusive lock on a state directory, so that two cairn runs never interleave.
 *
 * The lock is the file `<dir>/lock`, holding JSON {pid, started, command, host, token, …}. It is created
 * complete: the content goes to a temp file first, then `link()` puts it at `lock`, which fails when a
 * lock already exists (the same exclusivity as O_EXCL, without a moment where the file is empty).
 *
 * A lock whose holder is gone (crash, SIGKILL, reboot) is stale and is taken over. Taking over must not let
 * two waiters both win: one removing the stale file and creating its own, the other then removing that
 * fresh file because it still believes it is the stale one. So a takeover happens under a short-lived
 * guard file created with O_EXCL; under it the waiter renames `lock` aside, checks that what it moved is
 * byte for byte the stale lock it judged (and puts it back otherwise), and only then creates its own.
 */
import {
  closeSync,
  linkSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { StoreError, storeIoError } from './errors.js';
import { ensureStateDir } from './state-dir.js';
import { currentProcess, identityFrom, type ProcessIdentity, processState } from './process-identity.js';
import { recordedCommandLine } from '../core/command-line.js';

/** What a lock file says about its holder. */
export interface LockInfo extends ProcessIdentity {
  /** ISO time the holding run asked for the lock (it may have waited a moment before getting it). */
  readonly started: string;
  /** The command line of the holding run, for the message a waiter sees. */
  readonly command: string;
  /** Random; tells our lock from a later one by the same pid. */
  readonly token: string;
}

export interface AcquireLockOptions {
  /** How long to wait for another run to finish (`--lock-timeout`); 0 tries once. Default 10 s. */
  readonly timeoutMs?: number;
  /** Shown to a run that has to wait for us. */
  readonly command?: string;
  /** Called once when the lock is busy and we start waiting (to print "waiting for pid …"). */
  readonly onWait?: (holder: LockInfo | undefined) => void;
  /** First poll interval; it grows by half each time up to 500 ms. Default 50 ms. */
  readonly pollMs?: number;
}

export interface StateLock {
  readonly dir: string;
  readonly path: string;
  readonly info: LockInfo;
  /** Whether this handle still holds the lock (false after release). */
  readonly held: boolean;
  /**
   * Removes the lock file if it is still ours (same content). Returns whether it removed it. Synchronous
   * so that it works from a process 'exit' handler; safe to call twice.
   */
  release(): boolean;
}

export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;
const MAX_POLL_MS = 500;
/** An unreadable lock file younger than this may be in the middle of a non-atomic create (fallback path). */
const UNPARSABLE_GRACE_MS = 5_000;
/** A takeover guard is held for microseconds; one this old belongs to a process that died holding it. */
const GUARD_STALE_MS = 5_000;
/** Leftover temp files of crashed runs older than this are removed when a lock is taken. */
const LEFTOVER_MS = 60_000;

export function lockPath(dir: string): string {
  return join(resolve(dir), 'lock');
}

/** The current holder of the lock on `dir`, or undefined when it is free or the file is unreadable. */
export function readLock(dir: string): LockInfo | undefined {
  try {
    return parseLock(readFileSync(lockPath(dir), 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Takes the lock on the state directory `dir` (creating the directory if needed), waiting up to
 * `timeoutMs` for another run to release it. Throws StoreError('locked') with a message naming the
 * holder when time runs out, StoreError('state-dir') when the directory cannot be created or written.
 */
export async function acquireLock(dir: string, options: AcquireLockOptions = {}): Promise<StateLock> {
  const timeoutMs = Math.max(0, options.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS);
  const deadline = Date.now() + timeoutMs;
  const attempt = new Attempt(ensureStateDir(dir), options.command ?? commandLine());
  try {
    let delay = Math.max(1, options.pollMs ?? 50);
    let waited = false;
    for (;;) {
      const outcome = attempt.tryOnce();
      if (outcome.acquired) return attempt.lock();
      const left = deadline - Date.now();
      if (left <= 0) throw lockedError(attempt.dir, outcome.holder, outcome.raw, timeoutMs);
      if (!waited) {
        waited = true;
        options.onWait?.(outcome.holder);
      }
      // Jitter keeps several waiters from polling in lockstep after a release.
      await sleep(Math.min(left, delay * (0.8 + Math.random() * 0.4)));
      delay = Math.min(MAX_POLL_MS, delay * 1.5);
    }
  } catch (e) {
    throw storeIoError('state-dir', `cannot lock state directory ${attempt.dir}`, e);
  } finally {
    attempt.cleanup();
  }
}

/** One try, no waiting: the lock, or undefined when another live run holds it. */
export function tryAcquireLock(dir: string, options: Pick<AcquireLockOptions, 'command'> = {}): StateLock | undefined {
  const attempt = new Attempt(ensureStateDir(dir), options.command ?? commandLine());
  try {
    return attempt.tryOnce().acquired ? attempt.lock() : undefined;
  } catch (e) {
    throw storeIoError('state-dir', `cannot lock state directory ${attempt.dir}`, e);
  } finally {
    attempt.cleanup();
  }
}

/**
 * Releases the lock when the process exits, and on SIGINT/SIGTERM/SIGHUP when nothing else handles that
 * signal (then the signal is raised again, so the process still dies of it with the usual status). When
 * the program has its own handler for a signal (a graceful stop), the lock stays held until it exits.
 * Returns a function that removes these hooks; `release()` removes them too.
 */
export function releaseLockOnExit(lock: StateLock): () => void {
  if (!(lock instanceof HeldLock)) throw new TypeError('releaseLockOnExit: not a lock from acquireLock');
  return lock.hookExit();
}

type Outcome = { acquired: true } | { acquired: false; holder: LockInfo | undefined; raw: string | undefined };

class Attempt {
  readonly path: string;
  readonly info: LockInfo;
  readonly content: string;
  private temp: string | undefined;

  constructor(
    readonly dir: string,
    command: string,
  ) {
    this.path = join(dir, 'lock');
    this.info = { ...currentProcess(), started: new Date().toISOString(), command, token: lockToken() };
    this.content = `${JSON.stringify(this.info)}\n`;
  }

  lock(): StateLock {
    sweepLeftovers(this.dir);
    return new HeldLock(this.dir, this.path, this.info, this.content);
  }

  tryOnce(): Outcome {
    // A lock that vanishes between our create and our read is simply tried again; a few rounds suffice.
    for (let round = 0; round < 5; round++) {
      if (this.create()) return { acquired: true };
      let raw: string;
      try {
        raw = readFileSync(this.path, 'utf8');
      } catch (e) {
        if (isErrno(e, 'ENOENT')) continue;
        throw e;
      }
      const holder = parseLock(raw);
      if (!isStale(this.path, holder)) return { acquired: false, holder, raw };
      const taken = this.takeOver(raw);
      if (taken === 'acquired') return { acquired: true };
      if (taken === 'busy') return { acquired: false, holder, raw };
    }
    return { acquired: false, holder: readLock(this.dir), raw: undefined };
  }

  /** Creates `lock` with our content; false when one exists. */
  private create(): boolean {
    if (this.temp === undefined) {
      const temp = join(this.dir, `lock.${this.info.token}.tmp`);
      writeFileSync(temp, this.content, { mode: 0o600, flag: 'wx' });
      this.temp = temp;
    }
    try {
      linkSync(this.temp, this.path);
      return true;
    } catch (e) {
      if (isErrno(e, 'EEXIST')) return false;
      if (!isErrno(e, 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV')) throw e;
    }
    // A file system without hard links: O_EXCL create, then write (readers allow for the brief empty file).
    let fd: number;
    try {
      fd = openSync(this.path, 'wx', 0o600);
    } catch (e) {
      if (isErrno(e, 'EEXIST')) return false;
      throw e;
    }
    try {
      writeSync(fd, this.content);
    } finally {
      closeSync(fd);
    }
    return true;
  }

  /** Replaces the stale lock whose content was `staleRaw` with ours. 'retry': the lock went away meanwhile. */
  private takeOver(staleRaw: string): 'acquired' | 'busy' | 'retry' {
    const guard = join(this.dir, 'lock.takeover');
    try {
      writeFileSync(guard, this.content, { mode: 0o600, flag: 'wx' });
    } catch (e) {
      if (!isErrno(e, 'EEXIST')) throw e;
      clearDeadGuard(guard);
      return 'busy';
    }
    try {
      const aside = join(this.dir, `lock.stale.${this.info.token}`);
      try {
        renameSync(this.path, aside);
      } catch (e) {
        if (isErrno(e, 'ENOENT')) return 'retry';
        throw e;
      }
      let moved: string | undefined;
      try {
        moved = readFileSync(aside, 'utf8');
      } catch {
        moved = undefined;
      }
      if (moved !== staleRaw) {
        // Not the lock we judged stale (only possible if a guard was cleared under a live waiter): put it back.
        try {
          linkSync(aside, this.path);
        } catch {
          // Someone created a new lock meanwhile; theirs stands.
        }
        unlinkQuiet(aside);
        return 'busy';
      }
      unlinkQuiet(aside);
      return this.create() ? 'acquired' : 'busy';
    } finally {
      try {
        if (readFileSync(guard, 'utf8') === this.content) unlinkSync(guard);
      } catch {
        // Already gone.
      }
    }
  }

  cleanup(): void {
    if (this.temp !== undefined) unlinkQuiet(this.temp);
    this.temp = undefined;
  }
}

const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

class HeldLock implements StateLock {
  private isHeld = true;
  private unhook: (() => void) | undefined;

  constructor(
    readonly dir: string,
    readonly path: string,
    readonly info: LockInfo,
    private readonly content: string,
  ) {}

  get held(): boolean {
    return this.isHeld;
  }

  release(): boolean {
    this.unhook?.();
    if (!this.isHeld) return false;
    this.isHeld = false;
    let raw: string;
    try {
      raw = readFileSync(this.path, 'utf8');
    } catch {
      return false;
    }
    if (raw !== this.content) return false;
    // Nobody replaces a live holder's lock (takeover needs us dead), so the file is still ours here.
    try {
      unlinkSync(this.path);
      return true;
    } catch {
      return false;
    }
  }

  hookExit(): () => void {
    if (this.unhook) return this.unhook;
    const onExit = (): void => {
      this.release();
    };
    const onSignal = (signal: NodeJS.Signals): void => {
      if (process.listenerCount(signal) > 1) return;
      this.release();
      process.kill(process.pid, signal);
    };
    process.once('exit', onExit);
    for (const s of SIGNALS) process.on(s, onSignal);
    const unhook = (): void => {
      process.removeListener('exit', onExit);
      for (const s of SIGNALS) process.removeListener(s, onSignal);
      if (this.unhook === unhook) this.unhook = undefined;
    };
    this.unhook = unhook;
    return unhook;
  }
}

function parseLock(raw: string): LockInfo | undefined {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const who = identityFrom(v);
  if (!who || typeof v.token !== 'string') return undefined;
  return {
    ...who,
    started: typeof v.started === 'string' ? v.started : '?',
    command: typeof v.command === 'string' ? v.command : '',
    token: v.token,
  };
}

function isStale(path: string, holder: LockInfo | undefined): boolean {
  if (holder) return processState(holder) === 'dead';
  try {
    return Date.now() - statSync(path).mtimeMs > UNPARSABLE_GRACE_MS;
  } catch {
    return false;
  }
}

function clearDeadGuard(guard: string): void {
  try {
    const holder = parseLock(readFileSync(guard, 'utf8'));
    const old = Date.now() - statSync(guard).mtimeMs > GUARD_STALE_MS;
    if (old || (holder && processState(holder) === 'dead')) unlinkSync(guard);
  } catch {
    // Gone already, or not ours to judge yet.
  }
}

/** Temp and set-aside files left by runs that were killed while taking the lock. */
function sweepLeftovers(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const now = Date.now();
  for (const name of names) {
    if (!/^lock\.(?:[0-9a-f]{16}\.tmp|stale\.[0-9a-f]{16})$/.test(name)) continue;
    const p = join(dir, name);
    try {
      if (now - statSync(p).mtimeMs > LEFTOVER_MS) unlinkSync(p);
    } catch {
      // Raced with its owner.
    }
  }
}

function lockedError(dir: string, holder: LockInfo | undefined, raw: string | undefined, timeoutMs: number): StoreError {
  let who: string;
  if (holder) {
    const where = holder.host === currentProcess().host ? '' : ` on host ${holder.host}`;
    const what = holder.command ? `, command ${JSON.stringify(holder.command)}` : '';
    who = `pid ${holder.pid}${where}, started ${holder.started}${what}`;
  } else {
    who =
      raw === undefined
        ? 'holder unknown'
        : `holder unknown: ${lockPath(dir)} is unreadable; remove it if no cairn run is active`;
  }
  return new StoreError(
    'locked',
    `state directory ${dir} is locked by another cairn run (${who}); waited ${formatSeconds(timeoutMs)}. ` +
      'Use --lock-timeout to wait longer.',
  );
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(ms < 10_000 ? 1 : 0))}s`;
}

function commandLine(): string {
  return recordedCommandLine();
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function unlinkQuiet(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}

function isErrno(e: unknown, ...codes: string[]): boolean {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return code !== undefined && codes.includes(code);
}

/**
 * The holder's token: 16 hex digits, told apart from every other holder's (with its pid, host and start)
 * when the lock is released or swept. Not a secret: whoever can write the store can write the lock, so
 * no cryptographic randomness (and no crypto module to load for every run).
 */
function lockToken(): string {
  const part = (): string => Math.floor(Math.random() * 2 ** 32).toString(16).padStart(8, '0');
  return `${part()}${part()}`;
}
