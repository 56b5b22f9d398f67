/**
 * `hardlink`: a path that is a hard link to a target file (Salt's file.hardlink). The host reports no
 * inode numbers, so they are read with stat(1) through host.exec, and the link is made with ln(1).
 */
import { posix } from 'node:path';
import * as v from 'valibot';
import type { ApplyOutcome, CheckOutcome } from '../../core/model.js';
import type { ResourceContext } from '../../host/types.js';
import { type Kind, type Params, parseParams, validateWith, lazySchema } from '../kind.js';
import { absolutePathSchema, ensureParent } from '../paths.js';

const TYPE = 'hardlink';

export const hardlinkSchema = lazySchema(() =>
  v.strictObject({
    path: absolutePathSchema,
    target: absolutePathSchema,
    force: v.optional(v.boolean(), false),
    makedirs: v.optional(v.boolean(), false),
  }),
);
type HardlinkParams = v.InferOutput<typeof hardlinkSchema>;

function parse(params: Params): HardlinkParams {
  return parseParams(TYPE, hardlinkSchema, params);
}

/** Inode and link count of a path (not following a symlink). */
async function inode(ctx: ResourceContext, path: string): Promise<{ ino: string; links: number } | undefined> {
  const r = await ctx.host.exec(['stat', '-c', '%i %h', '--', path], { readOnly: true });
  if (r.code !== 0) return undefined;
  const [ino, links] = r.stdout.trim().split(' ');
  return { ino: ino as string, links: Number(links) };
}

type Found = 'missing' | 'same' | 'other-link' | 'file';

async function examine(ctx: ResourceContext, p: HardlinkParams): Promise<Found> {
  const target = await ctx.host.stat(p.target);
  if (!target) throw new Error(`Target ${p.target} for hard link does not exist`);
  if (target.type === 'directory') throw new Error(`Unable to hard link from directory ${p.target}`);
  const st = await ctx.host.lstat(p.path);
  if (st?.type === 'directory') throw new Error(`Unable to hard link to directory ${p.path}`);
  if (!st) return 'missing';
  const here = await inode(ctx, p.path);
  if (here && here.links > 1 && st.type === 'file') {
    const there = await inode(ctx, p.target);
    return there?.ino === here.ino ? 'same' : 'other-link';
  }
  return 'file';
}

async function check(ctx: ResourceContext, p: HardlinkParams): Promise<CheckOutcome> {
  const found = await examine(ctx, p);
  const outputs = { path: p.path };
  switch (found) {
    case 'same':
      return { inSync: true, comment: `The hard link ${p.path} is presently targetting ${p.target}`, outputs, state: found };
    case 'missing':
      return { inSync: false, changes: { new: p.path }, comment: `Hard link ${p.path} to ${p.target} is set for creation`, outputs, state: found };
    case 'other-link':
      return { inSync: false, changes: { change: p.path }, comment: `Link ${p.path} target is set to be changed to ${p.target}`, outputs, state: found };
    default:
      if (!p.force) throw new Error(`File or directory exists where the hard link ${p.path} should be. Did you mean to use force?`);
      return { inSync: false, changes: {}, comment: `The file or directory ${p.path} is set for removal to make way for a new hard link targeting ${p.target}`, outputs, state: found };
  }
}

async function link(ctx: ResourceContext, p: HardlinkParams): Promise<string | undefined> {
  const r = await ctx.host.exec(['ln', '--', p.target, p.path]);
  return r.code === 0 ? undefined : r.stderr.trim();
}

async function apply(ctx: ResourceContext, p: HardlinkParams, checked: CheckOutcome): Promise<ApplyOutcome> {
  if (checked.inSync) return { ok: true, changes: {}, comment: checked.comment ?? '' };
  const found = checked.state as Found;
  const outputs = { path: p.path };
  const changes: Record<string, unknown> = {};
  if (found === 'missing') {
    const failure = await ensureParent(ctx.host, p.path, p.makedirs, `Directory ${posix.dirname(p.path)} for hard link is not present`);
    if (failure) return { ok: false, changes: {}, comment: failure };
  } else {
    await ctx.host.remove(p.path);
    if (found === 'file') changes.forced = 'File for hard link was forcibly replaced';
  }
  const err = await link(ctx, p);
  if (err !== undefined) return { ok: false, changes: {}, comment: `Unable to create new hard link ${p.path} -> ${p.target}: ${err}` };
  changes.new = p.path;
  const comment = found === 'other-link' ? `Set target of hard link ${p.path} -> ${p.target}` : `Created new hard link ${p.path} -> ${p.target}`;
  return { ok: true, changes, comment, outputs };
}

export const kind: Kind = {
  type: TYPE,
  validate: (params, node) => validateWith(TYPE, hardlinkSchema, params, node),
  schema: hardlinkSchema,
  check: (ctx, params) => check(ctx, parse(params)),
  apply: (ctx, params, checked) => apply(ctx, parse(params), checked),
};
