/**
 * `exists`: asserts that a path is there (or, with `present: false`, that it is not) without changing
 * anything (Salt's file.exists / file.missing). Symlinks are followed, as os.path.exists does.
 */
import * as v from 'valibot';
import type { CheckOutcome } from '../../core/model.js';
import type { ResourceContext } from '../../host/types.js';
import { type Kind, type Params, parseParams, validateWith, lazySchema } from '../kind.js';
import { absolutePathSchema } from '../paths.js';

const TYPE = 'exists';

export const existsSchema = lazySchema(() =>
  v.strictObject({
    path: absolutePathSchema,
    present: v.optional(v.boolean(), true),
  }),
);
type ExistsParams = v.InferOutput<typeof existsSchema>;

function parse(params: Params): ExistsParams {
  return parseParams(TYPE, existsSchema, params);
}

async function check(ctx: ResourceContext, p: ExistsParams): Promise<CheckOutcome> {
  const there = (await ctx.host.stat(p.path)) !== null;
  if (p.present && !there) throw new Error(`Specified path ${p.path} does not exist`);
  if (!p.present && there) throw new Error(`Specified path ${p.path} exists`);
  return { inSync: true, comment: p.present ? `Path ${p.path} exists` : `Path ${p.path} is missing`, outputs: { path: p.path } };
}

export const kind: Kind = {
  type: TYPE,
  validate: (params, node) => validateWith(TYPE, existsSchema, params, node),
  schema: existsSchema,
  check: (ctx, params) => check(ctx, parse(params)),
  apply: async (ctx, params) => {
    const c = await check(ctx, parse(params));
    return { ok: true, changes: {}, comment: c.comment ?? '' };
  },
};
