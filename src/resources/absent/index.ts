/** `absent`: nothing at a path — a file, symlink or whole directory tree is removed (Salt's file.absent). */
import * as v from 'valibot';
import type { ApplyOutcome, CheckOutcome } from '../../core/model.js';
import type { ResourceContext } from '../../host/types.js';
import { type Kind, type Params, parseParams, validateWith, lazySchema } from '../kind.js';
import { absolutePathSchema } from '../paths.js';

const TYPE = 'absent';

export const absentSchema = lazySchema(() =>
  v.strictObject({
    path: v.pipe(
      absolutePathSchema,
      v.check((p) => p !== '/', 'refusing to make "/" absent'),
    ),
  }),
);
type AbsentParams = v.InferOutput<typeof absentSchema>;

function parse(params: Params): AbsentParams {
  return parseParams(TYPE, absentSchema, params);
}

/** A symlink to a directory is a link: only the link goes. */
async function what(ctx: ResourceContext, path: string): Promise<'file' | 'directory' | null> {
  const st = await ctx.host.lstat(path);
  if (!st) return null;
  return st.type === 'directory' ? 'directory' : 'file';
}

async function check(ctx: ResourceContext, p: AbsentParams): Promise<CheckOutcome> {
  const found = await what(ctx, p.path);
  const outputs = { path: p.path };
  if (!found) return { inSync: true, comment: `File ${p.path} is not present`, outputs };
  return {
    inSync: false,
    changes: { removed: p.path },
    comment: `${found === 'directory' ? 'Directory' : 'File'} ${p.path} is set for removal`,
    outputs,
    state: found,
  };
}

async function apply(ctx: ResourceContext, p: AbsentParams, checked: CheckOutcome): Promise<ApplyOutcome> {
  const found = (checked.state as 'file' | 'directory' | undefined) ?? (await what(ctx, p.path));
  const outputs = { path: p.path };
  if (!found) return { ok: true, changes: {}, comment: `File ${p.path} is not present`, outputs };
  await ctx.host.remove(p.path, { recursive: true });
  return { ok: true, changes: { removed: p.path }, comment: `Removed ${found === 'directory' ? 'directory' : 'file'} ${p.path}`, outputs };
}

export const kind: Kind = {
  type: TYPE,
  validate: (params, node) => validateWith(TYPE, absentSchema, params, node),
  schema: absentSchema,
  check: (ctx, params) => check(ctx, parse(params)),
  apply: (ctx, params, checked) => apply(ctx, parse(params), checked),
};
