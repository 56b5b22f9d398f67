/** Path params and the parent-directory and symlink rules shared by the filesystem kinds. */
import { posix } from 'node:path';
import * as v from 'valibot';
import type { Host, StatInfo } from '../host/types.js';

/** A path with `//`, a `.` or `..` part, or a trailing `/`: one that normalising would change. */
export const NOT_NORMAL = /\/\/|\/\.\.?(?:\/|$)|.\/$/;

export const absolutePathSchema = v.pipe(
  v.string(),
  v.regex(/^\//, 'expected an absolute path'),
  v.transform((p) => (NOT_NORMAL.test(p) ? posix.normalize(p).replace(/\/$/, '') : p)),
);

const MAX_LINKS = 40;

/**
 * The path with symlinks at its end followed, so that a managed file behind a link is changed in place
 * and the link kept (Salt's follow_symlinks). A dangling link yields the path it points to.
 */
export async function followLinks(host: Host, path: string): Promise<{ readonly target: string; readonly stat: StatInfo | null }> {
  let current = path;
  for (let i = 0; i < MAX_LINKS; i++) {
    const st = await host.lstat(current);
    if (st?.type !== 'symlink') return { target: current, stat: st };
    current = posix.resolve(posix.dirname(current), await host.readlink(current));
  }
  throw new Error(`Too many levels of symbolic links at ${path}`);
}

/**
 * Makes sure the parent directory of a path exists, creating it when `makedirs`. Returns a failure comment
 * (a missing parent without makedirs, or a file in the way) or undefined when the parent is there.
 */
export async function ensureParent(host: Host, path: string, makedirs: boolean, missingComment: string, mode?: number): Promise<string | undefined> {
  const parent = posix.dirname(path);
  const st = await host.stat(parent);
  if (st?.type === 'directory') return undefined;
  if (st) return `Parent ${parent} of ${path} exists and is not a directory`;
  if (!makedirs) return missingComment;
  let ancestor = posix.dirname(parent);
  while (ancestor !== '/' && !(await host.stat(ancestor))) ancestor = posix.dirname(ancestor);
  const blocking = await host.stat(ancestor);
  if (blocking && blocking.type !== 'directory') return `Parent ${ancestor} of ${path} exists and is not a directory`;
  if (mode === undefined) await host.mkdir(parent, { recursive: true });
  else {
    // Each missing directory gets the mode, outermost first.
    const missing: string[] = [];
    for (let d = parent; d !== ancestor; d = posix.dirname(d)) missing.unshift(d);
    // recursive: another node may create the same parent meanwhile.
    for (const d of missing) await host.mkdir(d, { recursive: true, mode });
  }
  return undefined;
}
