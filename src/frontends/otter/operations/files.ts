/**
 * File operations: Ensure-File, Ensure-Directory, Create-File, Delete-Files, Copy-Files, Rename-File and
 * Replace-Text, logging what Inedo's file operations log (InedoCore), acting through the shared kinds.
 */
import { posix } from 'node:path';
import { matchEntries } from './masks.js';
import { applyResource, checkResource, checkResourceNow, ensureResource } from './resource.js';
import type { DriftDetail } from '../engine-types.js';
import type { Collected, EnsureOperation, ExecuteOperation, OpArgs, OpContext, OpOutcome } from './types.js';

/** The outcome of a call that changed nothing and hands back no outputs: one frozen object shared by them. */
const UNCHANGED: OpOutcome = Object.freeze({ changed: false });

interface Planned {
  readonly type: string;
  readonly params: Record<string, unknown>;
}

async function filePlan(ctx: OpContext, args: OpArgs): Promise<Planned> {
  const plan = plainFilePlan(ctx, args);
  if (plan) return plan;
  const path = ctx.path(args.text('Name'));
  const params: Record<string, unknown> = { path, makedirs: true };
  if (args.has('Text')) params.content = args.text('Text');
  const base = (await ctx.resources.host.stat(path))?.mode ?? 0o644;
  params.mode = args.bool('ReadOnly', false) ? base & ~0o222 : base | 0o200;
  return { type: 'file', params };
}

/** The plan when it needs nothing read from the machine (no ReadOnly, whose mode builds on the file's). */
function plainFilePlan(ctx: OpContext, args: OpArgs): Planned | undefined {
  const path = ctx.path(args.text('Name'));
  if (!args.bool('Exists', true)) return { type: 'absent', params: { path } };
  if (args.has('ReadOnly')) return undefined;
  return { type: 'file', params: args.has('Text') ? { path, makedirs: true, content: args.text('Text') } : { path, makedirs: true } };
}

/** Drift in the script's property names: a missing (or unwanted) item drifts on Exists only. */
async function compare(ctx: OpContext, key: string, plan: Planned, present: boolean, props: Record<string, string>, flags: Record<string, string> = {}): Promise<Collected> {
  const check = await checkResource(ctx, plan.type, plan.params);
  if (check.inSync) return { key, drift: [] };
  if (plan.type === 'absent' || !present) {
    const wanted = plan.type !== 'absent';
    return { key, drift: ['Exists'], details: [{ property: 'Exists', expected: String(wanted), actual: String(!wanted) }] };
  }
  const changed = Object.keys(check.changes ?? {}).flatMap((k) => {
    const inner = check.changes?.[k];
    // The directory kind nests its changes under the path.
    return typeof inner === 'object' && inner !== null && k === plan.params.path ? Object.keys(inner) : [k];
  });
  const drift = [...new Set(changed.map((c) => props[c] ?? c))];
  const details: DriftDetail[] = [];
  const diff = check.changes?.diff;
  if (drift.includes('Text') && typeof diff === 'string') details.push({ property: 'Text', diff: diff.replace(/^--- \n\+\+\+ \n/, `--- ${key} (found)\n+++ ${key} (wanted)\n`) });
  for (const [property, expected] of Object.entries(flags)) {
    if (drift.includes(property)) details.push({ property, expected, actual: expected === 'true' ? 'false' : 'true' });
  }
  return details.length > 0 ? { key, drift, details } : { key, drift };
}

/** Check and apply one kind; true when something changed. */
async function converge(ctx: OpContext, plan: Planned): Promise<boolean> {
  const check = await checkResource(ctx, plan.type, plan.params);
  if (check.inSync) return false;
  await applyResource(ctx, plan.type, plan.params, check);
  return true;
}

