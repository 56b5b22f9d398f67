/** General operations: Sleep, Apply-Template and Set-Variable, with the messages InedoCore's versions log. */
import { posix } from 'node:path';
import { OtterError } from '../errors.js';
import { ensureResource } from './resource.js';
import type { ExecuteOperation, OpArgs, OpContext } from './types.js';

export const sleep: ExecuteOperation = {
  type: 'execute',
  name: 'Sleep',
  aliases: ['Wait'],
  namespace: 'General',
  positional: 'Seconds',
  args: [{ name: 'Seconds', type: 'int', required: true }],
  key: (args) => args.text('Seconds'),
  async execute(ctx, args) {
    const seconds = args.int('Seconds', 0);
    ctx.log('INFO', `Sleeping for ${seconds} seconds...`);
    if (!ctx.simulation) await new Promise((r) => setTimeout(r, seconds * 1000));
    ctx.log('INFO', 'Done sleeping.');
    return { changed: false };
  },
};

async function readAsset(ctx: OpContext, name: string): Promise<string | undefined> {
  for (const candidate of [name, `${name}.tpl`, `${name}.txt`]) {
    const path = posix.resolve(ctx.raftDir, candidate);
    if ((await ctx.resources.host.stat(path))?.type === 'file') return (await ctx.resources.host.readFile(path)).toString('utf8');
  }
  return undefined;
}

async function templateSource(ctx: OpContext, args: OpArgs): Promise<string> {
  if (args.text('Literal') !== '') {
    ctx.log('DEBUG', `Applying literal template: ${args.text('Literal')}`);
    return args.text('Literal');
  }
  if (args.text('InputFile') !== '') {
    const path = ctx.path(args.text('InputFile'));
    ctx.log('DEBUG', `Using file ${path} as template...`);
    if ((await ctx.resources.host.stat(path))?.type !== 'file') throw new OtterError('Template file not found.', ctx.span);
    return (await ctx.resources.host.readFile(path)).toString('utf8');
  }
  if (args.text('Asset') !== '') {
    const text = await readAsset(ctx, args.text('Asset'));
    if (text === undefined) throw new OtterError(`Template "${args.text('Asset')}" not found.`, ctx.span);
    return text;
  }
  ctx.log('WARN', 'No template specified. Setting output to empty string.');
  return '';
}

export const applyTemplate: ExecuteOperation = {
  type: 'execute',
  name: 'Apply-Template',
  namespace: 'General',
  positional: 'Asset',
  args: [
    { name: 'Asset', type: 'scalar' },
    { name: 'Literal', type: 'scalar' },
    { name: 'InputFile', type: 'scalar' },
    { name: 'OutputFile', type: 'scalar' },
    { name: 'AdditionalVariables', type: 'map' },
    { name: 'NewLines', type: 'scalar' },
  ],
  outputs: ['OutputVariable'],
  key: (args) => args.text('OutputFile', args.text('Asset', 'template')),
  async execute(ctx, args) {
    const source = await templateSource(ctx, args);
    ctx.log('DEBUG', 'Applying template...');
    let text = await ctx.expand(source, args.has('AdditionalVariables') ? args.map('AdditionalVariables') : new Map());
    ctx.log('INFO', 'Template applied.');
    const newLines = args.text('NewLines', 'Auto').toLowerCase();
    if (newLines === 'windows') text = text.replace(/\r?\n/g, '\r\n');
    else if (newLines === 'linux' || newLines === 'auto') text = text.replace(/\r?\n/g, '\n');
    let changed = false;
    if (args.text('OutputFile').trim() !== '') {
      const path = ctx.path(args.text('OutputFile'));
      ctx.log('DEBUG', `Writing output to ${path}...`);
      changed = await ensureResource(ctx, 'file', { path, content: text, makedirs: true });
    }
    ctx.log('DEBUG', 'Setting output variable...');
    return { changed, outputs: { OutputVariable: text } };
  },
};

export const setVariable: ExecuteOperation = {
  type: 'execute',
  name: 'Set-Variable',
  namespace: 'Otter',
  positional: 'Name',
  args: [
    { name: 'Name', type: 'scalar', required: true },
    { name: 'Value', type: 'scalar', required: true },
    { name: 'Server', type: 'scalar' },
    { name: 'Role', type: 'scalar' },
    { name: 'Environment', type: 'scalar' },
    { name: 'Sensitive', type: 'bool' },
  ],
  key: (args) => args.text('Name'),
  async execute(ctx, args) {
    const name = args.text('Name');
    const value = args.text('Value', '');
    ctx.log('INFO', `Setting Otter variable ${name}...`);
    const scoped = args.has('Server') || args.has('Role') || args.has('Environment');
    ctx.log('DEBUG', `Setting Otter ${scoped ? 'scoped' : 'global'} variable '${name}' = '${value}'...`);
    ctx.setConfigVariable(name, value);
    ctx.log('INFO', 'Otter variable value set.');
    return { changed: true };
  },
};
