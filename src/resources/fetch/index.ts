/**
 * `fetch`: copies a file from a local path or a `file://` URL to a destination (Converge's file.fetch). With
 * a hash the destination is in sync when its checksum matches; a mismatch is an error unless `force`,
 * which replaces it. Without a hash an existing destination is left alone unless `force`.
 */
import { fileURLToPath } from 'node:url';
import * as v from 'valibot';
import type { ApplyOutcome, CheckOutcome } from '../../core/model.js';
import { HostError } from '../../host/errors.js';
import type { ResourceContext } from '../../host/types.js';
import { type Kind, type Params, parseParams, validateWith, lazySchema } from '../kind.js';
import { absolutePathSchema } from '../paths.js';

const TYPE = 'fetch';

export const HASH_LENGTHS: Readonly<Record<string, number>> = { md5: 32, sha1: 40, sha256: 64, sha512: 128 };

/**
 * Params of a kind that takes a local source checked against an optional hash (fetch, unarchive):
 * source (a path relative to the graph file's folder, or a file:// URL), destination, hash_type, hash, force.
 */
export function sourceWithHashSchema() {
  return v.pipe(
    v.strictObject({
      source: v.pipe(v.string(), v.minLength(1, 'expected a path or a file:// URL')),
      destination: absolutePathSchema,
      hash_type: v.optional(v.picklist(['md5', 'sha1', 'sha256', 'sha512'], 'expected one of md5, sha1, sha256, sha512')),
      hash: v.optional(v.pipe(v.string(), v.regex(/^[0-9a-fA-F]+$/, 'expected a hex checksum'))),
      force: v.optional(v.boolean(), false),
    }),
    v.check((p) => (p.hash === undefined) === (p.hash_type === undefined), 'give hash and hash_type together'),
    v.check((p) => p.hash === undefined || p.hash.length === HASH_LENGTHS[p.hash_type ?? ''], 'hash has the wrong length for its hash_type'),
  );
}

export const fetchSchema = lazySchema(() => sourceWithHashSchema());

type FetchParams = v.InferOutput<typeof fetchSchema>;

function parse(params: Params): FetchParams {
  return parseParams(TYPE, fetchSchema, params);
}

/** The local file a source names. */
export function sourceFile(ctx: ResourceContext, source: string): string {
  if (source.startsWith('file:')) return fileURLToPath(source);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) throw new Error(`unsupported source ${JSON.stringify(source)}: only local paths and file:// URLs can be fetched`);
  return source.startsWith('/') ? source : `${ctx.baseDir.replace(/\/$/, '')}/${source}`;
}

function checksum(type: string, data: Uint8Array): string {
  return process.getBuiltinModule('node:crypto').createHash(type).update(data).digest('hex');
}

async function check(ctx: ResourceContext, p: FetchParams): Promise<CheckOutcome> {
  const st = await ctx.host.stat(p.destination);
  const outputs = { source: p.source, destination: p.destination };
  if (st?.type === 'directory') throw new Error(`invalid destination ${JSON.stringify(p.destination)}, cannot be directory`);
  if (!st) return { inSync: false, changes: { destination: { old: '<absent>', new: p.destination } }, comment: '', outputs };
  if (p.hash !== undefined && p.hash_type !== undefined) {
    const actual = checksum(p.hash_type, await ctx.host.readFile(p.destination));
    if (actual === p.hash.toLowerCase()) return { inSync: true, comment: 'file exists', outputs };
    if (!p.force) throw new Error('will not attempt fetch: checksum mismatch');
    return { inSync: false, changes: { checksum: { old: actual, new: p.hash } }, comment: 'checksum mismatch', outputs };
  }
  if (p.force) return { inSync: false, changes: { destination: { old: '<force fetch>', new: p.destination } }, comment: 'file exists, will fetch due to "force"', outputs };
  return { inSync: true, comment: 'file exists', outputs };
}

async function apply(ctx: ResourceContext, p: FetchParams, checked: CheckOutcome): Promise<ApplyOutcome> {
  const from = sourceFile(ctx, p.source);
  let data: Buffer;
  try {
    data = await ctx.host.readFile(from);
  } catch (e) {
    if (e instanceof HostError && e.code === 'ENOENT') return { ok: false, comment: `failed to fetch: source ${from} does not exist` };
    throw e;
  }
  if (p.hash !== undefined && p.hash_type !== undefined) {
    const got = checksum(p.hash_type, data);
    if (got !== p.hash.toLowerCase()) return { ok: false, comment: `failed to fetch: checksums did not match (expected ${p.hash}, got ${got})` };
  }
  await ctx.host.writeFileAtomic(p.destination, data);
  const comment = [checked.comment, 'fetched successfully'].filter((c) => c !== undefined && c !== '').join('\n');
  return { ok: true, changes: checked.changes ?? {}, comment, outputs: { source: p.source, destination: p.destination } };
}

export const kind: Kind = {
  type: TYPE,
  validate: (params, node) => validateWith(TYPE, fetchSchema, params, node),
  schema: fetchSchema,
  check: (ctx, params) => check(ctx, parse(params)),
  apply: (ctx, params, checked) => apply(ctx, parse(params), checked),
};
