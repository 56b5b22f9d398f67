/**
 * What the [file] flags (`created-file-<component>`) held when a run last read them, each with the stamp
 * its file had just before the read (device, inode, size, modification and inode change times, from the
 * host). A later run that finds a flag with the same stamp knows its text without reading it: one lstat
 * instead of open, read and close, for every [file] step of a run that changes nothing.
 *
 * Why a stamp proves the text: any change to a file's content sets its inode change time to the time of
 * the change, and no call can set that time (only the system clock can). A text is kept only when the
 * stamp taken before its read says the file last changed a second or more before that read began, so any
 * change made later, during the read or after it, gives the file a later change time, and a stamp that
 * no longer matches: the flag is then read again. The host gives stamps only for regular files on file
 * systems whose stat answers are never stale (not NFS and the like).
 *
 * The cache is cairn's, kept in its state dir (one file per program state dir), never in the program's
 * state dir, which holds only what zapusk-tool keeps there. A cache that cannot be read or written is
 * left aside: every flag is then read.
 */
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, futimesSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ChangeStamp } from '../../host/types.js';

/** How long before a read a file must have last changed for what the read saw to be kept (ms). */
const SETTLED_MS = 1000;
/** 2: a flag of the program's state dir is named by its name alone, an inode change time equal to the modification time is null. */
const VERSION = 2;
const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * A cache is rewritten only when a run changes what it keeps, so a run of a program whose runs are all
 * no-ops marks its cache used (its modification time) once this long has passed since the last mark.
 */
const MARK_USED_AFTER_MS = 7 * DAY_MS;
/** A save removes the caches of other program state dirs that no run has used for this long. */
const UNUSED_MS = 90 * DAY_MS;
/** A cache file's name, or a temporary one left by a run killed while saving. */
const CACHE_NAME = /^[0-9a-f]{32}\.json(?:\.\d+\.tmp)?$/;

/** key (a flag's name in the state dir, or another path), dev, ino, size, mtimeMs, ctimeMs, text. */
type Kept = [string, number, number, number, number, number, string];

/** As written: an inode change time equal to the modification time (most flags) is null. */
function fromSaved(v: unknown): Kept | undefined {
  if (!Array.isArray(v) || v.length !== 7 || typeof v[0] !== 'string' || typeof v[6] !== 'string') return undefined;
  for (let i = 1; i < 5; i++) if (typeof v[i] !== 'number') return undefined;
  if (v[5] === null) v[5] = v[4];
  else if (typeof v[5] !== 'number') return undefined;
  return v as Kept;
}

export class FlagCache {
  /**
   * The entries as read, in the order the last run kept them (its steps' order), looked at in turn while
   * each asked for is the next; `kept` is made from them only at the first other question or change.
   */
  private saved: unknown[] = [];
  private next = 0;
  private map: Map<string, Kept> | undefined;
  private changed = false;
  /** The program state dir with a slash: a flag there is kept under its name (which has no slash). */
  private readonly prefix: string;

  private constructor(
    private readonly file: string | undefined,
    stateDir: string,
  ) {
    this.prefix = stateDir.endsWith('/') ? stateDir : `${stateDir}/`;
  }

  /** The cache for the program whose state dir is `stateDir`, from `dir` (none: a cache of this run only). */
  static load(dir: string | undefined, stateDir: string): FlagCache {
    if (dir === undefined) return new FlagCache(undefined, stateDir);
    const cache = new FlagCache(join(dir, `${createHash('sha256').update(stateDir).digest('hex').slice(0, 32)}.json`), stateDir);
    try {
      const data = JSON.parse(readUsed(cache.file as string)) as { version?: unknown; flags?: unknown };
      if (data.version === VERSION && Array.isArray(data.flags)) {
        cache.saved = data.flags as unknown[];
      }
    } catch {
      // No cache yet, or one that cannot be read: every flag is read.
    }
    return cache;
  }