const FILE_PROPS: Record<string, string> = { newfile: 'Exists', diff: 'Text', content: 'Text', mode: 'ReadOnly' };

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
  async collect(ctx, args) {
    const name = args.text('Name');
    ctx.log('DEBUG', `Looking for ${name}...`);
    const plain = plainFilePlan(ctx, args);
    if (plain?.type === 'file' && checkResourceNow(ctx, plain.type, plain.params) !== undefined) {
      ctx.log('DEBUG', 'File exists, loading from disk...');
      ctx.log('DEBUG', 'File configuration loaded.');
      return { key: name, drift: [] };
    }
    const present = (await ctx.resources.host.stat(ctx.path(name)))?.type === 'file';
    if (!present) ctx.log('DEBUG', 'File does not exist.');
    else {
      ctx.log('DEBUG', 'File exists, loading from disk...');
      ctx.log('DEBUG', 'File configuration loaded.');
    }
    return compare(ctx, name, await filePlan(ctx, args), present, FILE_PROPS, args.has('ReadOnly') ? { ReadOnly: String(args.bool('ReadOnly', false)) } : {});
  },
  configure(ctx, args) {
    const name = args.text('Name');
    // DEBUG messages are made only for a run that keeps them.
    const debug = ctx.debug;
    if (debug) ctx.log('DEBUG', `Looking for ${name}...`);
    // A file the kind finds in its state at once (a regular file, so one that exists) logs what a present
    // file logs, without reading the machine twice, and without a promise.
    const plain = plainFilePlan(ctx, args);
    if (plain?.type === 'file' && checkResourceNow(ctx, plain.type, plain.params) !== undefined) {
      if (debug) {
        ctx.log('DEBUG', 'Setting properties...');
        if (args.has('Text')) ctx.log('DEBUG', 'Writing out TextContents...');
      }
      ctx.log('INFO', `File ${name} configured.`);
      return UNCHANGED;
    }
    return configureFile(ctx, args, name, plain);
  },
};

/** Ensure-File's configure for a file not found in its state at once: `Looking for` is logged already. */
async function configureFile(ctx: OpContext, args: OpArgs, name: string, plain: Planned | undefined): Promise<OpOutcome> {
  const path = ctx.path(name);
  const host = ctx.resources.host;
  const present = (await host.stat(path))?.type === 'file';
  const plan = plain ?? (await filePlan(ctx, args));
  if (plan.type === 'absent') {
    if (!present) {
      ctx.log('DEBUG', 'File does not exist.');
      return { changed: false };
    }
    ctx.log('DEBUG', `File ${name} exists, deleting...`);
    await converge(ctx, plan);
    ctx.log('INFO', 'File deleted.');
    return { changed: true };
  }
  if (!present) {
    ctx.log('DEBUG', 'File does not exist, creating...');
    if ((await host.stat(posix.dirname(path)))?.type !== 'directory') ctx.log('DEBUG', 'Directory does not exist, creating...');
  }
  ctx.log('DEBUG', 'Setting properties...');
  if (args.has('Text')) ctx.log('DEBUG', 'Writing out TextContents...');
  if (args.has('ReadOnly')) ctx.log('DEBUG', 'Setting IsReadOnly...');
  const changed = await converge(ctx, plan);
  ctx.log('INFO', `File ${name} configured.`);
  return { changed };
}

export const ensureDirectory: EnsureOperation = {
  type: 'ensure',
  name: 'Ensure-Directory',
  namespace: 'Files',
  positional: 'Name',
  args: [
    { name: 'Name', type: 'scalar', required: true },
    { name: 'Exists', type: 'bool' },
  ],
  async collect(ctx, args) {
    const name = args.text('Name');
    const path = ctx.path(name);
    ctx.log('DEBUG', `Looking for ${name}...`);
    const present = (await ctx.resources.host.stat(path))?.type === 'directory';
    if (!present) ctx.log('DEBUG', 'Directory does not exist.');
    else {
      ctx.log('DEBUG', 'Directory exists, loading from disk...');
      ctx.log('DEBUG', 'Directory configuration loaded.');
    }
    const plan = args.bool('Exists', true) ? { type: 'directory', params: { path, makedirs: true } } : { type: 'absent', params: { path } };
    return compare(ctx, name, plan, present, { directory: 'Exists' });
  },
  async configure(ctx, args) {
    const name = args.text('Name');
    const path = ctx.path(name);
    ctx.log('DEBUG', `Looking for ${name}...`);
    const present = (await ctx.resources.host.stat(path))?.type === 'directory';
    if (!args.bool('Exists', true)) {
      if (!present) {
        ctx.log('DEBUG', 'Directory does not exist.');
        return { changed: false };
      }
      ctx.log('DEBUG', 'Directory exists, removing...');
      await converge(ctx, { type: 'absent', params: { path } });
      ctx.log('INFO', `Deleted directory ${name}.`);
      return { changed: true };
    }
    if (!present) ctx.log('DEBUG', 'Directory does not exist, creating...');
    const changed = await converge(ctx, { type: 'directory', params: { path, makedirs: true } });
    ctx.log('INFO', `Directory ${name} configured.`);
    return { changed };
  },
};

/** An octal file mode written in decimal digits (`644`), as Create-File's FileMode is. */
function fileMode(text: string): number | undefined {
  return /^[0-7]{3,4}$/.test(text) ? parseInt(text, 8) : undefined;
}

