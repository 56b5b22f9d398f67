/**
 * The step driver: one resource kind driven directly, as an imperative step (OtterScript operations,
 * Zapusk steps), with the scheduler's rules for errors. Bad params and anything the machine refuses come
 * back as a StepFailure in the kind's own words, which the language may catch; a bug in cairn (an
 * internal error, core/errors.ts) is rethrown untouched, so no language's `try` can swallow it.
 */
import { isInternal, messageOf } from '../core/errors.js';
import { type ApplyOutcome, type CheckOutcome, checkAtOnce, type GraphNode } from '../core/model.js';
import type { Span } from '../core/diag.js';
import type { ResourceContext } from '../host/types.js';
import { kinds } from './index.js';
import type { Kind } from './kind.js';

/** A step the machine refused, or whose params are wrong: the message is the kind's own. */
export class StepFailure extends Error {
  readonly isStepFailure = true;
  constructor(message: string) {
    super(message);
    this.name = 'StepFailure';
  }
  static is(e: unknown): e is StepFailure {
    return typeof e === 'object' && e !== null && (e as { isStepFailure?: unknown }).isStepFailure === true;
  }
}

function kindOf(type: string): Kind {
  const kind = kinds.get(type);
  if (!kind) throw new TypeError(`no resource kind "${type}"`);
  return kind;
}

/** The graph node a step stands for, so kinds see the same shape as in a graph. */
export function stepNode(type: string, id: string, params: Record<string, unknown>, span?: Span): GraphNode {
  const name = String(params.path ?? params.name ?? params.cmd ?? type);
  return span ? { id, type, name, params, span } : { id, type, name, params };
}

function failure(e: unknown): never {
  if (isInternal(e) || StepFailure.is(e)) throw e;
  throw new StepFailure(messageOf(e));
}

/** Validates the params, then checks (never changes the machine). */
export async function checkStep(ctx: ResourceContext, node: GraphNode): Promise<CheckOutcome> {
  const kind = kindOf(node.type);
  const params = node.params as Record<string, unknown>;
  const problems = kind.validate(params, node);
  if (problems.length > 0) throw new StepFailure(problems.map((d) => d.message).join('; '));
  try {
    // A resource the kind can tell at once is in its state needs no check (anything else, an error
    // included, is left to the check).
    const now = checkAtOnce(kind, ctx, params, node);
    if (now !== undefined) return now;
    return await kind.check(ctx, params, node);
  } catch (e) {
    return failure(e);
  }
}

/**
 * The step's check answered at once, without a promise: the in-sync outcome when the params are valid and
 * the kind can tell at once that the resource is in its state, else undefined (then `checkStep` decides,
 * and reports bad params or errors as it does).
 */
export function checkStepNow(ctx: ResourceContext, node: GraphNode): CheckOutcome | undefined {
  const kind = kindOf(node.type);
  if (kind.checkNow === undefined) return undefined;
  const params = node.params as Record<string, unknown>;
  if (kind.validate(params, node).length > 0) return undefined;
  return checkAtOnce(kind, ctx, params, node);
}

/** Applies after a check; a failed apply is returned as the kind reported it (`ok: false`). */
export async function applyStep(ctx: ResourceContext, node: GraphNode, check: CheckOutcome): Promise<ApplyOutcome> {
  try {
    return await kindOf(node.type).apply(ctx, node.params as Record<string, unknown>, check, node);
  } catch (e) {
    return failure(e);
  }
}
