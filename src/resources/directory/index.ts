/**
 * `directory`: a directory with mode and owner (Salt's file.directory). Comments and change records follow
 * Salt 3006: a new directory is `{path: {directory: "new"}}`; changed attributes are `mode`/`user`/`group`.
 */
import type { ApplyOutcome, CheckOutcome } from '../../core/model.js';
import type { ResourceContext, StatInfo } from '../../host/types.js';
import { applyAttrs, attrChanges, knownAttrs, resolveAttrs, type WantedAttrs } from '../attrs.js';
import { formatMode, type Kind, type Params, parseMode, parseParams, validateWith } from '../kind.js';
import { ensureParent, followLinks } from '../paths.js';
import { type DirectoryParams, directorySchema } from './schema.js';

const TYPE = 'directory';

interface DirectoryState {
  readonly target: string;
  readonly current: StatInfo | null;
  readonly want: WantedAttrs;
  /** recurse: what is below, in walk order (each level's files, then its directories, depth first). */
  readonly below?: ReadonlyArray<{ path: string; current: StatInfo; want: WantedAttrs; pending: Record<string, unknown> }>;
}

/** Salt's os.walk order: a level's files, then its directories, then each directory's own levels. */
async function walkBelow(ctx: ResourceContext, dir: string, out: Array<{ path: string; st: StatInfo }> = []): Promise<Array<{ path: string; st: StatInfo }>> {
  const names = (await ctx.host.readdir(dir)).sort();
  const files: Array<{ path: string; st: StatInfo }> = [];
  const dirs: Array<{ path: string; st: StatInfo }> = [];
  for (const n of names) {
    const path = `${dir}/${n}`;
    const st = await ctx.host.lstat(path);
    if (!st) continue;
    (st.type === 'directory' ? dirs : files).push({ path, st });
  }
  out.push(...files, ...dirs);
  for (const d of dirs) await walkBelow(ctx, d.path, out);
  return out;
}

async function belowState(ctx: ResourceContext, p: DirectoryParams): Promise<DirectoryState['below']> {
  const r = p.recurse;
  if (!r) return undefined;
  const out: Array<{ path: string; current: StatInfo; want: WantedAttrs; pending: Record<string, unknown> }> = [];
  for (const { path, st } of await walkBelow(ctx, p.path)) {
    const isDir = st.type === 'directory';
    if (isDir ? !r.dirs : !r.files) continue;
    const mode = st.type === 'symlink' ? undefined : isDir ? r.dir_mode : r.file_mode;
    const want = await resolveAttrs(ctx.host, { mode, owner: r.owner, group: r.group });
    const pending = attrChanges(st, want);
    if (Object.keys(pending).length > 0) out.push({ path, current: st, want, pending });
  }
  return out;
}

function parse(params: Params): DirectoryParams {
  return parseParams(TYPE, directorySchema, params);
}

function outputs(p: DirectoryParams, mode: number): Record<string, unknown> {
  return { path: p.path, mode: formatMode(mode) };
}

/** Salt's test-mode comment: one `path: key - value` line per pending change. */
function pendingComment(path: string, pending: Record<string, unknown>): string {
  const lines = Object.entries(pending).map(([k, val]) => `${path}: ${k} - ${String(val)}\n`);
  return `The following files will be changed:\n${lines.join('')}`;
}

