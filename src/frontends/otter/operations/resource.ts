/** Drives one shared resource kind directly, as an imperative step: validate, check, apply. */
import type { ApplyOutcome, CheckOutcome, GraphNode } from '../../../core/model.js';
import { applyStep, checkStep, checkStepNow, StepFailure, stepNode } from '../../../resources/drive.js';
import { OtterError } from '../errors.js';
import type { OpContext } from './types.js';

function node(type: string, params: Record<string, unknown>, ctx: OpContext): GraphNode {
  return stepNode(type, `${type}:${String(params.path ?? params.name ?? params.cmd ?? '')}`, params, ctx.span);
}

/** What the machine refused is an OtterScript error a `try` may catch; a bug in cairn passes through untouched. */
function raised(e: unknown, ctx: OpContext): never {
  if (StepFailure.is(e)) throw new OtterError(e.message, ctx.span);
  throw e;
}

export async function checkResource(ctx: OpContext, type: string, params: Record<string, unknown>): Promise<CheckOutcome> {
  try {
    return await checkStep(ctx.resources, node(type, params, ctx));
  } catch (e) {
    return raised(e, ctx);
  }
}

/** The in-sync outcome when it can be told at once (no promise), else undefined: `checkResource` then decides. */
export function checkResourceNow(ctx: OpContext, type: string, params: Record<string, unknown>): CheckOutcome | undefined {
  return checkStepNow(ctx.resources, node(type, params, ctx));
}

/** Applies after a check, returning a failed outcome as it is (the caller judges it). */
export async function applyOutcome(ctx: OpContext, type: string, params: Record<string, unknown>, check: CheckOutcome): Promise<ApplyOutcome> {
  try {
    return await applyStep(ctx.resources, node(type, params, ctx), check);
  } catch (e) {
    return raised(e, ctx);
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
