/**
 * `!token` locks across processes: a lock file per token in a directory of the state dir, created
 * exclusively and removed on release. A file whose process is gone is stale and is taken over.
 */
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Cancelled } from './errors.js';

function holderAlive(path: string): boolean {
  let pid: number;
  try {
    pid = Number((JSON.parse(readFileSync(path, 'utf8')) as { pid?: unknown }).pid);
  } catch {
    // Being written right now, or unreadable: treat as held.
    return true;
  }
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** Waits until this process holds the token's lock file; returns the release function. Throws Cancelled when `signal` aborts first. */
export async function acquireTokenFile(dir: string, token: string, signal: AbortSignal): Promise<() => void> {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${encodeURIComponent(token.toLowerCase())}.lock`);
  for (;;) {
    if (signal.aborted) throw new Cancelled();
    try {
      const fd = openSync(path, 'wx', 0o644);
      try {
        writeSync(fd, JSON.stringify({ pid: process.pid, token }));
      } finally {
        closeSync(fd);
      }
      return () => {
        try {
          unlinkSync(path);
        } catch {
          // Already gone.
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    if (!holderAlive(path)) {
      try {
        unlinkSync(path);
      } catch {
        // Another waiter took it over first.
      }
      continue;
    }
    await pause(100, signal);
  }
}
