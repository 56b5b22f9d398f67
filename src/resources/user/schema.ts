/** Params of the `user` kind (Salt's user.present / user.absent). */
import * as v from 'valibot';
import { lazySchema } from '../kind.js';

/** What passwd and group files can hold as a name: no colon, comma or whitespace, no leading dash. */
export const accountName = v.pipe(v.string(), v.regex(/^[^\s:,-][^\s:,]*$/, 'expected an account name (no ":", "," or spaces)'));
export const accountId = v.pipe(v.number(), v.integer(), v.minValue(0));

export const userSchema = lazySchema(() =>
  v.strictObject({
    name: accountName,
    state: v.optional(v.picklist(['present', 'absent']), 'present'),
    uid: v.optional(accountId),
    /** Primary group: a gid or a group name. */
    gid: v.optional(v.union([accountId, accountName])),
    home: v.optional(v.pipe(v.string(), v.regex(/^\//, 'expected an absolute path'))),
    shell: v.optional(v.pipe(v.string(), v.minLength(1))),
    /** The exact supplementary groups (members added and removed to match). */
    groups: v.optional(v.array(accountName)),
    system: v.optional(v.boolean(), false),
    createhome: v.optional(v.boolean(), true),
    /** With state absent: also remove the home directory and mail spool (userdel -r). */
    purge: v.optional(v.boolean(), false),
  }),
);

export type UserParams = v.InferOutput<typeof userSchema>;
