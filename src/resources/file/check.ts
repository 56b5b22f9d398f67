/** What a file resource would change: existence, content (with a diff), mode and owner. Reads only. */
import { resolve } from 'node:path';
import type { CheckOutcome } from '../../core/model.js';
import { HostError } from '../../host/errors.js';
import type { Host, ResourceContext, StatInfo } from '../../host/types.js';
import { attrChanges, knownAttrs, plainAttrs, resolveAttrs, type WantedAttrs } from '../attrs.js';
import { formatMode, parseMode } from '../kind.js';
import { followLinks } from '../paths.js';
import { unifiedDiff } from './diff.js';
import type { FileParams } from './schema.js';

/** Handed from check to apply so that apply neither re-reads nor re-resolves. */
export interface FileState {
  /** Where the bytes go: the path, or the file a symlink at the path points to. */
  readonly target: string;
  readonly current: StatInfo | null;
  /** Desired content; undefined when only existence and attributes are managed. */
  readonly data: Buffer | undefined;
  readonly contentChanged: boolean;
  readonly want: WantedAttrs;
}

export function sourcePath(ctx: ResourceContext, source: string): string {
  return resolve(ctx.baseDir, source);
}

async function desiredData(ctx: ResourceContext, p: FileParams): Promise<Buffer | undefined> {
  if (p.content !== undefined) return Buffer.from(p.content, 'utf8');
  if (p.source === undefined) return undefined;
  const from = sourcePath(ctx, p.source);
  try {
    return await (ctx.sources ?? ctx.host).readFile(from);
  } catch (e) {
    if (e instanceof HostError && e.code === 'ENOENT') throw new Error(`Source file ${from} not found`);
    throw e;
  }
}

export function fileOutputs(p: FileParams, data: Buffer | string | undefined, mode: number | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = { path: p.path };
  // Given content is kept as given: no decoding of what was just encoded.
  if (data !== undefined) out.content = p.content ?? (typeof data === 'string' ? data : data.toString('utf8'));
  if (mode !== undefined) out.mode = formatMode(mode);
  return out;
}

export async function checkFile(ctx: ResourceContext, p: FileParams): Promise<CheckOutcome> {
  const { host } = ctx;
  // Most paths are no symlink: one lstat answers, without the link-following loop.
  const first = await host.lstat(p.path);
  const { target, stat: current } = first?.type === 'symlink' ? await followLinks(host, p.path) : { target: p.path, stat: first };
  if (current?.type === 'directory') throw new Error(`Specified target ${p.path} is a directory`);
  if (current && current.type !== 'file') throw new Error(`Specified target ${p.path} exists and is not a regular file`);
  // Given content and a mode alone need no call to the host (most files): no waiting on either then.
  const plain = plainAttrs(p);
  const [data, want] =
    p.content !== undefined && plain ? [Buffer.from(p.content, 'utf8'), plain] : await Promise.all([desiredData(ctx, p), plain ?? resolveAttrs(host, p)]);

  if (!current && !p.create) {
    return { inSync: true, comment: `File ${p.path} is not present and is not set for creation`, outputs: { path: p.path } };
  }
  if (!current) {
    const state: FileState = { target, current, data, contentChanged: true, want };
    return {
      inSync: false,
      changes: { newfile: p.path },
      comment: `The file ${p.path} is set to be changed`,
      outputs: fileOutputs(p, data, want.mode ?? parseMode(p.new_mode) ?? 0o644),
      state,
    };
  }
  const changes: Record<string, unknown> = {};
  let contentChanged = false;
  let old: Buffer | undefined;
  if (data !== undefined && p.replace) {
    // Any size is read: the diff summarises a large change by sizes and hashes in linear time.
    old = await currentBytes(host, target, p.content);
    if (old !== undefined && !old.equals(data)) {
      contentChanged = true;
      changes.diff = await unifiedDiff(old, data);
    }
  }
  Object.assign(changes, attrChanges(current, want));
  const inSync = Object.keys(changes).length === 0;
  const state: FileState = { target, current, data: p.replace ? data : undefined, contentChanged, want };
  return {
    inSync,
    ...(inSync ? {} : { changes }),
    comment: inSync
      ? p.replace
        ? `File ${p.path} is in the correct state`
        : `File ${p.path} exists with proper permissions. No changes made.`
      : `The file ${p.path} is set to be changed`,
    outputs: withPrevious(fileOutputs(p, data, want.mode ?? current.mode), contentChanged ? old : undefined),
    state,
  };
}

/**
 * checkFile's answer for the common no-op, given at once on a host with immediate reads: given text, a
 * mode and owners known without asking the host (ids, or names resolved earlier in the run), a regular
 * file at the path (not a symlink) that holds the text with those attributes. Anything else (a drift, a
 * symlink, a source file, an owner name not yet looked up, a U+FFFD that text cannot tell from other
 * bytes) is left to checkFile.
 */
export function checkFileNow(ctx: ResourceContext, p: FileParams): CheckOutcome | undefined {
  const now = ctx.host.immediate;
  if (now === undefined || p.content === undefined || !p.replace || p.content.includes('\uFFFD')) return undefined;
  const want = knownAttrs(ctx.host, p);
  if (want === undefined) return undefined;
  const current = now.lstat(p.path);
  if (current?.type !== 'file' || Object.keys(attrChanges(current, want)).length > 0) return undefined;
  if (now.readText(p.path, current.size) !== p.content) return undefined;
  return { inSync: true, comment: `File ${p.path} is in the correct state`, outputs: fileOutputs(p, p.content, want.mode ?? current.mode) };
}

/**
 * The file's bytes, or undefined when they are the UTF-8 encoding of the given text. Given text is compared
 * as text, read already decoded (no Buffer per file on a local host); the bytes are read again only when
 * the decoded text cannot tell them: a U+FFFD in either may stand for bytes that are not UTF-8.
 */
async function currentBytes(host: Host, target: string, content: string | undefined): Promise<Buffer | undefined> {
  if (content === undefined || content.includes('\uFFFD')) return host.readFile(target);
  const text = await host.readText(target);
  if (text === content) return undefined;
  return text.includes('\uFFFD') ? host.readFile(target) : Buffer.from(text, 'utf8');
}

/** The replaced content, for front ends that show a change as old => new. */
function withPrevious(outputs: Record<string, unknown>, old: Buffer | undefined): Record<string, unknown> {
  if (old !== undefined) outputs.previous_content = old.toString('utf8');
  return outputs;
}
