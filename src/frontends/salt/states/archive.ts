/**
 * Salt's archive.extracted for tar and zip archives on the minion (a path, `file://`) or on the file server
 * (`salt://`), step for step as Salt 3006.0 decides: if_missing, source_hash, the archive's listing
 * (enforce_toplevel, which paths are missing or of the wrong type), clean / clean_parent / force, the
 * extraction and its record. The archive is listed and unpacked with the system's tar and unzip, through
 * the host.
 */
import { createHash } from '../digest.js';
import { posix } from 'node:path';
import type { Host } from '../../../host/types.js';
import type { Chunk } from '../compile/index.js';
import { pyText, strList, truthy } from './args.js';
import { type SourceSum, sourceSum } from './source-hash.js';
import type { CallContext, SaltRet, StateImpl } from './types.js';

interface Contents {
  dirs: string[];
  files: string[];
  links: string[];
  topDirs: string[];
  topFiles: string[];
  topLinks: string[];
  /** Member names in archive order, as Python's tarfile / zipfile give them. */
  names: string[];
}

class Fail extends Error {}

function guessFormat(path: string): string | undefined {
  const n = path.toLowerCase();
  if (['tar', 'tar.gz', 'tgz', 'tar.bz2', 'tbz2', 'tbz', 'tar.xz', 'txz', 'tar.lzma', 'tlz'].some((e) => n.endsWith(`.${e}`))) return 'tar';
  for (const e of ['zip', 'rar']) if (n.endsWith(`.${e}`)) return e;
  return undefined;
}

async function run(host: Host, argv: readonly string[], cwd?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const r = await host.exec(argv, cwd ? { cwd } : {});
  return { code: r.code ?? 1, stdout: r.stdout, stderr: r.stderr };
}

function sortedPy(list: string[]): string[] {
  return [...list].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Salt's archive.list(verbose=True). */
async function listArchive(host: Host, archive: string, format: string, shown: string, strip: number | undefined): Promise<Contents> {
  let dirs: string[] = [];
  let files: string[] = [];
  let links: string[] = [];
  let names: string[] = [];
  if (format === 'zip') {
    const r = await run(host, ['unzip', '-Z', archive]);
    if (r.code !== 0) throw new Fail(`${shown} is not a ZIP file`);
    const set = new Set<string>();
    for (const line of r.stdout.split('\n')) {
      const m = /^([-dlrwxsStT?]{10})\s+\S+\s+\S+\s+\d+\s+\S+\s+\S+\s+\S+\s+\S+\s(.*)$/.exec(line);
      if (!m) continue;
      const [type, name] = [(m[1] as string)[0], m[2] as string];
      names.push(name);
      if (type === 'l') links.push(name);
      else if (type === 'd' || name.endsWith('/')) set.add(name);
      else files.push(name);
    }
    for (const f of [...files]) {
      const i = f.lastIndexOf('/');
      if (i >= 0) {
        const d = f.slice(0, i + 1);
        set.add(d);
        if (files.includes(d)) files.splice(files.indexOf(d), 1);
      }
    }
    dirs = [...set];
  } else {
    const r = await run(host, ['tar', '-tvf', archive]);
    if (r.code !== 0) {
      throw new Fail(
        `Unable to list contents of ${shown}. If this is an XZ-compressed tar archive, install XZ Utils to enable listing its contents. If it is compressed using something other than XZ, it may be necessary to specify CLI options to decompress the archive. See the documentation for details.`,
      );
    }
    const plain = await run(host, ['tar', '-tf', archive]);
    const rawNames = plain.stdout.split('\n').filter((l) => l !== '');
    const types = r.stdout.split('\n').filter((l) => l !== '').map((l) => l[0]);
    rawNames.forEach((raw, i) => {
      const name = raw.replace(/\/+$/, '');
      names.push(name);
      if (types[i] === 'l') links.push(name);
      else if (types[i] === 'd') dirs.push(`${name}/`);
      else files.push(name);
    });
  }
  if (strip) {
    const cut = (list: string[]) => sortedPy(list.map((p) => p.split('/').slice(strip).join('/')).filter((p, i) => p !== '' && list[i]!.split('/').length > strip));
    [dirs, files, links] = [cut(dirs), cut(files), cut(links)];
  }
  dirs = sortedPy(dirs);
  files = sortedPy(files);
  links = sortedPy(links);
  const topDirs = dirs.filter((d) => d.split('/').length - 1 === 1);
  let prefix = dirs.length > 0 ? (dirs[0] as string) : '';
  for (const d of dirs) while (!d.startsWith(prefix)) prefix = prefix.slice(0, -1);
  if (prefix.includes('/')) {
    const top = `${prefix.split('/')[0]}/`;
    if (!topDirs.includes(top)) topDirs.push(top);
  }
  names = names.filter((n) => n !== '');
  return { dirs, files, links, topDirs, topFiles: files.filter((f) => !f.includes('/')), topLinks: links.filter((l) => !l.includes('/')), names };
}

async function hashFile(host: Host, path: string, type: string): Promise<string> {
  return createHash(type).update(await host.readFile(path)).digest('hex');
}

/** Salt builds the tar command from `options`: `tar xv<short options> <long options> -f archive`. */
function tarArgv(options: string, archive: string): string[] {
  const opts = shellSplit(options).filter((x) => !['v', '-v', '--verbose'].includes(x));
  let short = 'xv';
  const long: string[] = [];
  opts.forEach((opt, i) => {
    if (opt.startsWith('-') || i > 0) long.push(opt);
    else short += opt.replaceAll('x', '').replaceAll('f', '');
  });
  return ['tar', short, ...long, '-f', archive];
}

function shellSplit(s: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(s); m; m = re.exec(s)) out.push(m[1] ?? m[2] ?? m[3] ?? '');
  return out;
}

