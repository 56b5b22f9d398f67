/**
 * Where a run looks and what it may touch: the folders searched for zdb types (zapusk-tool's order) and
 * the folders it refuses to work under.
 */
import { join } from 'node:path';
import { isDir, listDir } from './program.js';
import type { Value } from './reader.js';

/** prepend_zdb_dirs: `:`-separated folders, used as written (a relative one is relative to the working directory, as zapusk-tool). */
export function prependDirs(value: Value | undefined): string[] {
  return typeof value === 'string' ? value.split(':').filter((d) => d !== '') : [];
}

/** zapusk-tool's search: `<dir>/<type>.zdb` in each folder, then one level down (folders not named *.zdb). */
export function findTypeDir(dirs: readonly string[], type: string): { found?: string } {
  for (const d of dirs) if (isDir(join(d, `${type}.zdb`))) return { found: join(d, `${type}.zdb`) };
  for (const d of dirs) {
    for (const sub of listDir(d)) {
      const p = join(d, sub);
      if (/\.zdb/i.test(p) || !isDir(p)) continue;
      if (isDir(join(p, `${type}.zdb`))) return { found: join(p, `${type}.zdb`) };
    }
  }
  return {};
}


/** A folder the run would create, write or remove under: `/` and names under four characters are refused. */
export function refusedDir(path: string): string | undefined {
  if (path.replace(/\/+$/, '') === '') return 'it is the root folder /';
  if (path.length < 4) return `it is too short a path (${path}), as zapusk-tool refuses it`;
  return undefined;
}
