/** File operations: Ensure-File, Ensure-Directory, Create-File, Delete-Files, Copy-Files, Rename-File, Replace-Text. */
import { posix } from 'node:path';
import { OtterError } from '../errors.js';
import { matchFiles } from './masks.js';
import { applyResource, checkResource, ensureResource } from './resource.js';
import type { Collected, EnsureOperation, ExecuteOperation, OpArgs, OpContext } from './types.js';

interface Planned {
  readonly type: string;
  readonly params: Record<string, unknown>;
}

async function filePlan(ctx: OpContext, args: OpArgs): Promise<Planned> {
  const path = ctx.path(args.text('Name'));
  if (!args.bool('Exists', true)) return { type: 'absent', params: { path } };
  const params: Record<string, unknown> = { path, makedirs: true };
  if (args.has('Text')) params.content = args.text('Text');
  if (args.has('ReadOnly')) {
    const base = (await ctx.resources.host.stat(path))?.mode ?? 0o644;
    params.mode = args.bool('ReadOnly', false) ? base & ~0o222 : base | 0o200;
  }
  return { type: 'file', params };
}

/** Drift in the script's property names: a missing (or unwanted) item drifts on Exists only. */
async function collectPath(ctx: OpContext, args: OpArgs, plan: Planned, props: Record<string, string>): Promise<Collected> {
  const key = args.text('Name');
  const present = (await ctx.resources.host.lstat(plan.params.path as string)) !== null;
  const check = await checkResource(ctx, plan.type, plan.params);
  if (check.inSync) return { key, drift: [], state: plan };
  if (plan.type === 'absent' || !present) return { key, drift: ['Exists'], state: plan };
  const changed = Object.keys(check.changes ?? {}).flatMap((k) => {
    const inner = check.changes?.[k];
    // The directory kind nests its changes under the path.
    return typeof inner === 'object' && inner !== null && k === plan.params.path ? Object.keys(inner) : [k];
  });
  const drift = [...new Set(changed.map((c) => props[c] ?? c))];
  return { key, drift, state: plan };
}

async function configurePath(ctx: OpContext, collected: Collected, noun: string): Promise<{ changed: boolean }> {
  if (collected.drift.length === 0) {
    ctx.log('DEBUG', `${noun} ${collected.key} is already in the desired state.`);
    return { changed: false };
  }
  const plan = collected.state as Planned;
  const check = await checkResource(ctx, plan.type, plan.params);
  if (check.inSync) return { changed: false };
  await applyResource(ctx, plan.type, plan.params, check);
  ctx.log('INFO', plan.type === 'absent' ? `${noun} ${collected.key} deleted.` : `${noun} ${collected.key} configured.`);
  return { changed: true };
}

export const ensureFile: EnsureOperation = {
  type: 'ensure',
  name: 'Ensure-File',
  namespace: 'Files',
  positional: 'Name',
  args: [
    { name: 'Name', type: 'scalar', required: true },
    { name: 'Text', type: 'scalar', aliases: ['Contents'] },
    { name: 'Exists', type: 'bool' },
    { name: 'ReadOnly', type: 'bool' },
  ],
  collect: async (ctx, args) => collectPath(ctx, args, await filePlan(ctx, args), { newfile: 'Exists', diff: 'Text', mode: 'ReadOnly' }),
  configure: (ctx, _args, collected) => configurePath(ctx, collected, 'File'),
};

export const ensureDirectory: EnsureOperation = {
  type: 'ensure',
  name: 'Ensure-Directory',
  namespace: 'Files',
  positional: 'Name',
  args: [
    { name: 'Name', type: 'scalar', required: true },
    { name: 'Exists', type: 'bool' },
  ],
  collect: (ctx, args) => {
    const path = ctx.path(args.text('Name'));
    const plan = args.bool('Exists', true) ? { type: 'directory', params: { path, makedirs: true } } : { type: 'absent', params: { path } };
    return collectPath(ctx, args, plan, { directory: 'Exists' });
  },
  configure: (ctx, _args, collected) => configurePath(ctx, collected, 'Directory'),
};

export const createFile: ExecuteOperation = {
  type: 'execute',
  name: 'Create-File',
  namespace: 'Files',
  positional: 'Name',
  args: [
    { name: 'Name', type: 'scalar', required: true },
    { name: 'Text', type: 'scalar' },
    { name: 'Overwrite', type: 'bool' },
  ],
  key: (args) => args.text('Name'),
  async execute(ctx, args) {
    const name = args.text('Name');
    const path = ctx.path(name);
    ctx.log('INFO', 'Creating file...');
    if ((await ctx.resources.host.lstat(path)) !== null && !args.bool('Overwrite', false)) {
      throw new OtterError(`File ${name} already exists and Overwrite is false.`, ctx.span);
    }
    const changed = await ensureResource(ctx, 'file', { path, content: args.text('Text', ''), makedirs: true });
    ctx.log('INFO', `${name} file created.`);
    return { changed };
  },
};

function dirArg(ctx: OpContext, args: OpArgs, name: string): string {
  return ctx.path(args.text(name, '.') || '.');
}

