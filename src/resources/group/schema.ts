/** Params of the `group` kind (Salt's group.present / group.absent). */
import * as v from 'valibot';
import { accountId, accountName } from '../user/schema.js';
import { lazySchema } from '../kind.js';

export const groupSchema = lazySchema(() =>
  v.strictObject({
    name: accountName,
    state: v.optional(v.picklist(['present', 'absent']), 'present'),
    gid: v.optional(accountId),
    system: v.optional(v.boolean(), false),
    /** The exact member list (users added and removed to match). */
    members: v.optional(v.array(accountName)),
  }),
);

export type GroupParams = v.InferOutput<typeof groupSchema>;
