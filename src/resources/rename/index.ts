/**
 * `rename`: a path moved into place from another path on the same machine, once: when the source is gone
 * it is taken as moved; an existing target is kept unless `force` (Salt's file.rename).
 */
import { posix } from 'node:path';
import * as v from 'valibot';
import type { ApplyOutcome, CheckOutcome } from '../../core/model.js';
import type { ResourceContext } from '../../host/types.js';
import { type Kind, type Params, parseParams, validateWith, lazySchema } from '../kind.js';
import { absolutePathSchema, ensureParent } from '../paths.js';

const TYPE = 'rename';

export const renameSchema = lazySchema(() =>
  v.strictObject({
    path: absolutePathSchema,
    source: absolutePathSchema,
    force: v.optional(v.boolean(), false),
    makedirs: v.optional(v.boolean(), false),
  }),
);
type RenameParams = v.InferOutput<typeof renameSchema>;

function parse(params: Params): RenameParams {
  return parseParams(TYPE, renameSchema, params);
}

async function check(ctx: ResourceContext, p: RenameParams): Promise<CheckOutcome> {
  const outputs = { path: p.path };
  if (!(await ctx.host.lstat(p.source))) return { inSync: true, comment: `Source file "${p.source}" has already been moved out of place`, outputs };
  if ((await ctx.host.lstat(p.path)) && !p.force) return { inSync: true, comment: `The target file "${p.path}" exists and will not be overwritten`, outputs };
  return { inSync: false, changes: { [p.path]: p.source }, comment: `File "${p.source}" is set to be moved to "${p.path}"`, outputs };
}

async function apply(ctx: ResourceContext, p: RenameParams, checked: CheckOutcome): Promise<ApplyOutcome> {
  if (checked.inSync) return { ok: true, changes: {}, comment: checked.comment ?? '' };
  const { host } = ctx;
  if (await host.lstat(p.path)) await host.remove(p.path, { recursive: true });
  const failure = await ensureParent(host, p.path, p.makedirs, `The target directory ${posix.dirname(p.path)} is not present`);
  if (failure) return { ok: false, changes: {}, comment: failure };
  const r = await host.exec(['mv', '-T', '--', p.source, p.path]);
  if (r.code !== 0) return { ok: false, changes: {}, comment: `Failed to move "${p.source}" to "${p.path}"` };
  return { ok: true, changes: { [p.path]: p.source }, comment: `Moved "${p.source}" to "${p.path}"`, outputs: { path: p.path } };
}

export const kind: Kind = {
  type: TYPE,
  validate: (params, node) => validateWith(TYPE, renameSchema, params, node),
  schema: renameSchema,
  check: (ctx, params) => check(ctx, parse(params)),
  apply: (ctx, params, checked) => apply(ctx, parse(params), checked),
};
