/** General operations: Sleep, Apply-Template and Set-Variable, with the messages InedoCore's versions log. */
import { Cancelled, OtterError } from '../errors.js';
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
    // Inedo's Sleep waits in a simulation too; an enclosing timeout cuts it short.
    await cancellableDelay(seconds * 1000, ctx.signal);
    ctx.log('INFO', 'Done sleeping.');
    return { changed: false };
  },
};

/** Waits `ms`, or throws Cancelled as soon as `signal` aborts. */
export function cancellableDelay(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(new Cancelled());
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    function onAbort(): void {
      clearTimeout(timer);
      reject(new Cancelled());
    }
    signal.addEventListener('abort', onAbort, { once: true });
  });
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
    const asset = args.text('Asset');
    const path = await ctx.raftItem(asset, ['.tpl', '.txt']);
    if (path === undefined) throw new OtterError(`Template "${asset.includes('::') ? asset.slice(asset.indexOf('::') + 2) : asset}" not found in raft.`, ctx.span);
    ctx.log('DEBUG', 'Loading template from raft...');
    return ctx.readRaftItem(path);
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
    { name: 'Literal', type: 'scalar', noExpand: true },
    { name: 'InputFile', type: 'scalar' },
    { name: 'OutputFile', type: 'scalar' },
    { name: 'AdditionalVariables', type: 'map' },
    { name: 'NewLines', type: 'scalar' },
  ],
  outputs: ['OutputVariable'],
  key: (args) => args.text('OutputFile', args.text('Asset', 'template')),
  async execute(ctx, args) {
    const source = await templateSource(ctx, args);
    ctx.log('DEBUG', 'Detecting newlines in source template...');
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
    // A sensitive variable's value is never shown, here or in any later log line.
    if (args.bool('Sensitive', false)) ctx.secret(value);
    ctx.log('INFO', `Setting Otter variable ${name}...`);
    const scoped = args.has('Server') || args.has('Role') || args.has('Environment');
    ctx.log('DEBUG', `Setting Otter ${scoped ? 'scoped' : 'global'} variable '${name}' = '${value}'...`);
    ctx.setConfigVariable(name, value);
    ctx.log('INFO', 'Otter variable value set.');
    return { changed: true };
  },
};
