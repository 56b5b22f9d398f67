/**
 * Salt's file server for a masterless minion: environments of one or more roots, searched in order.
 * SLS names and salt:// paths resolve directly to a candidate file (no listing of the tree), and nothing
 * resolves outside its root: `..` segments and symlinks that lead out are refused.
 */

import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, posix, relative, sep } from 'node:path';
import { type Diagnostic, error } from '../../../core/diag.js';
import type { SaltOptions } from '../types.js';
import { SALT_PATH_ESCAPE } from './codes.js';

export interface Found {
  /** Absolute path of the file (the path under the root, not the symlink target). */
  readonly path: string;
  /** Path relative to its root, with forward slashes (`web/init.sls`). */
  readonly rel: string;
  readonly root: string;
}

export type Lookup = Found | Diagnostic | undefined;

const realCache = new Map<string, string>();
function real(p: string): string {
  let r = realCache.get(p);
  if (r === undefined) {
    r = realpathSync(p);
    realCache.set(p, r);
  }
  return r;
}

function inside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

export class FileRoots {
  readonly envs: Record<string, string[]>;

  constructor(envs: Record<string, string[]>) {
    this.envs = envs;
  }

  static fromOptions(opts: SaltOptions, kind: 'state' | 'pillar' = 'state'): FileRoots {
    if (kind === 'pillar') {
      const env = opts.saltenv ?? 'base';
      const envs: Record<string, string[]> = { base: opts.pillarRoots };
      if (env !== 'base') envs[env] = opts.pillarRoots;
      return new FileRoots(envs);
    }
    if (opts.envRoots) return new FileRoots(opts.envRoots);
    // --file-root sets the base roots only (as salt-call's option does): another saltenv has no roots.
    return new FileRoots({ base: opts.fileRoots });
  }

  hasEnv(env: string): boolean {
    return Object.hasOwn(this.envs, env);
  }

  /**
   * A root-relative path (`a/b.sls`) in one env: the first root that has it. A path with `..` that
   * leaves the root, or one whose real location is outside the root, gives a diagnostic.
   */
  find(env: string, relPath: string, what: string): Lookup {
    const norm = posix.normalize(relPath.replace(/^\/+/, ''));
    if (norm === '..' || norm.startsWith('../') || norm.split('/').includes('..')) {
      return error(SALT_PATH_ESCAPE, `${what} '${relPath}' leaves the file roots of saltenv '${env}' (a '..' path is not allowed)`);
    }
    for (const root of this.envs[env] ?? []) {
      const p = join(root, norm);
      if (!existsSync(p)) continue;
      let st;
      try {
        st = statSync(p);
      } catch {
        continue;
      }
      if (!st.isFile()) continue;
      if (!inside(real(root), realpathSync(p))) {
        return error(SALT_PATH_ESCAPE, `${what} '${relPath}' is a symlink that leads outside the file root ${root}`);
      }
      return { path: p, rel: norm, root };
    }
    return undefined;
  }

  /** Salt's get_state: `a.b` → a/b.sls, then a/b/init.sls, each looked up in every root in order. */
  findSls(env: string, sls: string): Lookup {
    const base = sls.replace(/\./g, '/');
    return this.find(env, `${base}.sls`, `SLS ${sls}`) ?? this.find(env, `${base}/init.sls`, `SLS ${sls}`);
  }

  /** Every SLS name of an env; only used to expand include globs, which are rare. */
  listSls(env: string): string[] {
    const out = new Set<string>();
    const walk = (root: string, dir: string): void => {
      let names: string[];
      try {
        names = readdirSync(join(root, dir));
      } catch {
        return;
      }
      for (const name of names.sort()) {
        const rel = dir ? `${dir}/${name}` : name;
        let st;
        try {
          st = statSync(join(root, rel));
        } catch {
          continue;
        }
        if (st.isDirectory()) walk(root, rel);
        else if (name.endsWith('.sls')) {
          const noExt = rel.slice(0, -4);
          out.add((noExt.endsWith('/init') ? noExt.slice(0, -5) : noExt).replace(/\//g, '.'));
        }
      }
    };
    for (const root of this.envs[env] ?? []) walk(root, '');
    return [...out].sort();
  }
}

/** `salt://path?saltenv=x` → the path and the env it names (or the default). */
export function parseSaltUrl(url: string, defaultEnv: string): { path: string; env: string } | undefined {
  if (!url.startsWith('salt://')) return undefined;
  let rest = url.slice('salt://'.length);
  let env = defaultEnv;
  const q = rest.indexOf('?');
  if (q >= 0) {
    const params = new URLSearchParams(rest.slice(q + 1));
    env = params.get('saltenv') ?? params.get('env') ?? env;
    rest = rest.slice(0, q);
  }
  return { path: rest, env };
}