  /** Every entry kept, by key (made from the saved entries when first needed). */
  private get kept(): Map<string, Kept> {
    if (this.map !== undefined) return this.map;
    const map = new Map<string, Kept>();
    for (const v of this.saved) {
      const k = fromSaved(v);
      if (k !== undefined) map.set(k[0], k);
    }
    this.saved = [];
    return (this.map = map);
  }

  /** The entry kept for `key`: the next saved one when it is that key's (a run asks in the order it kept them). */
  private find(key: string): Kept | undefined {
    if (this.map === undefined) {
      const v = this.saved[this.next];
      if (Array.isArray(v) && v[0] === key) {
        const k = fromSaved(v);
        if (k !== undefined) {
          this.next++;
          return k;
        }
      }
    }
    return this.kept.get(key);
  }

  /** A flag's key: its name for one right in the program state dir, else its path (which has a slash). */
  private key(path: string): string {
    const p = this.prefix;
    return path.length > p.length && path.startsWith(p) && path.indexOf('/', p.length) < 0 ? path.slice(p.length) : path;
  }

  /** The text `path` held when read with this stamp, or undefined when the stamp is not the one kept. */
  textIf(path: string, s: ChangeStamp): string | undefined {
    const k = this.find(this.key(path));
    if (k === undefined || k[5] !== s.ctimeMs || k[4] !== s.mtimeMs || k[3] !== s.size || k[2] !== s.ino || k[1] !== s.dev) return undefined;
    return k[6];
  }

  /**
   * `text` was read from `path` after its stamp was taken, the stamp asked for at `began` (ms, this
   * machine's clock): kept when the file had last changed SETTLED_MS or more before that.
   */
  remember(path: string, s: ChangeStamp, text: string, began: number): void {
    const key = this.key(path);
    if (!(s.ctimeMs < began - SETTLED_MS) || !(s.mtimeMs < began - SETTLED_MS)) {
      if (this.kept.delete(key)) this.changed = true;
      return;
    }
    this.kept.set(key, [key, s.dev, s.ino, s.size, s.mtimeMs, s.ctimeMs, text]);
    this.changed = true;
  }

  /** There is no flag at `path` (or it is not known): nothing kept for it. */
  forget(path: string): void {
    if (this.kept.delete(this.key(path))) this.changed = true;
  }

  /** Writes the cache when this run changed it (best effort: a cache not written is only slower). */
  save(): void {
    if (!this.changed || this.file === undefined) return;
    const tmp = `${this.file}.${process.pid}.tmp`;
    try {
      mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
      const flags = [...this.kept.values()].map((k) => (k[5] === k[4] ? [k[0], k[1], k[2], k[3], k[4], null, k[6]] : k));
      writeFileSync(tmp, JSON.stringify({ version: VERSION, flags }), { mode: 0o600 });
      renameSync(tmp, this.file);
      this.changed = false;
      removeUnused(dirname(this.file), this.file);
    } catch {
      // A store that cannot be written: the next run reads every flag.
      try {
        rmSync(tmp, { force: true });
      } catch {
        // nothing more to undo
      }
    }
  }
}

/** The text of the cache file `file`, marking it used when its last mark is old (see MARK_USED_AFTER_MS). */
function readUsed(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const now = Date.now();
    if (now - fstatSync(fd).mtimeMs > MARK_USED_AFTER_MS) {
      try {
        futimesSync(fd, now / 1000, now / 1000);
      } catch {
        // A cache that cannot be marked may be removed as unused: only slower.
      }
    }
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/** Removes the caches in `dir` (other than `own`) that no run has used for UNUSED_MS: best effort. */
function removeUnused(dir: string, own: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const now = Date.now();
  for (const name of names) {
    const path = join(dir, name);
    if (path === own || !CACHE_NAME.test(name)) continue;
    try {
      if (now - statSync(path).mtimeMs > UNUSED_MS) unlinkSync(path);
    } catch {
      // Gone already, or not ours to remove.
    }
  }
}
