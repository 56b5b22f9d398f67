import * as v from 'valibot';
import { absolutePathSchema } from '../paths.js';
import { lazySchema } from '../kind.js';

export const symlinkSchema = lazySchema(() =>
  v.strictObject({
    path: absolutePathSchema,
    /** What the link points to, stored as given (relative targets stay relative). */
    target: v.pipe(v.string(), v.minLength(1, 'expected a link target')),
    /** Replace a file or directory that stands where the link should be. */
    force: v.optional(v.boolean(), false),
    /** Create missing parent directories. */
    makedirs: v.optional(v.boolean(), false),
  }),
);

export type SymlinkParams = v.InferOutput<typeof symlinkSchema>;
