/**
 * `touch`: a path that exists, created empty when missing, with its modification time set when one is
 * given (Salt's file.touch). `refresh` updates the times of an existing path on every run, as Salt does
 * when no times are given. The host has no utimes call: times are set with touch(1) through host.exec.
 */
import { posix } from 'node:path';
import * as v from 'valibot';
import type { ApplyOutcome, CheckOutcome } from '../../core/model.js';
import type { ResourceContext, StatInfo } from '../../host/types.js';
import { type Kind, type Params, parseParams, validateWith, lazySchema } from '../kind.js';
import { absolutePathSchema, ensureParent } from '../paths.js';

const TYPE = 'touch';

const seconds = v.pipe(v.number(), v.integer(), v.minValue(0));

export const touchSchema = lazySchema(() =>
  v.strictObject({
    path: absolutePathSchema,
    /** Access time to set, in seconds since the epoch. */
    atime: v.optional(seconds),
    /** Modification time to set, in seconds since the epoch. */
    mtime: v.optional(seconds),
    makedirs: v.optional(v.boolean(), false),
    /** Update the times of an existing path on every run (Salt's file.touch without times). */
    refresh: v.optional(v.boolean(), false),
  }),
);
export type TouchParams = v.InferOutput<typeof touchSchema>;

function parse(params: Params): TouchParams {
  return parseParams(TYPE, touchSchema, params);
}

function timesDiffer(st: StatInfo, p: TouchParams): boolean {
  // The host reports no access time: a requested atime is always set.
  return p.atime !== undefined || (p.mtime !== undefined && Math.floor(st.mtimeMs / 1000) !== p.mtime);
}

async function check(ctx: ResourceContext, p: TouchParams): Promise<CheckOutcome> {
  const st = await ctx.host.stat(p.path);
  if (!st) return { inSync: false, changes: { new: p.path }, comment: `File ${p.path} is set to be created`, outputs: { path: p.path } };
  if (p.refresh || timesDiffer(st, p)) {
    return { inSync: false, changes: { touched: p.path }, comment: `Times set to be updated on file ${p.path}`, outputs: { path: p.path }, state: st };
  }
  return { inSync: true, comment: `File ${p.path} exists and has the correct times`, outputs: { path: p.path } };
}

async function setTimes(ctx: ResourceContext, p: TouchParams): Promise<void> {
  const runs: string[][] = [];
  if (p.atime === undefined && p.mtime === undefined) runs.push(['touch', '-c', '--', p.path]);
  else if (p.atime !== undefined && p.mtime !== undefined && p.atime === p.mtime) runs.push(['touch', '-c', '-d', `@${p.atime}`, '--', p.path]);
  else {
    // Salt sets the missing one of the two times to now.
    runs.push(['touch', '-c', '-a', ...(p.atime !== undefined ? ['-d', `@${p.atime}`] : []), '--', p.path]);
    runs.push(['touch', '-c', '-m', ...(p.mtime !== undefined ? ['-d', `@${p.mtime}`] : []), '--', p.path]);
  }
  for (const argv of runs) {
    const r = await ctx.host.exec(argv);
    if (r.code !== 0) throw new Error(`Unable to set the times of ${p.path}: ${r.stderr.trim() || `touch exited ${String(r.code)}`}`);
  }
}

async function apply(ctx: ResourceContext, p: TouchParams, checked: CheckOutcome): Promise<ApplyOutcome> {
  if (checked.inSync) return { ok: true, changes: {}, comment: checked.comment ?? '', outputs: { path: p.path } };
  const st = (checked.state as StatInfo | undefined) ?? (await ctx.host.stat(p.path));
  if (!st) {
    if (p.makedirs) {
      const failure = await ensureParent(ctx.host, p.path, true, '');
      if (failure) return { ok: false, comment: failure };
    } else if ((await ctx.host.stat(posix.dirname(p.path)))?.type !== 'directory') {
      return { ok: false, comment: `Directory not present to touch file ${p.path}` };
    }
    await ctx.host.writeFileAtomic(p.path, '');
    if (p.atime !== undefined || p.mtime !== undefined) await setTimes(ctx, p);
    return { ok: true, changes: { new: p.path }, comment: `Created empty file ${p.path}`, outputs: { path: p.path } };
  }
  await setTimes(ctx, p);
  return { ok: true, changes: { touched: p.path }, comment: `Updated times on ${st.type === 'directory' ? 'directory' : 'file'} ${p.path}`, outputs: { path: p.path } };
}

export const kind: Kind = {
  type: TYPE,
  validate: (params, node) => validateWith(TYPE, touchSchema, params, node),
  schema: touchSchema,
  check: (ctx, params) => check(ctx, parse(params)),
  apply: (ctx, params, checked) => apply(ctx, parse(params), checked),
};