export const createFile: ExecuteOperation = {
  type: 'execute',
  name: 'Create-File',
  namespace: 'Files',
  positional: 'Name',
  args: [
    { name: 'Name', type: 'scalar', required: true },
    { name: 'Text', type: 'scalar' },
    { name: 'Overwrite', type: 'bool' },
    { name: 'FileMode', type: 'scalar' },
  ],
  key: (args) => args.text('Name'),
  async execute(ctx, args) {
    const name = args.text('Name');
    const path = ctx.path(name);
    if ((await ctx.resources.host.stat(path))?.type === 'file') {
      ctx.log('DEBUG', `File ${path} already exists.`);
      if (!args.bool('Overwrite', false)) {
        ctx.log('ERROR', `${name} already exists and overwrite is set to false.`);
        return { changed: false };
      }
    }
    ctx.log('INFO', 'Creating file...');
    ctx.log('DEBUG', `Creating directories for ${path}...`);
    ctx.log('DEBUG', `Creating ${path}...`);
    const mode = fileMode(args.text('FileMode', '644') || '644');
    if (mode === undefined) {
      ctx.log('ERROR', 'Invalid file mode specified.');
      return { changed: false };
    }
    const changed = await ensureResource(ctx, 'file', { path, content: args.text('Text', '').replace(/\r?\n/g, '\n'), makedirs: true, mode });
    ctx.log('INFO', `${path} file created.`);
    return { changed };
  },
};

export const deleteFiles: ExecuteOperation = {
  type: 'execute',
  name: 'Delete-Files',
  namespace: 'Files',
  positional: 'Include',
  args: [
    { name: 'Include', type: 'vector', required: true },
    { name: 'Exclude', type: 'vector' },
    { name: 'Directory', type: 'scalar' },
    { name: 'Verbose', type: 'bool' },
  ],
  key: (args) => args.list('Include').join(', '),
  async execute(ctx, args) {
    const dir = ctx.path(args.text('Directory', ''));
    const host = ctx.resources.host;
    const verbose = args.bool('Verbose', false);
    ctx.log('DEBUG', `Deleting files from ${dir}...`);
    if ((await host.stat(dir))?.type !== 'directory') {
      ctx.log('INFO', `${dir} does not exist.`);
      return { changed: false };
    }
    const include = args.list('Include');
    const exclude = args.list('Exclude', []);
    if (include[0] === '**' && exclude.length === 0 && !verbose) {
      ctx.log('DEBUG', 'Mask indicates that files and directories should be deleted recursively, clearing directory...');
      const names = await host.readdir(dir);
      for (const n of names) await ensureResource(ctx, 'absent', { path: posix.join(dir, n) });
      ctx.log('INFO', 'Directory cleared.');
      return { changed: names.length > 0 };
    }
    const { files, dirs } = await matchEntries(host, dir, include, exclude);
    // Deepest first, so that a directory is empty before it goes.
    const depth = (p: string): number => p.split('/').length;
    const fileList = files.map((f) => posix.join(dir, f)).sort((a, b) => depth(b) - depth(a));
    const dirList = dirs.map((d) => posix.join(dir, d)).sort((a, b) => depth(b) - depth(a));
    for (const f of fileList) {
      if (verbose) ctx.log('DEBUG', `Deleting file: ${f}`);
      await ensureResource(ctx, 'absent', { path: f });
    }
    for (const d of dirList) {
      if (verbose) ctx.log('DEBUG', `Deleting directory: ${d}`);
      await ensureResource(ctx, 'absent', { path: d });
    }
    ctx.log('INFO', `Deleted ${fileList.length} files and ${dirList.length} directories.`);
    return { changed: fileList.length + dirList.length > 0 };
  },
};

