/** Params of the `task` kind: a check script and an apply script run by an interpreter (Converge's task). */
import * as v from 'valibot';
import { lazySchema } from '../kind.js';

const flags = v.array(v.string());

export const taskSchema = lazySchema(() =>
  v.strictObject({
    /** Exit 0 means in the desired state; any other exit status means the apply script should run. */
    check: v.string(),
    apply: v.optional(v.string()),
    /** The program the scripts are fed to on stdin. */
    interpreter: v.optional(v.pipe(v.string(), v.minLength(1, 'expected an interpreter path')), '/bin/sh'),
    check_flags: v.optional(flags, []),
    exec_flags: v.optional(flags, []),
    dir: v.optional(v.pipe(v.string(), v.minLength(1, 'expected a directory'))),
    env: v.optional(v.record(v.string(), v.union([v.string(), v.number(), v.boolean()]))),
    /** Seconds each script may run. */
    timeout: v.optional(v.pipe(v.number(), v.gtValue(0, 'expected a positive number of seconds'))),
    /** A read-only query: the check script runs for its output and never asks for changes. */
    query: v.optional(v.boolean(), false),
    /**
     * A health check with nothing to apply (Converge's healthcheck.task): a failing check is reported, and
     * an apply records an empty run with status 0 instead of failing.
     */
    health: v.optional(v.boolean(), false),
  }),
);

export type TaskParams = v.InferOutput<typeof taskSchema>;
