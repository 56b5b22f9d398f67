/**
 * Salt's file.recurse: a directory of the file server copied to the minion, file by file through
 * file.managed and directory by directory through file.directory (as Salt's state calls them), their
 * returns merged per path, then `clean`.
 */
import { readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, posix } from 'node:path';
import { fnmatch } from '../../../lang/python/fnmatch.js';
import type { Host } from '../../../host/types.js';
import type { Chunk } from '../compile/index.js';
import { FileRoots, parseSaltUrl } from '../render/file-roots.js';
import { normalizeMode, pyText, strList, truthy } from './args.js';
import type { CallContext, SaltRet, StateImpl } from './types.js';

/** Salt's check_include_exclude: a glob, or `E@regex` searched in the path; a list matches if any item does. */
export function includeExclude(path: string, include: unknown, exclude: unknown): boolean {
  const check = (pat: string) => (pat.startsWith('E@') ? new RegExp(pat.slice(2)).test(path) : fnmatch(path, pat));
  const any = (pat: unknown) => (Array.isArray(pat) ? pat.some((p) => check(pyText(p))) : check(pyText(pat)));
  let ok = true;
  if (truthy(include)) ok = any(include);
  if (truthy(exclude)) ok = ok && !any(exclude);
  return ok;
}

interface Listing {
  /** Root-relative paths of the files (first root wins for a path). */
  files: string[];
  dirs: string[];
}

/** cp.list_master / list_master_dirs of one environment (symlinks followed, as the file server does). */
function listEnv(roots: readonly string[]): Listing {
  const files = new Set<string>();
  const dirs = new Set<string>();
  const walk = (root: string, rel: string): void => {
    let names: string[];
    try {
      names = readdirSync(join(root, rel));
    } catch {
      return;
    }
    for (const name of names.sort()) {
      const r = rel === '' ? name : `${rel}/${name}`;
      let st;
      try {
        st = statSync(join(root, r));
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        dirs.add(r);
        walk(root, r);
      } else if (st.isFile()) files.add(r);
    }
  };
  for (const root of roots) walk(root, '');
  return { files: [...files], dirs: [...dirs] };
}

function validRel(rel: string, maxdepth: unknown): boolean {
  if (`/${rel}/`.includes('/../')) return false;
  if (typeof maxdepth === 'number' && rel.replace(/^\/+|\/+$/g, '').split('/').length - 1 > maxdepth) return false;
  return true;
}

/** Salt's _find_keep_files + _clean_dir: everything under root that is not kept (nor excluded) is removed. */
async function cleanDir(host: Host, root: string, keep: readonly string[], exclude: unknown, test: boolean): Promise<string[]> {
  const real = new Set<string>([root]);
  for (const k of keep) {
    if (!isAbsolute(k)) continue;
    let p = posix.normalize(k);
    real.add(p);
    while (p !== '/') {
      p = posix.dirname(p);
      real.add(p);
    }
  }
  const removed: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    let names: string[];
    try {
      names = (await host.readdir(dir)).sort();
    } catch {
      return;
    }
    const subdirs: string[] = [];
    const files: string[] = [];
    for (const n of names) ((await host.stat(`${dir}/${n}`))?.type === 'directory' && (await host.lstat(`${dir}/${n}`))?.type !== 'symlink' ? subdirs : files).push(n);
    for (const n of [...subdirs, ...files]) {
      const p = `${dir}/${n}`;
      if (real.has(p) || !includeExclude(posix.relative(root, p), undefined, exclude)) continue;
      removed.push(p);
      if (!test) await host.remove(p, { recursive: true });
    }
    for (const n of subdirs) if ((await host.lstat(`${dir}/${n}`))?.type === 'directory') await walk(`${dir}/${n}`);
  };
  await walk(root);
  return removed;
}

/** The names of the file states a `require` list names (Salt's _gen_keep_files, without its directory walk). */
function requiredFiles(chunk: Chunk, lowstate: readonly Chunk[] | undefined): string[] {
  const out: string[] = [];
  for (const comp of Array.isArray(chunk.require) ? chunk.require : []) {
    if (!comp || typeof comp !== 'object' || !('file' in comp)) continue;
    const want = pyText((comp as Record<string, unknown>).file);
    for (const low of lowstate ?? []) if ((low.name === want || low.__id__ === want) && isAbsolute(low.name)) out.push(low.name);
  }
  return out;
}

const fail = (comment: string): SaltRet => ({ result: false, comment, changes: {} });