async function check(ctx: ResourceContext, p: DirectoryParams): Promise<CheckOutcome> {
  const { target, stat: current } = await followLinks(ctx.host, p.path);
  if (current && current.type !== 'directory') {
    throw new Error(`Specified location ${p.path} exists and is a ${current.type === 'file' ? 'file' : 'special file'}`);
  }
  const want = await resolveAttrs(ctx.host, p);
  const state: DirectoryState = { target, current, want };
  if (!current) {
    return {
      inSync: false,
      changes: { [p.path]: { directory: 'new' } },
      comment: pendingComment(p.path, { directory: 'new' }),
      outputs: outputs(p, want.mode ?? 0o755),
      state,
    };
  }
  const pending = attrChanges(current, want);
  const below = await belowState(ctx, p);
  const withBelow: DirectoryState = { ...state, ...(below ? { below } : {}) };
  if (Object.keys(pending).length === 0 && !below?.length) {
    return { inSync: true, comment: `The directory ${p.path} is in the correct state`, outputs: outputs(p, current.mode), state: withBelow };
  }
  const changes: Record<string, Record<string, unknown>> = {};
  for (const b of below ?? []) changes[b.path] = b.pending;
  if (Object.keys(pending).length > 0) changes[p.path] = pending;
  const comment = `The following files will be changed:\n${Object.entries(changes).map(([path, c]) => pendingComment(path, c).replace(/^The following files will be changed:\n/, '')).join('')}`;
  return { inSync: false, changes, comment, outputs: outputs(p, want.mode ?? current.mode), state: withBelow };
}

/** check's answer for a directory in its state, given at once where that can be told (no symlink, nothing below to manage). */
function checkNow(ctx: ResourceContext, p: DirectoryParams): CheckOutcome | undefined {
  const now = ctx.host.immediate;
  if (now === undefined || p.recurse) return undefined;
  const want = knownAttrs(ctx.host, p);
  if (want === undefined) return undefined;
  const current = now.lstat(p.path);
  if (current?.type !== 'directory' || Object.keys(attrChanges(current, want)).length > 0) return undefined;
  return { inSync: true, comment: `The directory ${p.path} is in the correct state`, outputs: outputs(p, current.mode) };
}

async function apply(ctx: ResourceContext, p: DirectoryParams, checked: CheckOutcome): Promise<ApplyOutcome> {
  const { host } = ctx;
  const { target, current, want } = (checked.state as DirectoryState | undefined) ?? ((await check(ctx, p)).state as DirectoryState);
  if (!current) {
    const created = p.new_mode !== undefined ? parseMode(p.new_mode) : undefined;
    const failure = await ensureParent(host, target, p.makedirs, `No directory to create ${p.path} in`, created);
    if (failure) return { ok: false, comment: failure };
    const mode = want.mode ?? created;
    await host.mkdir(target, mode !== undefined ? { mode } : {});
    if (want.uid !== undefined || want.gid !== undefined) {
      await host.chown(target, want.uid ?? -1, want.gid ?? -1);
      // chown may clear setgid/sticky bits; restore the mode that was asked for.
      if (want.mode !== undefined) await host.chmod(target, want.mode);
    }
    // Salt 3006 leaves the comment of a created directory empty; the change record says what happened.
    return { ok: true, changes: { [p.path]: { directory: 'new' } }, comment: '', outputs: outputs(p, want.mode ?? 0o755) };
  }
  const top = attrChanges(current, want);
  await applyAttrs(host, target, current, want);
  const { below } = (checked.state as DirectoryState | undefined) ?? {};
  let changes: Record<string, unknown> = top;
  if (below) {
    // Salt's record with recurse: each path's pending change, then the keys of every change made, the last one winning.
    changes = {};
    for (const b of below) changes[b.path] = b.pending;
    if (Object.keys(top).length > 0) changes[p.path] = top;
    Object.assign(changes, top);
    for (const b of below) {
      await applyAttrs(host, b.path, b.current, b.want);
      Object.assign(changes, b.pending);
    }
  }
  const changed = Object.keys(changes).length > 0;
  return {
    ok: true,
    changes,
    comment: changed ? `Directory ${p.path} updated` : `The directory ${p.path} is in the correct state`,
    outputs: outputs(p, want.mode ?? current.mode),
  };
}

export const kind: Kind = {
  type: TYPE,
  validate: (params, node) => validateWith(TYPE, directorySchema, params, node),
  schema: directorySchema,
  check: (ctx, params) => check(ctx, parse(params)),
  checkNow: (ctx, params) => checkNow(ctx, parse(params)),
  apply: (ctx, params, checked) => apply(ctx, parse(params), checked),
};
