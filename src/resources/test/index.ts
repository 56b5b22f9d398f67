/**
 * `test`: a resource that pretends (Salt's test.succeed_without_changes, test.succeed_with_changes,
 * test.fail_with_changes, test.fail_without_changes, test.nop). It touches nothing; engine tests use it
 * to produce every kind of result, to take time (`sleep`) and to publish outputs for deferred values.
 */
import * as v from 'valibot';
import type { ApplyOutcome, CheckOutcome } from '../../core/model.js';
import { type Kind, type Params, parseParams, sleep, validateWith, lazySchema } from '../kind.js';


const TYPE = 'test';

export const testSchema = lazySchema(() =>
  v.strictObject({
    /** Salt's name; shown nowhere but accepted so that front ends can pass it through. */
    name: v.optional(v.string()),
    action: v.optional(v.picklist(['succeed', 'succeed_with_changes', 'fail', 'fail_without_changes', 'noop']), 'succeed'),
    /** Seconds to wait in check and in apply. */
    sleep: v.optional(v.pipe(v.number(), v.minValue(0))),
    /** Replaces the comment of every outcome. */
    comment: v.optional(v.string()),
    /** Returned as the outputs of check and apply. */
    outputs: v.optional(v.record(v.string(), v.unknown())),
  }),
);

type TestParams = v.InferOutput<typeof testSchema>;

const PRETEND = { testing: { old: 'Unchanged', new: 'Something pretended to change' } } as const;

function changes(): Record<string, unknown> {
  return { testing: { ...PRETEND.testing } };
}

function parse(params: Params): TestParams {
  return parseParams(TYPE, testSchema, params);
}

async function wait(p: TestParams): Promise<void> {
  if (p.sleep !== undefined && p.sleep > 0) await sleep(p.sleep * 1000);
}

function withOutputs<T extends object>(p: TestParams, outcome: T): T & { outputs?: Record<string, unknown> } {
  return p.outputs !== undefined ? { ...outcome, outputs: { ...p.outputs } } : outcome;
}

export const kind: Kind = {
  type: TYPE,
  validate: (params, node) => validateWith(TYPE, testSchema, params, node),
  schema: testSchema,
  async check(_ctx, params): Promise<CheckOutcome> {
    const p = parse(params);
    await wait(p);
    switch (p.action) {
      case 'succeed':
        return withOutputs(p, { inSync: true, comment: p.comment ?? 'Success!' });
      case 'noop':
        return withOutputs(p, { inSync: true, comment: p.comment ?? '' });
      case 'succeed_with_changes':
        return withOutputs(p, { inSync: false, changes: changes(), comment: p.comment ?? "If we weren't testing, this would be successful with changes" });
      case 'fail':
        return withOutputs(p, { inSync: false, changes: changes(), comment: p.comment ?? "If we weren't testing, this would be a failure!" });
      case 'fail_without_changes':
        throw new Error(p.comment ?? 'Failure!');
    }
  },
  async apply(_ctx, params): Promise<ApplyOutcome> {
    const p = parse(params);
    await wait(p);
    switch (p.action) {
      case 'succeed':
        return withOutputs(p, { ok: true, comment: p.comment ?? 'Success!' });
      case 'noop':
        return withOutputs(p, { ok: true, comment: p.comment ?? '' });
      case 'succeed_with_changes':
        return withOutputs(p, { ok: true, changes: changes(), comment: p.comment ?? 'Success!' });
      case 'fail':
        return withOutputs(p, { ok: false, changes: changes(), comment: p.comment ?? 'Failure!' });
      case 'fail_without_changes':
        return withOutputs(p, { ok: false, comment: p.comment ?? 'Failure!' });
    }
  },
};
