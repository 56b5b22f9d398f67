/** Inedo-style file masks: `*` and `?` stay in one folder, `**` crosses folders; matched on relative paths. */
import { posix } from 'node:path';
import type { Host } from '../../../host/types.js';

function maskRegex(mask: string): RegExp {
  let re = '';
  for (let i = 0; i < mask.length; i++) {
    const c = mask[i] as string;
    if (c === '*' && mask[i + 1] === '*') {
      re += '.*';
      i++;
      if (mask[i + 1] === '/') i++;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** Files (relative paths, sorted) under `dir` matching any include mask and no exclude mask. */
export async function matchFiles(host: Host, dir: string, include: readonly string[], exclude: readonly string[] = []): Promise<string[]> {
  const inc = include.map(maskRegex);
  const exc = exclude.map(maskRegex);
  const out: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    const names = (await host.readdir(posix.join(dir, rel))).sort();
    for (const name of names) {
      const r = rel === '' ? name : `${rel}/${name}`;
      const st = await host.lstat(posix.join(dir, r));
      if (st?.type === 'directory') await walk(r);
      else if (inc.some((m) => m.test(r)) && !exc.some((m) => m.test(r))) out.push(r);
    }
  };
  if ((await host.stat(dir))?.type === 'directory') await walk('');
  return out;
}
