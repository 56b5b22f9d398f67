/** Makes a file what its check found it should be: one atomic write for content, chmod/chown otherwise. */
import { posix } from 'node:path';
import type { ApplyOutcome, CheckOutcome } from '../../core/model.js';
import type { ResourceContext } from '../../host/types.js';
import { applyAttrs, attrChanges } from '../attrs.js';
import { formatMode, parseMode } from '../kind.js';
import { ensureParent } from '../paths.js';
import { checkFile, type FileState, fileOutputs } from './check.js';
import type { FileParams } from './schema.js';

/** Salt's check_cmd: the new content is written to a temporary file the command is run on; a non-zero exit refuses it. */
async function runCheckCmd(ctx: ResourceContext, cmd: string, data: Buffer): Promise<string | undefined> {
  const tmp = `/tmp/cairn-check-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  await ctx.host.writeFileAtomic(tmp, data, { mode: 0o600 });
  try {
    const r = await ctx.host.exec(`${cmd} ${tmp}`);
    if (r.code === 0) return undefined;
    let comment = 'check_cmd execution failed';
    if (r.stdout.trimEnd()) comment += `\n${r.stdout.trimEnd()}`;
    if (r.stderr.trimEnd()) comment += `\n${r.stderr.trimEnd()}`;
    return comment;
  } finally {
    await ctx.host.remove(tmp);
  }
}

export async function applyFile(ctx: ResourceContext, p: FileParams, check: CheckOutcome): Promise<ApplyOutcome> {
  const { host } = ctx;
  const state = (check.state as FileState | undefined) ?? ((await checkFile(ctx, p)).state as FileState);
  const { target, current, data, want } = state;
  if (p.check_cmd !== undefined && data !== undefined && (!current || state.contentChanged)) {
    const refused = await runCheckCmd(ctx, p.check_cmd, data);
    if (refused !== undefined) return { ok: false, changes: {}, comment: refused, outputs: { path: p.path, skip_watch: true } };
  }
  const owner = { ...(want.uid !== undefined ? { uid: want.uid } : {}), ...(want.gid !== undefined ? { gid: want.gid } : {}) };

  if (!current) {
    const parent = posix.dirname(target);
    const failure = await ensureParent(host, target, p.makedirs, `Parent directory ${parent} of ${p.path} is not present (set makedirs to create it)`);
    if (failure) return { ok: false, comment: failure };
    const mode = want.mode ?? parseMode(p.new_mode) ?? 0o644;
    await host.writeFileAtomic(target, data ?? '', { mode, ...owner });
    const changes: Record<string, unknown> = { diff: 'New file' };
    if (want.mode !== undefined) changes.mode = formatMode(want.mode);
    return { ok: true, changes, comment: `File ${p.path} updated`, outputs: fileOutputs(p, data, mode) };
  }

  const changes: Record<string, unknown> = {};
  if (state.contentChanged && data !== undefined) {
    changes.diff = check.changes?.diff;
    // The mode and owner travel with the new file; a replaced file keeps its own unless told otherwise.
    await host.writeFileAtomic(target, data, { ...(want.mode !== undefined ? { mode: want.mode } : {}), ...owner });
  } else {
    await applyAttrs(host, target, current, want);
  }
  Object.assign(changes, attrChanges(current, want));
  const ok = Object.keys(changes).length > 0;
  return {
    ok: true,
    changes,
    comment: ok ? `File ${p.path} updated` : `File ${p.path} is in the correct state`,
    outputs: fileOutputs(p, data, want.mode ?? current.mode),
  };
}
