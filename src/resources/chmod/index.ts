/**
 * `chmod`: the permission bits of an existing path (Converge's file.mode). It never creates the path: a
 * missing path is a change with a warning at check time and a failure at apply time. Modes show as
 * `ls -l` does (`-rw-r--r--`), the way Converge prints them.
 */
import * as v from 'valibot';
import type { ApplyOutcome, CheckOutcome } from '../../core/model.js';
import type { ResourceContext } from '../../host/types.js';
import { type Kind, modeSchema, type Params, parseMode, parseParams, validateWith, lazySchema } from '../kind.js';
import { absolutePathSchema } from '../paths.js';

const TYPE = 'chmod';

export const chmodSchema = lazySchema(() =>
  v.strictObject({
    path: absolutePathSchema,
    mode: modeSchema,
  }),
);

type ChmodParams = v.InferOutput<typeof chmodSchema>;

function parse(params: Params): ChmodParams {
  return parseParams(TYPE, chmodSchema, params);
}

/** Permission bits as `ls -l` shows them, with a leading `-`. */
export function permString(mode: number): string {
  const bits = 'rwxrwxrwx';
  let s = '-';
  for (let i = 0; i < 9; i++) s += mode & (1 << (8 - i)) ? bits[i] : '-';
  return s;
}

async function check(ctx: ResourceContext, p: ChmodParams): Promise<CheckOutcome> {
  const want = (parseMode(p.mode) as number) & 0o777;
  const st = await ctx.host.stat(p.path);
  if (!st) {
    return {
      inSync: false,
      changes: { [p.path]: { old: permString(0), new: permString(want) } },
      comment: `${JSON.stringify(p.path)} does not exist`,
      outputs: { path: p.path, missing: true, mode: permString(want) },
    };
  }
  const have = st.mode & 0o777;
  const outputs = { path: p.path, mode: permString(have), wanted: permString(want), messages: [`${JSON.stringify(p.path)} exists`, `${JSON.stringify(p.path)}'s mode is ${JSON.stringify(permString(have))} expected ${JSON.stringify(permString(want))}`] };
  if (have === want) return { inSync: true, comment: `${JSON.stringify(p.path)} exists`, outputs: { ...outputs, wanted: permString(want) } };
  return { inSync: false, changes: { [p.path]: { old: permString(have), new: permString(want) } }, comment: `${JSON.stringify(p.path)} exists`, outputs };
}

async function apply(ctx: ResourceContext, p: ChmodParams, checked: CheckOutcome): Promise<ApplyOutcome> {
  const want = (parseMode(p.mode) as number) & 0o777;
  if (!(await ctx.host.stat(p.path))) return { ok: false, comment: `chmod ${p.path}: no such file or directory` };
  await ctx.host.chmod(p.path, want);
  const now = permString(want);
  const messages = [`${JSON.stringify(p.path)} exists`, `${JSON.stringify(p.path)}'s mode is ${JSON.stringify(now)} expected ${JSON.stringify(now)}`];
  return { ok: true, changes: checked.changes ?? {}, comment: `mode of ${p.path} set to ${now}`, outputs: { path: p.path, mode: now, wanted: now, messages } };
}

export const kind: Kind = {
  type: TYPE,
  validate: (params, node) => validateWith(TYPE, chmodSchema, params, node),
  schema: chmodSchema,
  check: (ctx, params) => check(ctx, parse(params)),
  apply: (ctx, params, checked) => apply(ctx, parse(params), checked),
};
