/** Params of the `command` kind (Salt's cmd.run, Converge's shell task, Zapusk's steps). */
import * as v from 'valibot';
import { lazySchema } from '../kind.js';

const commandLine = v.pipe(v.string(), v.minLength(1, 'expected a non-empty command'));
const argv = v.pipe(v.array(v.string()), v.minLength(1, 'expected a non-empty argv list'));
const oneOrMany = v.union([commandLine, v.array(commandLine)]);
const path = v.pipe(v.string(), v.minLength(1, 'expected a non-empty path'));

export const commandSchema = lazySchema(() =>
  v.strictObject({
    /** A string runs through a shell; an argv array runs the program directly. */
    cmd: v.union([commandLine, argv]),
    cwd: v.optional(path),
    env: v.optional(v.record(v.string(), v.union([v.string(), v.number(), v.boolean()]))),
    /** true: through /bin/sh (the default for a string); false: split into words, no shell; a path: that shell with -c. */
    shell: v.optional(v.union([v.boolean(), path])),
    /** Seconds. */
    timeout: v.optional(v.pipe(v.number(), v.gtValue(0, 'expected a positive number of seconds'))),
    stdin: v.optional(v.string()),
    /** Skip when every one of these exits 0. */
    unless: v.optional(oneOrMany),
    /** Run only when every one of these exits 0. */
    onlyif: v.optional(oneOrMany),
    /** Skip when every one of these paths exists. */
    creates: v.optional(v.union([path, v.array(path)])),
    success_codes: v.optional(v.pipe(v.array(v.pipe(v.number(), v.integer())), v.minLength(1)), [0]),
  }),
);

export type CommandParams = v.InferOutput<typeof commandSchema>;