async function recurse(chunk: Chunk, ctx: CallContext): Promise<SaltRet> {
  const name = chunk.name;
  if ('mode' in chunk) return fail("'mode' is not allowed in 'file.recurse'. Please use 'file_mode' and 'dir_mode'.");
  const dirMode = normalizeMode(chunk.dir_mode);
  const keepMode = typeof chunk.file_mode === 'string' && chunk.file_mode.toLowerCase() === 'keep';
  const fileMode = keepMode ? undefined : normalizeMode(chunk.file_mode);
  if (!isAbsolute(name)) return fail(`Specified file ${name} is not an absolute path`);
  const sources = (strList(chunk.source) ?? []).map((s) => s.replace(/\/+$/, ''));
  for (const s of sources) if (!s.startsWith('salt://')) return fail(`Invalid source '${s}' (must be a salt:// URI)`);
  const env = chunk.__env__ || 'base';
  const roots = FileRoots.fromOptions(ctx.translate.opts);
  const listings = new Map<string, Listing>();
  const listing = (e: string): Listing => {
    let l = listings.get(e);
    if (!l) listings.set(e, (l = listEnv(roots.envs[e] ?? [])));
    return l;
  };
  let chosen: { path: string; env: string } | undefined;
  for (const s of sources) {
    const u = parseSaltUrl(s, env) as { path: string; env: string };
    const l = listing(u.env);
    if (l.files.includes(u.path) || l.dirs.includes(u.path)) {
      chosen = u;
      break;
    }
  }
  if (!chosen) return fail('Recurse failed: none of the specified sources were found');
  const src = chosen;
  const all = listing(src.env);
  if (!all.dirs.some((d) => d === src.path || d.startsWith(`${src.path}/`))) {
    return fail(`The directory '${src.path}' does not exist on the salt fileserver in saltenv '${src.env}'`);
  }
  const host = ctx.host;
  const top = await host.stat(name);
  if (top && top.type !== 'directory') return fail(`The path ${name} exists and is not a directory`);
  if (!top && !ctx.test) await host.mkdir(name, { recursive: true, ...(dirMode ? { mode: Number.parseInt(dirMode, 8) } : {}) });

  let result: boolean | null = true;
  const comments = new Map<string, string[]>();
  const changes: Record<string, unknown> = {};
  const addComment = (path: string, c: string | string[]) => {
    const list = comments.get(path) ?? [];
    list.push(...(typeof c === 'string' ? [c] : c));
    comments.set(path, list);
  };
  const merge = (path: string, r: SaltRet) => {
    if (r.result === false || result === true) result = r.result;
    if (r.result !== true && truthy(r.comment)) addComment(path, pyText(r.comment));
    if (truthy(r.changes)) changes[path] = r.changes;
  };

  // Salt's _gen_recurse_managed_files.
  const prefix = `${src.path}/`;
  const keep: string[] = [];
  const dirs: string[] = [];
  const files: [string, string][] = [];
  for (const f of all.files.filter((x) => x.startsWith(prefix))) {
    const rel = f.slice(prefix.length);
    if (!validRel(rel, chunk.maxdepth) || !includeExclude(rel, chunk.include_pat, chunk.exclude_pat)) continue;
    const dest = posix.join(name, rel);
    keep.push(dest);
    if (!dirs.includes(posix.dirname(dest))) dirs.push(posix.dirname(dest));
    files.push([dest, `salt://${f}${src.env !== env ? `?saltenv=${src.env}` : ''}`]);
  }
  if (chunk.include_empty === true) {
    for (const d of all.dirs.filter((x) => x.startsWith(prefix))) {
      const rel = d.slice(prefix.length);
      if (!validRel(rel, chunk.maxdepth) || !includeExclude(rel, chunk.include_pat, chunk.exclude_pat)) continue;
      const dest = posix.join(name, rel);
      if (!dirs.includes(dest)) dirs.push(dest);
      keep.push(dest);
    }
  }
  const clean = truthy(chunk.clean);
  const base = { state: 'file', __id__: chunk.__id__, __sls__: chunk.__sls__, __env__: chunk.__env__ } as Partial<Chunk>;
  const owner = { ...(chunk.user !== undefined ? { user: chunk.user } : {}), ...(chunk.group !== undefined ? { group: chunk.group } : {}) };
  for (const dir of dirs.sort()) {
    const st = await host.lstat(dir);
    if (clean && st && st.type !== 'directory') {
      if (ctx.test) {
        merge(dir, { result: null, comment: `Replacing ${dir} with a directory`, changes: {} });
        continue;
      }
      await host.remove(dir, { recursive: true });
      merge(dir, { result: true, comment: '', changes: { diff: 'Replaced file with a directory' } });
    }
    merge(dir, await ctx.invoke({ ...base, fun: 'directory', name: dir, ...owner, ...(dirMode ? { dir_mode: dirMode } : {}), makedirs: true } as Chunk));
  }
  const passed = Object.fromEntries(
    Object.entries(chunk).filter(([k]) => !k.startsWith('__') && !['state', 'fun', 'name', 'source', 'clean', 'require', 'dir_mode', 'file_mode', 'include_pat', 'exclude_pat', 'maxdepth', 'include_empty', 'keep_symlinks', 'force_symlinks', 'sym_mode', 'order', 'makedirs', 'mode', 'keep_source'].includes(k)),
  );
  for (const [dest, source] of files.sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const st = await host.lstat(dest);
    if (clean && st?.type === 'directory' && chunk.replace !== false) {
      if (ctx.test) {
        merge(dest, { result: null, comment: `Replacing directory ${dest} with a file`, changes: {} });
        continue;
      }
      await host.remove(dest, { recursive: true });
      merge(dest, { result: true, comment: '', changes: { diff: 'Replaced directory with a new file' } });
    }
    // file_mode: keep: each file gets the mode of its source (Salt's cp.stat_file).
    const kept = keepMode ? ctx.translate.resolveUrl(source, env) : undefined;
    const mode = typeof kept === 'string' ? { mode: `0${(statSync(kept).mode & 0o7777).toString(8)}` } : fileMode ? { mode: fileMode } : {};
    merge(dest, await ctx.invoke({ ...base, ...passed, fun: 'managed', name: dest, source, ...mode, makedirs: true } as Chunk));
  }
  if (clean) {
    const removed = await cleanDir(host, name, [...keep, ...requiredFiles(chunk, ctx.translate.lowstate)], chunk.exclude_pat, ctx.test);
    if (removed.length > 0) {
      if (ctx.test) {
        if (result) result = null;
        addComment('removed', removed);
      } else changes.removed = removed;
    }
  }
  let comment = [...comments].map(([k, v]) => `\n#### ${k} ####\n${v.join('\n')}`).join('\n').trim();
  if (!comment) comment = `Recursively updated ${name}`;
  if (Object.keys(changes).length === 0 && result) comment = `The directory ${name} is in the correct state`;
  return { result, comment, changes };
}

export const recurseState: StateImpl = { call: recurse };
