/**
 * file.managed's `source_hash` for a local source, as Salt's get_source_sum / extract_hash / manage_file
 * use it: a hash (`<type>=<hash>` or a bare hash whose length names its type) or a file of hashes (a path,
 * `file://` or `salt://`). A target whose hash already matches is left alone (Salt trusts the hash);
 * otherwise the source must match it before it is copied. A `salt://` source is checked by the file
 * server and its source_hash is not used, as in Salt.
 */
import { createHash } from '../digest.js';
import { statSync } from 'node:fs';
import { basename, isAbsolute } from 'node:path';
import type { Host } from '../../../host/types.js';
import type { Chunk } from '../compile/index.js';
import { pyText, strList, truthy } from './args.js';
import type { CallContext, SaltRet } from './types.js';

/** Salt's HASHES, in its order: type → hex length. */
const HASHES: Record<string, number> = { sha512: 128, sha384: 96, sha256: 64, sha224: 56, sha1: 40, md5: 32 };
const REVMAP: Record<number, string> = Object.fromEntries(Object.entries(HASHES).map(([t, n]) => [n, t]));
const PROTOS = ['salt', 'file', 'http', 'https', 'ftp', 'swift', 's3'];

export interface SourceSum {
  hash_type: string;
  hsum: string;
}

class HashError extends Error {}

function invalidFormat(sourceHash: string): HashError {
  const lengths = Object.keys(REVMAP).map(Number).sort((a, b) => a - b).map((n) => `${REVMAP[n]} (${n})`);
  return new HashError(
    `Source hash ${sourceHash} format is invalid. The supported formats are: 1) a hash, 2) an expression in the format <hash_type>=<hash>, or 3) either a path to a local file containing hashes, or a URI of a remote hash file. Supported protocols for remote hash files are: ${PROTOS.join(', ')}. The hash may also not be of a valid length, the following are supported hash types and lengths: ${lengths.join(', ')}.`,
  );
}

