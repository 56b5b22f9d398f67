/**
 * Inedo-style file masks on relative paths: `*` and `?` stay in one folder, `**` crosses folders, a mask
 * without a folder part matches in the top folder only; an exclude mask also removes what is below a match.
 */
import { posix } from 'node:path';
import type { Host } from '../../../host/types.js';

function maskRegex(mask: string): RegExp {
  let re = '';
  const m = mask.replace(/\\/g, '/').replace(/^\/+/, '');
  for (let i = 0; i < m.length; i++) {
    const c = m[i] as string;
    if (c === '*' && m[i + 1] === '*') {
      re += '.*';
      i++;
      if (m[i + 1] === '/') {
        re += '/?';
        i++;
      }
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 'i');
}

export interface Matched {
  /** Relative paths, sorted. */
  readonly files: string[];
  readonly dirs: string[];
}

/** Files and folders under `dir` matching an include mask and no exclude mask. */
export async function matchEntries(host: Host, dir: string, include: readonly string[], exclude: readonly string[] = []): Promise<Matched> {
  const inc = include.map(maskRegex);
  const exc = exclude.map(maskRegex);
  const files: string[] = [];
  const dirs: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    const names = (await host.readdir(posix.join(dir, rel))).sort();
    for (const name of names) {
      const r = rel === '' ? name : `${rel}/${name}`;
      if (exc.some((m) => m.test(r))) continue;
      const st = await host.lstat(posix.join(dir, r));
      const hit = inc.some((m) => m.test(r));
      if (st?.type === 'directory') {
        if (hit) dirs.push(r);
        await walk(r);
      } else if (hit) files.push(r);
    }
  };
  if ((await host.stat(dir))?.type === 'directory') await walk('');
  return { files, dirs };
}

/** Only the files (relative paths, sorted). */
export async function matchFiles(host: Host, dir: string, include: readonly string[], exclude: readonly string[] = []): Promise<string[]> {
  return (await matchEntries(host, dir, include, exclude)).files;
}