export const deleteFiles: ExecuteOperation = {
  type: 'execute',
  name: 'Delete-Files',
  namespace: 'Files',
  positional: 'Include',
  args: [
    { name: 'Include', type: 'vector', required: true, aliases: ['Files'] },
    { name: 'Exclude', type: 'vector' },
    { name: 'Directory', type: 'scalar', aliases: ['SourceDirectory', 'From'] },
  ],
  key: (args) => args.list('Include').join(', '),
  async execute(ctx, args) {
    const dir = dirArg(ctx, args, 'Directory');
    const files = await matchFiles(ctx.resources.host, dir, args.list('Include'), args.list('Exclude', []));
    for (const rel of files) {
      ctx.log('DEBUG', `Deleting ${rel}...`);
      await ensureResource(ctx, 'absent', { path: posix.join(dir, rel) });
    }
    ctx.log('INFO', files.length === 0 ? 'No files matched; nothing deleted.' : `${files.length} file${files.length === 1 ? '' : 's'} deleted.`);
    return { changed: files.length > 0 };
  },
};

export const copyFiles: ExecuteOperation = {
  type: 'execute',
  name: 'Copy-Files',
  namespace: 'Files',
  args: [
    { name: 'From', type: 'scalar', aliases: ['SourceDirectory'] },
    { name: 'To', type: 'scalar', required: true, aliases: ['TargetDirectory'] },
    { name: 'Include', type: 'vector' },
    { name: 'Exclude', type: 'vector' },
    { name: 'Overwrite', type: 'bool' },
  ],
  key: (args) => args.text('To'),
  async execute(ctx, args) {
    const from = dirArg(ctx, args, 'From');
    const to = ctx.path(args.text('To'));
    const files = await matchFiles(ctx.resources.host, from, args.list('Include', ['**']), args.list('Exclude', []));
    let copied = 0;
    for (const rel of files) {
      const target = posix.join(to, rel);
      if ((await ctx.resources.host.lstat(target)) !== null && !args.bool('Overwrite', false)) {
        ctx.log('WARN', `File ${rel} already exists in ${args.text('To')} and Overwrite is false; skipped.`);
        continue;
      }
      if (await ensureResource(ctx, 'file', { path: target, source: posix.join(from, rel), makedirs: true })) copied++;
    }
    ctx.log('INFO', `${copied} file${copied === 1 ? '' : 's'} copied.`);
    return { changed: copied > 0 };
  },
};

export const renameFile: ExecuteOperation = {
  type: 'execute',
  name: 'Rename-File',
  namespace: 'Files',
  args: [
    { name: 'From', type: 'scalar', required: true },
    { name: 'To', type: 'scalar', required: true },
    { name: 'Overwrite', type: 'bool' },
  ],
  key: (args) => args.text('From'),
  async execute(ctx, args) {
    const from = ctx.path(args.text('From'));
    const to = ctx.path(args.text('To'));
    const host = ctx.resources.host;
    if ((await host.stat(from))?.type !== 'file') throw new OtterError(`File ${args.text('From')} does not exist.`, ctx.span);
    if ((await host.lstat(to)) !== null && !args.bool('Overwrite', false)) throw new OtterError(`File ${args.text('To')} already exists and Overwrite is false.`, ctx.span);
    ctx.log('INFO', `Renaming ${args.text('From')} to ${args.text('To')}...`);
    await ensureResource(ctx, 'file', { path: to, source: from, makedirs: true });
    await ensureResource(ctx, 'absent', { path: from });
    return { changed: true };
  },
};

export const replaceText: ExecuteOperation = {
  type: 'execute',
  name: 'Replace-Text',
  namespace: 'Files',
  args: [
    { name: 'SearchText', type: 'scalar', required: true },
    { name: 'ReplaceWith', type: 'scalar' },
    { name: 'Include', type: 'vector' },
    { name: 'Exclude', type: 'vector' },
    { name: 'Directory', type: 'scalar' },
    { name: 'Regex', type: 'bool', aliases: ['UseRegex'] },
  ],
  key: (args) => args.text('SearchText'),
  async execute(ctx, args) {
    const dir = dirArg(ctx, args, 'Directory');
    const search = args.text('SearchText');
    const pattern = args.bool('Regex', false) ? new RegExp(search, 'g') : new RegExp(search.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g');
    const replacement = args.text('ReplaceWith', '');
    let changed = 0;
    for (const rel of await matchFiles(ctx.resources.host, dir, args.list('Include', ['*']), args.list('Exclude', []))) {
      const path = posix.join(dir, rel);
      const old = (await ctx.resources.host.readFile(path)).toString('utf8');
      const now = args.bool('Regex', false) ? old.replace(pattern, replacement) : old.replace(pattern, () => replacement);
      if (now === old) continue;
      ctx.log('INFO', `Replacing text in ${rel}...`);
      if (await ensureResource(ctx, 'file', { path, content: now })) changed++;
    }
    if (changed === 0) ctx.log('INFO', 'No matching text found.');
    return { changed: changed > 0 };
  },
};
