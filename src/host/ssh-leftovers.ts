/**
 * Temp files an interrupted apply left on an SSH host, beside a managed file: the SSH host writes
 * `.NAME.cairn@CONTROLLER-PID-TIME-N.tmp` (CONTROLLER is the host name of the machine running cairn, TIME
 * base-36 milliseconds) and renames it over NAME. The next write of NAME through SSH removes the ones whose
 * writer is surely gone, and nothing else:
 *
 * - written from this controller by a process that is no longer running (and not this one): removed;
 * - written from another controller, or in the older `.NAME.cairn-PID-TIME-N.tmp` form that names none:
 *   removed once untouched for STALE_MS (a live writer touches its temp file with every chunk it sends).
 *
 * Only regular files and symlinks are removed, never a directory. Each directory is listed once per
 * connection, at its first write.
 */
import { hostname } from 'node:os';
import { posix } from 'node:path';
import { processAlive } from './leftovers.js';

/** A temp file untouched this long was left by a writer that is gone. */
export const STALE_MS = 10 * 60 * 1000;

/** This controller's name as it goes into a temp name (letters, digits, dots and underscores only). */
export const CONTROLLER = hostname().replace(/[^A-Za-z0-9._]/g, '_') || 'controller';

const NAMED = /^\.(.+)\.cairn@([A-Za-z0-9._]+)-(\d+)-([0-9a-z]+)-(\d+)\.tmp$/;
const OLD = /^\.(.+)\.cairn-(\d+)-([0-9a-z]+)-(\d+)\.tmp$/;

let counter = 0;
/** The temp name an SSH write of `path` uses. */
export function sshTempName(path: string): string {
  counter += 1;
  return posix.join(posix.dirname(path), `.${posix.basename(path)}.cairn@${CONTROLLER}-${process.pid}-${Date.now().toString(36)}-${counter}.tmp`);
}

export interface Leftover {
  /** The temp file's name in its directory. */
  readonly name: string;
  /** The managed file it was written for. */
  readonly target: string;
  readonly controller: string | undefined;
  readonly pid: number;
}

/** The leftover a directory entry is, or undefined when it is not a temp file of an SSH write. */
export function parseLeftover(name: string): Leftover | undefined {
  const m = NAMED.exec(name);
  if (m) return { name, target: m[1] as string, controller: m[2], pid: Number(m[3]) };
  const o = OLD.exec(name);
  if (o) return { name, target: o[1] as string, controller: undefined, pid: Number(o[2]) };
  return undefined;
}

/** Whether a leftover's writer is gone: `mtimeMs` is the temp file's, `now` the controller's clock. */
export function isAbandoned(l: Leftover, mtimeMs: number, now: number, alive: (pid: number) => boolean = processAlive): boolean {
  if (l.controller === CONTROLLER) return l.pid !== process.pid && !alive(l.pid);
  return now - mtimeMs >= STALE_MS;
}

/** What the tidier needs of an SFTP session. */
export interface LeftoverFs {
  readdir(dir: string): Promise<string[]>;
  lstat(path: string): Promise<{ type: string; mtimeMs: number } | null>;
  unlink(path: string): Promise<void>;
}

export class SshLeftovers {
  /** dir → managed name → its leftovers, listed at the first write in that dir. */
  private readonly listed = new Map<string, Promise<Map<string, Leftover[]>>>();

  constructor(private readonly fs: LeftoverFs) {}

  private list(dir: string): Promise<Map<string, Leftover[]>> {
    let p = this.listed.get(dir);
    if (!p) {
      p = this.fs.readdir(dir).then(
        (names) => {
          const byTarget = new Map<string, Leftover[]>();
          for (const n of names) {
            const l = parseLeftover(n);
            if (l) byTarget.set(l.target, [...(byTarget.get(l.target) ?? []), l]);
          }
          return byTarget;
        },
        () => new Map<string, Leftover[]>(),
      );
      this.listed.set(dir, p);
    }
    return p;
  }

  /** Removes the abandoned temp files of `path`; returns their names. Never throws. */
  async tidy(path: string): Promise<string[]> {
    const dir = posix.dirname(path);
    const byTarget = await this.list(dir);
    const found = byTarget.get(posix.basename(path));
    if (!found) return [];
    byTarget.delete(posix.basename(path));
    const removed: string[] = [];
    for (const l of found) {
      const full = posix.join(dir, l.name);
      try {
        const st = await this.fs.lstat(full);
        if (!st || (st.type !== 'file' && st.type !== 'symlink')) continue;
        if (!isAbandoned(l, st.mtimeMs, Date.now())) continue;
        await this.fs.unlink(full);
        removed.push(l.name);
      } catch {
        // gone already, or not ours to remove
      }
    }
    return removed;
  }
}
