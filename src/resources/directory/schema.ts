import * as v from 'valibot';
import { ownerSchema } from '../attrs.js';
import { modeSchema } from '../kind.js';
import { absolutePathSchema } from '../paths.js';

export const directorySchema = v.strictObject({
  path: absolutePathSchema,
  mode: v.optional(modeSchema),
  owner: v.optional(ownerSchema),
  group: v.optional(ownerSchema),
  /** The mode of directories this node creates (itself and missing parents), without enforcing it later. */
  new_mode: v.optional(modeSchema),
  /** Create missing parent directories. */
  makedirs: v.optional(v.boolean(), false),
});

export type DirectoryParams = v.InferOutput<typeof directorySchema>;
