import * as v from 'valibot';
import { ownerSchema } from '../attrs.js';
import { modeSchema, lazySchema } from '../kind.js';
import { absolutePathSchema } from '../paths.js';

/** A directory's params, made anew (cleandir's params are these and more). */
export const directoryEntries = () =>
  ({
    path: absolutePathSchema,
    mode: v.optional(modeSchema),
    owner: v.optional(ownerSchema),
    group: v.optional(ownerSchema),
    /** The mode of directories this node creates (itself and missing parents), without enforcing it later. */
    new_mode: v.optional(modeSchema),
    /** Create missing parent directories. */
    makedirs: v.optional(v.boolean(), false),
    /**
     * Also manage what is below (Salt's recurse): files get `file_mode`, directories `dir_mode`, both the
     * owner and group when set here. Changes are then recorded per path, as Salt records them.
     */
    recurse: v.optional(
      v.strictObject({
        file_mode: v.optional(modeSchema),
        dir_mode: v.optional(modeSchema),
        owner: v.optional(ownerSchema),
        group: v.optional(ownerSchema),
        files: v.optional(v.boolean(), true),
        dirs: v.optional(v.boolean(), true),
      }),
    ),
  }) as const;

export const directorySchema = lazySchema(() => v.strictObject(directoryEntries()));

export type DirectoryParams = v.InferOutput<typeof directorySchema>;
