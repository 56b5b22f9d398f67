/**
 * `chown`: the owner and group of an existing path, or of a whole tree with `recursive` (Converge's
 * file.owner). It never creates the path: a missing path is a change the check cannot plan and an apply
 * failure. Each path that differs is one change, `user: NAME (ID); group: NAME (ID)` before and after.
 */
import * as v from 'valibot';
import type { ApplyOutcome, CheckOutcome } from '../../core/model.js';
import type { Host, ResourceContext } from '../../host/types.js';
import { type AccountDb, groupByGid, readAccounts } from '../accounts.js';
import { ownerSchema } from '../attrs.js';
import { type Kind, type Params, parseParams, validateWith, lazySchema } from '../kind.js';
import { absolutePathSchema } from '../paths.js';

const TYPE = 'chown';

export const chownSchema = lazySchema(() =>
  v.pipe(
    v.strictObject({
      path: absolutePathSchema,
      /** User name or uid. */
      owner: v.optional(ownerSchema),
      /** Group name or gid. */
      group: v.optional(ownerSchema),
      /** Every path below a directory too (symlinks themselves, not followed). */
      recursive: v.optional(v.boolean(), false),
    }),
    v.check((p) => p.owner !== undefined || p.group !== undefined, 'give an owner, a group or both'),
  ),
);

type ChownParams = v.InferOutput<typeof chownSchema>;

interface Wanted {
  readonly uid?: number;
  readonly gid?: number;
}

export interface OwnerChange {
  readonly path: string;
  readonly uid: number;
  readonly gid: number;
  readonly old: string;
  readonly new: string;
}

function parse(params: Params): ChownParams {
  return parseParams(TYPE, chownSchema, params);
}

function resolveId(db: AccountDb, v: string | number, what: 'user' | 'group'): number {
  if (typeof v === 'number') return v;
  if (/^\d+$/.test(v)) return Number(v);
  const found = what === 'user' ? db.users.find((u) => u.name === v)?.uid : db.groups.find((g) => g.name === v)?.gid;
  if (found === undefined) throw new Error(`unknown ${what} ${JSON.stringify(v)}`);
  return found;
}

function label(db: AccountDb, uid: number | undefined, gid: number | undefined): string {
  const parts: string[] = [];
  if (uid !== undefined) parts.push(`user: ${db.users.find((u) => u.uid === uid)?.name ?? uid} (${uid})`);
  if (gid !== undefined) parts.push(`group: ${groupByGid(db, gid)?.name ?? gid} (${gid})`);
  return parts.join('; ');
}

async function paths(host: Host, root: string, recursive: boolean): Promise<string[]> {
  const out = [root];
  if (!recursive) return out;
  const st = await host.lstat(root);
  if (st?.type !== 'directory') return out;
  for (const name of (await host.readdir(root)).sort()) out.push(...(await paths(host, `${root === '/' ? '' : root}/${name}`, true)));
  return out;
}

async function differences(host: Host, p: ChownParams): Promise<{ changes: OwnerChange[]; want: string }> {
  const db = await readAccounts(host);
  const want: Wanted = {
    ...(p.owner !== undefined ? { uid: resolveId(db, p.owner, 'user') } : {}),
    ...(p.group !== undefined ? { gid: resolveId(db, p.group, 'group') } : {}),
  };
  const changes: OwnerChange[] = [];
  for (const path of await paths(host, p.path, p.recursive)) {
    const st = await host.lstat(path);
    if (!st) continue;
    const userDiffers = want.uid !== undefined && st.uid !== want.uid;
    const groupDiffers = want.gid !== undefined && st.gid !== want.gid;
    if (!userDiffers && !groupDiffers) continue;
    changes.push({
      path,
      uid: userDiffers ? (want.uid as number) : -1,
      gid: groupDiffers ? (want.gid as number) : -1,
      old: label(db, userDiffers ? st.uid : undefined, groupDiffers ? st.gid : undefined),
      new: label(db, userDiffers ? want.uid : undefined, groupDiffers ? want.gid : undefined),
    });
  }
  return { changes, want: label(db, want.uid, want.gid) };
}

function record(list: readonly OwnerChange[]): Record<string, unknown> {
  return Object.fromEntries(list.map((c) => [c.path, { old: c.old, new: c.new }]));
}

async function check(ctx: ResourceContext, p: ChownParams): Promise<CheckOutcome> {
  if (!(await ctx.host.lstat(p.path))) {
    return { inSync: false, changes: {}, comment: `${p.path}: does not exist; will re-attempt during apply`, outputs: { path: p.path, missing: true } };
  }
  const { changes, want } = await differences(ctx.host, p);
  const outputs = { path: p.path, recursive: p.recursive, wanted: want };
  if (changes.length === 0) return { inSync: true, comment: `ownership of ${p.path} is as wanted`, outputs };
  return { inSync: false, changes: record(changes), comment: `${changes.length} path(s) to change ownership`, outputs, state: changes };
}

async function apply(ctx: ResourceContext, p: ChownParams): Promise<ApplyOutcome> {
  if (!(await ctx.host.lstat(p.path))) return { ok: false, comment: `cannot change ownership of non-existent file: ${p.path}` };
  const { changes, want } = await differences(ctx.host, p);
  for (const c of changes) await ctx.host.chown(c.path, c.uid, c.gid);
  return { ok: true, changes: record(changes), comment: `changed ownership of ${changes.length} path(s)`, outputs: { path: p.path, recursive: p.recursive, wanted: want } };
}

export const kind: Kind = {
  type: TYPE,
  validate: (params, node) => validateWith(TYPE, chownSchema, params, node),
  schema: chownSchema,
  check: (ctx, params) => check(ctx, parse(params)),
  apply: (ctx, params) => apply(ctx, parse(params)),
};
