/**
 * `copy`: a file (or directory tree) copied from another path on the same machine, once: an existing
 * target is left alone unless `force` (Salt's file.copy). The copy keeps the source's mode unless one is given.
 */
import { posix } from 'node:path';
import * as v from 'valibot';
import type { ApplyOutcome, CheckOutcome } from '../../core/model.js';
import type { Host, ResourceContext } from '../../host/types.js';
import { attrChanges, ownerSchema, resolveAttrs, applyAttrs } from '../attrs.js';
import { type Kind, modeSchema, type Params, parseParams, validateWith, lazySchema } from '../kind.js';
import { absolutePathSchema, ensureParent } from '../paths.js';

const TYPE = 'copy';

export const copySchema = lazySchema(() =>
  v.strictObject({
    path: absolutePathSchema,
    source: absolutePathSchema,
    force: v.optional(v.boolean(), false),
    makedirs: v.optional(v.boolean(), false),
    /** Copy into `path` when it is a directory (Salt's subdir). */
    subdir: v.optional(v.boolean(), false),
    mode: v.optional(modeSchema),
    owner: v.optional(ownerSchema),
    group: v.optional(ownerSchema),
  }),
);
type CopyParams = v.InferOutput<typeof copySchema>;

function parse(params: Params): CopyParams {
  return parseParams(TYPE, copySchema, params);
}

interface CopyState {
  readonly dest: string;
  readonly identical: boolean;
}

async function sameContent(host: Host, a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([host.readFile(a), host.readFile(b)]);
  return x.equals(y);
}

async function check(ctx: ResourceContext, p: CopyParams): Promise<CheckOutcome> {
  const { host } = ctx;
  const src = await host.stat(p.source);
  if (!src) throw new Error(`Source file "${p.source}" is not present`);
  let dest = p.path;
  if (p.subdir && (await host.stat(dest))?.type === 'directory') dest = posix.join(dest, posix.basename(p.source));
  const there = await host.lstat(dest);
  const outputs = { path: dest };
  if (there && !p.force) return { inSync: true, comment: `The target file "${dest}" exists and will not be overwritten`, outputs };
  const identical = there !== null && there.type === 'file' && src.type === 'file' && (await sameContent(host, dest, p.source));
  const state: CopyState = { dest, identical };
  return { inSync: false, changes: { [dest]: p.source }, comment: `File "${p.source}" is set to be copied to "${dest}"`, outputs, state };
}

async function copyTree(host: Host, from: string, to: string): Promise<void> {
  const st = await host.lstat(from);
  if (!st) return;
  if (st.type === 'symlink') await host.symlink(await host.readlink(from), to);
  else if (st.type === 'directory') {
    await host.mkdir(to, { mode: st.mode });
    for (const name of (await host.readdir(from)).sort()) await copyTree(host, posix.join(from, name), posix.join(to, name));
  } else await host.writeFileAtomic(to, await host.readFile(from), { mode: st.mode });
}

async function apply(ctx: ResourceContext, p: CopyParams, checked: CheckOutcome): Promise<ApplyOutcome> {
  if (checked.inSync) return { ok: true, changes: {}, comment: checked.comment ?? '' };
  const { host } = ctx;
  const state = checked.state as CopyState;
  const dest = state.dest;
  if (await host.lstat(dest)) await host.remove(dest, { recursive: true });
  const failure = await ensureParent(host, dest, p.makedirs, `The target directory ${posix.dirname(dest)} is not present`);
  if (failure) return { ok: false, changes: {}, comment: failure };
  await copyTree(host, p.source, dest);
  const changes: Record<string, unknown> = { [dest]: p.source };
  const want = await resolveAttrs(host, p);
  const now = await host.lstat(dest);
  if (now) {
    Object.assign(changes, attrChanges(now, want));
    await applyAttrs(host, dest, now, want);
  }
  const note = state.identical ? ' - files are identical but force flag is set' : '';
  return { ok: true, changes, comment: `Copied "${p.source}" to "${dest}"${note}`, outputs: { path: dest } };
}

export const kind: Kind = {
  type: TYPE,
  validate: (params, node) => validateWith(TYPE, copySchema, params, node),
  schema: copySchema,
  check: (ctx, params) => check(ctx, parse(params)),
  apply: (ctx, params, checked) => apply(ctx, parse(params), checked),
};
