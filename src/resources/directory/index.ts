/**
 * `directory`: a directory with mode and owner (Salt's file.directory). Comments and change records follow
 * Salt 3006: a new directory is `{path: {directory: "new"}}`; changed attributes are `mode`/`user`/`group`.
 */
import type { ApplyOutcome, CheckOutcome } from '../../core/model.js';
import type { ResourceContext, StatInfo } from '../../host/types.js';
import { applyAttrs, attrChanges, resolveAttrs, type WantedAttrs } from '../attrs.js';
import { formatMode, type Kind, type Params, parseMode, parseParams, validateWith } from '../kind.js';
import { ensureParent, followLinks } from '../paths.js';
import { type DirectoryParams, directorySchema } from './schema.js';

const TYPE = 'directory';

interface DirectoryState {
  readonly target: string;
  readonly current: StatInfo | null;
  readonly want: WantedAttrs;
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
  if (Object.keys(pending).length === 0) {
    return { inSync: true, comment: `The directory ${p.path} is in the correct state`, outputs: outputs(p, current.mode), state };
  }
  return { inSync: false, changes: { [p.path]: pending }, comment: pendingComment(p.path, pending), outputs: outputs(p, want.mode ?? current.mode), state };
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
  const changes = attrChanges(current, want);
  await applyAttrs(host, target, current, want);
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
  check: (ctx, params) => check(ctx, parse(params)),
  apply: (ctx, params, checked) => apply(ctx, parse(params), checked),
};