export const copyFiles: ExecuteOperation = {
  type: 'execute',
  name: 'Copy-Files',
  namespace: 'Files',
  positional: 'Include',
  args: [
    { name: 'Include', type: 'vector' },
    { name: 'Exclude', type: 'vector' },
    { name: 'From', type: 'scalar' },
    { name: 'To', type: 'scalar', required: true },
    { name: 'Overwrite', type: 'bool' },
    { name: 'Verbose', type: 'bool' },
  ],
  key: (args) => args.text('To'),
  async execute(ctx, args) {
    const from = ctx.path(args.text('From', ''));
    const to = ctx.path(args.text('To'));
    const host = ctx.resources.host;
    const verbose = args.bool('Verbose', false);
    const overwrite = args.bool('Overwrite', false);
    ctx.log('INFO', `Copying files from ${from} to ${to}...`);
    if ((await host.stat(from))?.type !== 'directory') {
      ctx.log('WARN', `Source directory ${from} does not exist.`);
      return { changed: false };
    }
    const { files, dirs } = await matchEntries(host, from, args.list('Include', ['**']), args.list('Exclude', []));
    let changed = false;
    for (const rel of files) {
      const source = posix.join(from, rel);
      const target = posix.join(to, rel);
      if (verbose) ctx.log('DEBUG', `Copying ${source} to ${target}...`);
      if (!overwrite && (await host.stat(target)) !== null) {
        ctx.log('ERROR', `Target file ${target} already exists and overwrite is set to false.`);
        continue;
      }
      try {
        if (await ensureResource(ctx, 'file', { path: target, source, makedirs: true })) changed = true;
      } catch (e) {
        ctx.log('ERROR', `Cannot copy ${source}: ${(e as Error).message}`);
      }
    }
    for (const rel of dirs) {
      const target = posix.join(to, rel);
      if (verbose) ctx.log('DEBUG', `Creating directory ${target}...`);
      if (await ensureResource(ctx, 'directory', { path: target, makedirs: true })) changed = true;
    }
    return { changed };
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
    ctx.log('INFO', `Renaming ${from} to ${to}...`);
    ctx.log('DEBUG', `Verifying source file ${from} exists...`);
    if ((await host.stat(from))?.type !== 'file') {
      ctx.log('ERROR', 'Source path does not exist.');
      return { changed: false };
    }
    if (from.toLowerCase() === to.toLowerCase()) {
      ctx.log('WARN', 'The source and target file names are the same.');
      return { changed: false };
    }
    if (!args.bool('Overwrite', false) && (await host.stat(to))?.type === 'file') {
      ctx.log('ERROR', `${args.text('To')} already exists and overwrite is set to false.`);
      return { changed: false };
    }
    await ensureResource(ctx, 'file', { path: to, source: from, makedirs: false });
    await ensureResource(ctx, 'absent', { path: from });
    ctx.log('INFO', 'File renamed.');
    return { changed: true };
  },
};

export const replaceText: ExecuteOperation = {
  type: 'execute',
  name: 'Replace-Text',
  namespace: 'Files',
  args: [
    { name: 'Include', type: 'vector' },
    { name: 'Exclude', type: 'vector' },
    { name: 'Directory', type: 'scalar' },
    { name: 'SearchText', type: 'scalar', required: true },
    { name: 'ReplaceWith', type: 'scalar' },
    { name: 'Regex', type: 'bool' },
  ],
  key: (args) => args.text('SearchText'),
  async execute(ctx, args) {
    const search = args.text('SearchText');
    const useRegex = args.bool('Regex', false);
    let regex: RegExp | undefined;
    if (useRegex) {
      try {
        regex = new RegExp(search, 'g');
      } catch (e) {
        ctx.log('ERROR', `Invalid regular expression: ${(e as Error).message}`);
        return { changed: false };
      }
    }
    const host = ctx.resources.host;
    const dir = ctx.path(args.text('Directory', ''));
    const replacement = args.text('ReplaceWith', '');
    ctx.log('DEBUG', `Search string: ${search}${useRegex ? '(regex)' : ''}`);
    ctx.log('DEBUG', `Replace with: ${replacement}`);
    if ((await host.stat(dir))?.type !== 'directory') {
      ctx.log('WARN', `Directory "${dir}" does not exist.`);
      return { changed: false };
    }
    const { files } = await matchEntries(host, dir, args.list('Include', ['**']), args.list('Exclude', []));
    if (files.length === 0) {
      ctx.log('WARN', `The mask matched no files in "${dir}".`);
      return { changed: false };
    }
    let changed = false;
    for (const rel of files) {
      const path = posix.join(dir, rel);
      ctx.log('DEBUG', `Looking for search string in ${path}...`);
      const old = (await host.readFile(path)).toString('utf8');
      const now = regex ? old.replace(regex, replacement) : search === '' ? old : old.split(search).join(replacement);
      if (now === old) continue;
      ctx.log('DEBUG', `Found search string in ${path}; updating file...`);
      const mode = (await host.stat(path))?.mode;
      const params: Record<string, unknown> = { path, content: now };
      // A read-only file is made writable first, as Inedo's operation does.
      if (mode !== undefined && (mode & 0o200) === 0) params.mode = mode | 0o200;
      if (await ensureResource(ctx, 'file', params)) changed = true;
      ctx.log('INFO', `${path} saved.`);
    }
    ctx.log('INFO', 'Replacement complete.');
    return { changed };
  },
};
