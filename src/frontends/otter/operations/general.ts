/** General operations: Sleep, Apply-Template, Set-Variable. */
import { posix } from 'node:path';
import { OtterError } from '../errors.js';
import { ensureResource } from './resource.js';
import type { ExecuteOperation, OpContext } from './types.js';

export const sleep: ExecuteOperation = {
  type: 'execute',
  name: 'Sleep',
  namespace: 'General',
  positional: 'Seconds',
  args: [{ name: 'Seconds', type: 'int', required: true }],
  key: (args) => args.text('Seconds'),
  async execute(ctx, args) {
    const seconds = args.int('Seconds', 0);
    ctx.log('INFO', `Sleeping for ${seconds} second${seconds === 1 ? '' : 's'}...`);
    await new Promise((r) => setTimeout(r, seconds * 1000));
    return { changed: false };
  },
};

async function readAsset(ctx: OpContext, name: string): Promise<string> {
  for (const candidate of [name, `${name}.tpl`, `${name}.txt`]) {
    const path = posix.resolve(ctx.raftDir, candidate);
    if ((await ctx.resources.host.stat(path))?.type === 'file') return (await ctx.resources.host.readFile(path)).toString('utf8');
  }
  throw new OtterError(`Template asset ${name} was not found in the raft ${ctx.raftDir}.`, ctx.span);
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
  ],
  outputs: ['OutputVariable'],
  key: (args) => args.text('OutputFile', args.text('Asset', 'template')),
  async execute(ctx, args) {
    let source: string;
    if (args.has('Literal')) source = args.text('Literal');
    else if (args.has('InputFile')) source = (await ctx.resources.host.readFile(ctx.path(args.text('InputFile')))).toString('utf8');
    else if (args.has('Asset')) source = await readAsset(ctx, args.text('Asset'));
    else throw new OtterError('Apply-Template needs an Asset, a Literal or an InputFile.', ctx.span);
    ctx.log('INFO', 'Applying template...');
    const text = await ctx.expand(source, args.has('AdditionalVariables') ? args.map('AdditionalVariables') : new Map());
    let changed = false;
    if (args.has('OutputFile')) {
      changed = await ensureResource(ctx, 'file', { path: ctx.path(args.text('OutputFile')), content: text, makedirs: true });
      ctx.log('INFO', `Template written to ${args.text('OutputFile')}.`);
    }
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
    { name: 'Value', type: 'scalar' },
  ],
  key: (args) => args.text('Name'),
  async execute(ctx, args) {
    ctx.setConfigVariable(args.text('Name'), args.text('Value', ''));
    ctx.log('INFO', `Configuration variable ${args.text('Name')} set.`);
    return { changed: false };
  },
};
