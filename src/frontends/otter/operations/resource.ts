/** Drives one shared resource kind directly, as an imperative step: validate, check, apply. */
import type { ApplyOutcome, CheckOutcome, GraphNode } from '../../../core/model.js';
import { kinds } from '../../../resources/index.js';
import { OtterError } from '../errors.js';
import type { OpContext } from './types.js';

function node(type: string, params: Record<string, unknown>, ctx: OpContext): GraphNode {
  return { id: `${type}:${String(params.path ?? params.name ?? params.cmd ?? '')}`, type, name: String(params.path ?? params.name ?? ''), params, span: ctx.span };
}

function kindOf(type: string) {
  const kind = kinds.get(type);
  if (!kind) throw new Error(`no resource kind "${type}"`);
  return kind;
}

export async function checkResource(ctx: OpContext, type: string, params: Record<string, unknown>): Promise<CheckOutcome> {
  const kind = kindOf(type);
  const n = node(type, params, ctx);
  const problems = kind.validate(params, n);
  if (problems.length > 0) throw new OtterError(problems.map((d) => d.message).join('; '), ctx.span);
  try {
    return await kind.check(ctx.resources, params, n);
  } catch (e) {
    throw new OtterError((e as Error).message, ctx.span);
  }
}

/** Applies after a check, returning a failed outcome as it is (the caller judges it). */
export async function applyOutcome(ctx: OpContext, type: string, params: Record<string, unknown>, check: CheckOutcome): Promise<ApplyOutcome> {
  try {
    return await kindOf(type).apply(ctx.resources, params, check, node(type, params, ctx));
  } catch (e) {
    throw new OtterError((e as Error).message, ctx.span);
  }
}

/** Applies after a check; a failed apply is a raised error with the kind's comment. */
export async function applyResource(ctx: OpContext, type: string, params: Record<string, unknown>, check: CheckOutcome): Promise<ApplyOutcome> {
  const out = await applyOutcome(ctx, type, params, check);
  if (!out.ok) throw new OtterError(out.comment ?? `${type} failed`, ctx.span);
  return out;
}

/** Check, then apply when not in sync; true when something changed. */
export async function ensureResource(ctx: OpContext, type: string, params: Record<string, unknown>): Promise<boolean> {
  const check = await checkResource(ctx, type, params);
  if (check.inSync) return false;
  await applyResource(ctx, type, params, check);
  return true;
}
