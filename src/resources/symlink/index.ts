/** `symlink`: a symbolic link pointing at a target (Salt's file.symlink), with comments as Salt 3006 gives them. */
import type { ApplyOutcome, CheckOutcome } from '../../core/model.js';
import type { ResourceContext, StatInfo } from '../../host/types.js';
import { ownerLabel } from '../attrs.js';
import { type Kind, type Params, parseParams, validateWith } from '../kind.js';
import { ensureParent } from '../paths.js';
import { type SymlinkParams, symlinkSchema } from './schema.js';

const TYPE = 'symlink';

type Situation = 'missing' | 'in-sync' | 'retarget' | 'forced';
interface SymlinkState {
  readonly situation: Situation;
  readonly current: StatInfo | null;
}

function parse(params: Params): SymlinkParams {
  return parseParams(TYPE, symlinkSchema, params);
}

async function check(ctx: ResourceContext, p: SymlinkParams): Promise<CheckOutcome> {
  const { host } = ctx;
  const current = await host.lstat(p.path);
  const outputs = { path: p.path, target: p.target };
  if (!current) {
    return { inSync: false, changes: { new: p.path }, comment: `Symlink ${p.path} to ${p.target} is set for creation`, outputs, state: { situation: 'missing', current } };
  }
  if (current.type === 'symlink') {
    if ((await host.readlink(p.path)) === p.target) {
      const owner = await ownerLabel(host, current.uid, current.gid);
      return { inSync: true, comment: `Symlink ${p.path} is present and owned by ${owner}`, outputs, state: { situation: 'in-sync', current } };
    }
    return { inSync: false, changes: { change: p.path }, comment: `Link ${p.path} target is set to be changed to ${p.target}`, outputs, state: { situation: 'retarget', current } };
  }
  if (!p.force) throw new Error(`File or directory exists where the symlink ${p.path} should be. Did you mean to use force?`);
  return {
    inSync: false,
    changes: { forced: p.path },
    comment: `The file or directory ${p.path} is set for removal to make way for a new symlink targeting ${p.target}`,
    outputs,
    state: { situation: 'forced', current },
  };
}

async function apply(ctx: ResourceContext, p: SymlinkParams, checked: CheckOutcome): Promise<ApplyOutcome> {
  const { host } = ctx;
  const { situation, current } = (checked.state as SymlinkState | undefined) ?? ((await check(ctx, p)).state as SymlinkState);
  const outputs = { path: p.path, target: p.target };
  if (situation === 'in-sync') return { ok: true, changes: {}, comment: checked.comment ?? '', outputs };
  if (situation === 'missing') {
    const failure = await ensureParent(host, p.path, p.makedirs, `Directory ${p.path.replace(/\/[^/]*$/, '') || '/'} for symlink is not present`);
    if (failure) return { ok: false, comment: failure };
  }
  // A link replaces a file or another link atomically; a directory has to go first.
  if (situation === 'forced' && current?.type === 'directory') await host.remove(p.path, { recursive: true });
  await host.symlink(p.target, p.path);
  if (situation === 'retarget') return { ok: true, changes: { change: p.path }, comment: `Set symlink ${p.path} to ${p.target}`, outputs };
  const changes: Record<string, unknown> = situation === 'forced' ? { forced: 'Symlink was forcibly replaced', new: p.path } : { new: p.path };
  return { ok: true, changes, comment: `Created new symlink ${p.path} -> ${p.target}`, outputs };
}

export const kind: Kind = {
  type: TYPE,
  validate: (params, node) => validateWith(TYPE, symlinkSchema, params, node),
  schema: symlinkSchema,
  check: (ctx, params) => check(ctx, parse(params)),
  apply: (ctx, params, checked) => apply(ctx, parse(params), checked),
};