/** Salt's extract_hash: the hash on the line naming the file (source_hash_name, then the target, then the source), else the first hash. */
export function extractHash(text: string, fileName: string, source: string, hashName: string | undefined): SourceSum | undefined {
  const seps = ' \t\n\r\v\f\\/*';
  let partial: SourceSum | undefined;
  const found: Record<string, SourceSum[]> = {};
  const names: [string, string | undefined][] = [['source_hash_name', hashName], ['file_name', fileName], ['source', source]];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const m = /(?<![a-zA-Z0-9])([a-fA-F0-9]{32,128})(?![a-zA-Z0-9])/.exec(line);
    const type = m ? REVMAP[(m[1] as string).length] : undefined;
    if (!m || !type) continue;
    const matched = { hsum: m[1] as string, hash_type: type };
    partial ??= matched;
    for (const [key, value] of names) {
      if (!value) continue;
      const base = key === 'source_hash_name' ? value : basename(key === 'source' ? value.replace(/^[a-z]+:\/\//, '/') : value);
      const hit = line.endsWith(base) ? line.length > base.length && seps.includes(line[line.length - base.length - 1] as string) : line.startsWith(value) && /^\s/.test(line.slice(value.length));
      if (hit) (found[key] ??= []).push(matched);
    }
  }
  for (const [key] of names) if (found[key]) return found[key][0];
  return partial;
}

/** Salt's get_source_sum; `readHashFile` reads a hash file (path or URL) or throws Salt's error. */
export async function sourceSum(sourceHash: string, fileName: string, source: string, hashName: string | undefined, readHashFile: (ref: string) => Promise<string>): Promise<SourceSum> {
  let hashFile: string | undefined;
  if (isAbsolute(sourceHash)) hashFile = sourceHash;
  else {
    const proto = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(sourceHash)?.[1]?.toLowerCase() ?? '';
    if (PROTOS.includes(proto)) hashFile = sourceHash;
    else if (proto !== '' && sourceHash.includes('//')) throw invalidFormat(sourceHash);
  }
  if (hashFile !== undefined) {
    const r = extractHash(await readHashFile(hashFile), fileName, source, hashName);
    if (!r) throw invalidFormat(sourceHash);
    return { hash_type: r.hash_type, hsum: r.hsum.toLowerCase() };
  }
  let type: string;
  let hsum: string;
  const eq = sourceHash.indexOf('=');
  if (eq >= 0) {
    type = sourceHash.slice(0, eq).trim();
    hsum = sourceHash.slice(eq + 1).trim();
  } else {
    if (!/^[0-9a-fA-F]+$/.test(sourceHash)) throw invalidFormat(sourceHash);
    hsum = sourceHash;
    const t = REVMAP[sourceHash.length];
    if (!t) throw invalidFormat(sourceHash);
    type = t;
  }
  if (!(type in HASHES)) {
    throw new HashError(`Invalid hash type '${type}'. Supported hash types are: ${Object.keys(HASHES).join(', ')}. Either remove the hash type and simply use '${hsum}' as the source_hash, or change the hash type to a supported type.`);
  }
  const len = hsum.length;
  if (!REVMAP[len]) throw invalidFormat(sourceHash);
  if (len !== HASHES[type]) {
    throw new HashError(`Invalid length (${len}) for hash type '${type}'. Either remove the hash type and simply use '${hsum}' as the source_hash, or change the hash type to '${REVMAP[len]}'`);
  }
  return { hash_type: type, hsum: hsum.toLowerCase() };
}

async function hashOf(host: Host, path: string, type: string): Promise<string> {
  return createHash(type).update(await host.readFile(path)).digest('hex');
}

/** The local path a source names (absolute or file://), or undefined for salt:// and the rest. */
function localSource(src: string): string | undefined {
  if (src.startsWith('file://')) return src.slice('file://'.length);
  return isAbsolute(src) ? src : undefined;
}

/**
 * file.managed with `source_hash` and a local source: checks the hash, then calls file.managed on without
 * it (with the target as its own source when the target already has the hash). Undefined: not this case.
 */
function keepsMode(chunk: Chunk): boolean {
  return typeof chunk.mode === 'string' && chunk.mode.toLowerCase() === 'keep';
}

function checksSourceHash(chunk: Chunk): boolean {
  return truthy(chunk.source_hash) && truthy(chunk.source) && !truthy(chunk.template) && chunk.skip_verify !== true;
}

/** Whether managedWithHash has anything to do for the chunk (`mode: keep`, or a source_hash to verify). */
export function managedNeedsCall(chunk: Chunk): boolean {
  return keepsMode(chunk) || checksSourceHash(chunk);
}

export async function managedWithHash(chunk: Chunk, ctx: CallContext): Promise<SaltRet | undefined> {
  if (keepsMode(chunk)) return keepMode(chunk, ctx);
  if (!checksSourceHash(chunk)) return undefined;
  const sources = strList(chunk.source) ?? [];
  const given = sources[0] as string;
  const path = sources.length === 1 ? localSource(given) : undefined;
  if (path === undefined || !isAbsolute(chunk.name)) return undefined;
  const { host } = ctx;
  if ((await host.stat(path))?.type !== 'file') return undefined;
  const rest: Chunk = { ...chunk };
  delete rest.source_hash;
  delete rest.source_hash_name;
  let sum: SourceSum;
  try {
    const readHashFile = async (ref: string): Promise<string> => {
      if (ref.startsWith('salt://')) {
        const r = ctx.translate.resolveUrl(ref, chunk.__env__ || 'base');
        if (typeof r !== 'string') throw new HashError(`Source hash file ${ref} not found`);
        return (await host.readFile(r)).toString('utf8');
      }
      const p = ref.startsWith('file://') ? ref.slice('file://'.length) : ref;
      try {
        return (await host.readFile(p)).toString('utf8');
      } catch {
        if (ref.startsWith('file://')) throw new HashError(`Source hash file ${ref} not found`);
        throw new Error(`Unable to manage file: [Errno 2] No such file or directory: '${p}'`);
      }
    };
    const hashName = chunk.source_hash_name === undefined || chunk.source_hash_name === null ? undefined : pyText(chunk.source_hash_name);
    sum = await sourceSum(pyText(chunk.source_hash), chunk.name, given, hashName, readHashFile);
  } catch (e) {
    return { result: false, comment: (e as Error).message, changes: {} };
  }
  const target = await host.lstat(chunk.name);
  if (target?.type === 'file') {
    if ((await hashOf(host, chunk.name, sum.hash_type)) === sum.hsum) return ctx.invoke({ ...rest, source: chunk.name });
    if (ctx.test) return ctx.invoke(rest);
    const actual = await hashOf(host, path, sum.hash_type);
    if (actual !== sum.hsum) {
      return {
        result: false,
        changes: {},
        comment: `Specified ${sum.hash_type} checksum for ${given} (${sum.hsum}) does not match actual checksum (${actual}). If the 'source_hash' value refers to a remote file with multiple possible matches, then it may be necessary to set 'source_hash_name'.`,
      };
    }
    return ctx.invoke(rest);
  }
  if (!target && !ctx.test) {
    const actual = await hashOf(host, path, sum.hash_type);
    if (actual !== sum.hsum) return { result: false, changes: {}, comment: `Specified ${sum.hash_type} checksum for ${chunk.name} (${sum.hsum}) does not match actual checksum (${actual})` };
  }
  return ctx.invoke(rest);
}

/** `mode: keep`: the mode of the source file (Salt's cp.stat_file), or no mode without a source. */
async function keepMode(chunk: Chunk, ctx: CallContext): Promise<SaltRet> {
  const rest: Chunk = { ...chunk };
  delete rest.mode;
  const src = (strList(chunk.source) ?? [])[0];
  let path: string | undefined;
  if (src?.startsWith('salt://')) {
    const r = ctx.translate.resolveUrl(src, chunk.__env__ || 'base');
    if (typeof r === 'string') path = r;
  } else if (src !== undefined) path = localSource(src);
  if (path !== undefined) {
    const st = src?.startsWith('salt://') ? statSync(path, { throwIfNoEntry: false }) : await ctx.host.stat(path);
    if (st) rest.mode = `0${(st.mode & 0o7777).toString(8)}`;
  }
  return ctx.invoke(rest);
}