async function extracted(chunk: Chunk, ctx: CallContext): Promise<SaltRet> {
  const { host, test } = ctx;
  const fail = (comment: string, changes: Record<string, unknown> = {}): SaltRet => ({ result: false, comment, changes });
  const changes: Record<string, unknown> = {};
  let name = pyText(chunk.name);
  if (!name.startsWith('/')) return fail(`${name} is not an absolute path`);
  name = name.replace(/\/+$/, '');
  if ((await host.stat(name))?.type === 'file') return fail(`${name} exists and is not a directory`);
  name += '/';
  const ifMissing = chunk.if_missing === undefined || chunk.if_missing === null ? undefined : pyText(chunk.if_missing);
  if (ifMissing !== undefined && !ifMissing.startsWith('/')) return fail("Value for 'if_missing' is not an absolute path");
  if (ifMissing !== undefined && (await host.stat(ifMissing))) return { result: true, comment: `Path ${ifMissing} exists`, changes: {} };

  const sources = strList(chunk.source) ?? [];
  let sourceMatch = sources[0] ?? '';
  if (sources.length > 1) {
    sourceMatch = '';
    for (const s of sources) {
      const local = s.startsWith('file://') ? s.slice(7) : s;
      if (s.startsWith('salt://') ? typeof ctx.translate.resolveUrl(s, chunk.__env__ || 'base') === 'string' : local.startsWith('/') && (await host.stat(local))) {
        sourceMatch = s;
        break;
      }
    }
    if (!sourceMatch) return fail('none of the specified sources were found');
  }
  if (!sourceMatch) return fail(`Invalid source "${pyText(chunk.source)}"`);
  const isSalt = sourceMatch.startsWith('salt://');
  const local = !isSalt && !/^[a-z][a-z0-9+.-]*:\/\//i.test(sourceMatch.replace(/^file:\/\//, ''));
  if (!isSalt && !local) return fail(`Unable to cache ${sourceMatch}: only local and salt:// sources are supported`);
  let archive = sourceMatch.replace(/^file:\/\//, '');
  const basename = isSalt ? sourceMatch.slice('salt://'.length).replace(/\?.*$/, '') : archive;
  if (local) {
    archive = posix.normalize(archive);
    if ((await host.stat(archive))?.type !== 'file') return fail(`Source file '${archive}' does not exist`);
    sourceMatch = archive;
  }
  const format = chunk.archive_format === undefined || chunk.archive_format === null ? guessFormat(basename) : pyText(chunk.archive_format).toLowerCase();
  if (!format) return fail("Could not guess archive_format from the value of the 'source' argument. Please set this archive_format to one of the following: tar, rar, zip");
  if (!['tar', 'rar', 'zip'].includes(format)) {
    return fail(`Invalid archive_format '${format}'. Either set it to a supported value (tar, rar, zip) or remove this argument and the archive format will be guessed based on file extension.`);
  }
  if (format === 'rar') return fail('archive.unrar function not available, rar/unrar might not be installed on minion');
  const options = chunk.options === undefined || chunk.options === null ? undefined : pyText(chunk.options);
  let strip: number | undefined;
  if (options && format === 'tar') {
    const m = /--strip(?:-components)?(?:\s+|=)["']?(\d+)["']?/.exec(options);
    if (m) strip = Number(m[1]);
  }
  if (format !== 'zip' && truthy(chunk.password)) return fail("The 'password' argument is only supported for zip archives");
  let trim: unknown = chunk.trim_output ?? false;
  if (trim === true) trim = 100;
  let sum: SourceSum | undefined;
  if (truthy(chunk.source_hash)) {
    try {
      const readHashFile = async (ref: string) => {
        if (ref.startsWith('salt://')) {
          const r = ctx.translate.resolveUrl(ref, chunk.__env__ || 'base');
          if (typeof r !== 'string') throw new Error(`Source hash file ${ref} not found`);
          return (await host.readFile(r)).toString('utf8');
        }
        return (await host.readFile(ref.replace(/^file:\/\//, ''))).toString('utf8');
      };
      const hashName = chunk.source_hash_name === undefined || chunk.source_hash_name === null ? undefined : pyText(chunk.source_hash_name);
      sum = await sourceSum(pyText(chunk.source_hash), '', sourceMatch, hashName, readHashFile);
    } catch (e) {
      return fail((e as Error).message);
    }
  }
  if (isSalt) {
    if (test) return { result: null, comment: `Archive ${sourceMatch} would be cached (if necessary) and checked to discover if extraction is needed`, changes: {} };
    const r = ctx.translate.resolveUrl(sourceMatch, chunk.__env__ || 'base');
    if (typeof r !== 'string') return fail(r.error);
    archive = r;
  }
  let contents: Contents;
  try {
    contents = await listArchive(host, archive, format, sourceMatch, strip);
  } catch (e) {
    let msg = (e as Error).message;
    if (!ifMissing) {
      msg += format === 'tar'
        ? "\n\nIf the source archive is a tar archive compressed using a compression type not natively supported by the tar command, then setting the 'list_options' argument may allow the contents to be listed. Otherwise, if Salt is unable to determine the files/directories in the archive, the following workaround(s) would need to be used for this state to proceed"
        : '\n\nThe following workarounds must be used for this state to proceed';
      msg += ` (assuming the source file is a valid ${format} archive):\n\n- 'if_missing' must be set`;
    }
    return fail(msg);
  }
  if (chunk.enforce_toplevel !== false && (contents.topDirs.length > 1 || contents.topFiles.length > 0)) {
    return fail(
      `Archive does not have a single top-level directory. To allow this archive to be extracted, set 'enforce_toplevel' to False. To avoid a '${format}-bomb' it may also be advisable to set a top-level directory by adding it to the 'name' value (for example, setting 'name' to ${posix.join(name, 'some_dir')} instead of ${name}).`,
    );
  }
  const clean = truthy(chunk.clean);
  const cleanParent = truthy(chunk.clean_parent);
  if (clean && cleanParent) return fail("Only one of 'clean' and 'clean_parent' can be set to True");
  let needed = truthy(chunk.overwrite);
  let missing = false;
  const wrong: string[] = [];
  for (const [list, want] of [[contents.dirs, 'directory'], [contents.files, 'file'], [contents.links, 'symlink']] as const) {
    for (const p of list) {
      const full = posix.join(name, p).replace(/\/+$/, '');
      const st = await host.lstat(full);
      if (!st) {
        needed = true;
        missing = true;
      } else if (want === 'file' ? st.type === 'symlink' || st.type === 'directory' : st.type !== want) wrong.push(p);
    }
  }
  if (wrong.length > 0) {
    const paths = `\n\n${wrong.map((x) => `- ${x}`).join('\n')}`;
    let comment = `The below paths (relative to ${name}) exist, but are the incorrect type (file instead of directory, symlink instead of file, etc.).`;
    if (test && clean) return { result: null, comment: `${comment} Since the 'clean' option is enabled, the destination paths would be cleared and the archive would be extracted.${paths}`, changes: {} };
    if (test && cleanParent) return { result: null, comment: `${comment} Since the 'clean_parent' option is enabled, the destination parent directory would be removed first and then re-created and the archive would be extracted`, changes: {} };
    if (!clean) {
      if (chunk.force !== true) {
        comment += ` To proceed with extraction, set 'force' to True. Note that this will remove these paths before extracting.${paths}`;
        return fail(comment);
      }
      for (const p of wrong) {
        const full = posix.join(name, p);
        await host.remove(full.replace(/\/+$/, ''), { recursive: true });
        ((changes.removed ??= []) as string[]).push(full);
        needed = true;
      }
    }
  }
  const explain = missing ? ', due to absence of one or more files/dirs' : '';
  if (!needed) return { result: true, comment: 'All files in archive are already present', changes };
  if (local && sum && chunk.skip_verify !== true && (await hashFile(host, archive, sum.hash_type)) !== sum.hsum) {
    return fail(`${sourceMatch} does not match the desired source_hash ${sum.hsum}`, changes);
  }
  if (test) return { result: null, comment: `Archive ${sourceMatch} would be extracted to ${name}${clean ? ', after cleaning destination path(s)' : ''}${explain}`, changes };
  if (cleanParent) {
    await host.remove(name.replace(/\/+$/, ''), { recursive: true });
    changes.removed ??= `Directory ${name} was removed prior to the extraction`;
  }
  if (clean) {
    for (const p of [...contents.topDirs, ...contents.topFiles]) {
      const full = posix.join(name, p);
      if (await host.lstat(full.replace(/\/+$/, ''))) await host.remove(full.replace(/\/+$/, ''), { recursive: true });
      ((changes.removed ??= []) as string[]).push(full);
    }
  }
  let created = false;
  if ((await host.stat(name))?.type !== 'directory') {
    await ctx.invoke({ state: 'file', fun: 'directory', name, order: chunk.order, __id__: chunk.__id__, __sls__: chunk.__sls__, __env__: chunk.__env__, makedirs: true, ...(chunk.user !== undefined ? { user: chunk.user } : {}) } as Chunk);
    created = true;
  }
  let files: string[];
  const cut = (list: string[]) => (typeof trim === 'number' && trim > 0 ? list.slice(0, trim) : list);
  if (format === 'zip') {
    const r = await run(host, ['unzip', '-o', '-q', ...(options ? shellSplit(options) : []), archive, '-d', name]);
    if (r.code !== 0) return fail(r.stderr.trim() || `unzip exited ${r.code}`, changes);
    files = cut(contents.names);
  } else if (options === undefined || options === '') {
    const r = await run(host, ['tar', '-xf', archive, '-C', name]);
    if (r.code !== 0) {
      if (created) await host.remove(name, { recursive: true });
      return fail("Failed to read from tar archive using Python's native tar file support. If archive is compressed using something other than gzip or bzip2, the 'options' argument may be required to pass the correct options to the tar command in order to extract the archive.", changes);
    }
    files = cut(contents.names);
  } else {
    const r = await run(host, tarArgv(options, archive), name);
    if (r.code !== 0) return { result: false, comment: '', changes: { pid: 0, retcode: r.code, stdout: r.stdout.replace(/\n$/, ''), stderr: r.stderr.replace(/\n$/, '') } };
    files = cut(r.stdout.split('\n').filter((l) => l !== ''));
  }
  if (files.length === 0) return fail(`No files were extracted from ${sourceMatch}`, changes);
  if (created) changes.directories_created = [name];
  changes.extracted_files = files;
  return { result: true, comment: `${sourceMatch} extracted to ${name}${explain}. Output was trimmed to ${pyText(trim)} number of lines`, changes };
}

export const archiveStates: Record<string, StateImpl> = {
  extracted: { call: extracted, retOrder: ['name', 'result', 'changes', 'comment'] },
};
