/**
 * Temp files that an interrupted apply left beside a managed file (`.NAME.cairn-PID-N.tmp`, the name
 * local.ts writes before its rename). The next write of NAME removes them, but only those that match that
 * exact pattern and whose process is gone: a live cairn's temp file is its own business.
 *
 * Each directory is listed once per process, at its first write, so that an apply of many files in one
 * directory does not list it again for every file.
 */
import { lstatSync, readdirSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

const TEMP = /^\.(.+)\.cairn-(\d+)-(\d+)\.tmp$/;
/** dir → managed name → leftover temp names. */
const listed = new Map<string, Map<string, { name: string; pid: number }[]>>();

function leftoversIn(dir: string): Map<string, { name: string; pid: number }[]> {
  let byName = listed.get(dir);
  if (byName) return byName;
  byName = new Map();
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    // unreadable: nothing to tidy
  }
  for (const name of names) {
    const m = TEMP.exec(name);
    if (!m) continue;
    const pid = Number(m[2]);
    if (pid === process.pid) continue;
    const list = byName.get(m[1]!) ?? [];
    list.push({ name, pid });
    byName.set(m[1]!, list);
  }
  listed.set(dir, byName);
  return byName;
}

export function processAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the leftover temp files of `path` whose writer is no longer running; returns their names. */
export function removeLeftoverTemps(path: string): string[] {
  const dir = dirname(path);
  const byName = leftoversIn(dir);
  const list = byName.get(basename(path));
  if (!list) return [];
  byName.delete(basename(path));
  const removed: string[] = [];
  for (const { name, pid } of list) {
    if (processAlive(pid)) continue;
    try {
      // Only a regular file or symlink we would have written; never a directory.
      const st = lstatSync(join(dir, name));
      if (!st.isFile() && !st.isSymbolicLink()) continue;
      unlinkSync(join(dir, name));
      removed.push(name);
    } catch {
      // gone already, or not ours to remove
    }
  }
  return removed;
}
