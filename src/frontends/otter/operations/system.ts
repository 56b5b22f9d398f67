/** System operations: Ensure-Package (Debian packages) and Ensure-User, on the package and user kinds. */
import { applyResource, checkResource } from './resource.js';
import type { Collected, EnsureOperation, OpContext } from './types.js';

interface Planned {
  readonly type: string;
  readonly params: Record<string, unknown>;
}

async function configure(ctx: OpContext, collected: Collected, noun: string, removing: boolean): Promise<{ changed: boolean }> {
  if (collected.drift.length === 0) {
    ctx.log('DEBUG', `${noun} ${collected.key} is already in the desired state.`);
    return { changed: false };
  }
  const plan = collected.state as Planned;
  const check = await checkResource(ctx, plan.type, plan.params);
  if (check.inSync) return { changed: false };
  await applyResource(ctx, plan.type, plan.params, check);
  ctx.log('INFO', removing ? `${noun} ${collected.key} removed.` : `${noun} ${collected.key} configured.`);
  return { changed: true };
}

export const ensurePackage: EnsureOperation = {
  type: 'ensure',
  name: 'Ensure-Package',
  namespace: 'Linux',
  positional: 'Name',
  args: [
    { name: 'Name', type: 'scalar', required: true },
    { name: 'Version', type: 'scalar' },
    { name: 'Exists', type: 'bool' },
  ],
  async collect(ctx, args) {
    const key = args.text('Name');
    const exists = args.bool('Exists', true);
    const params: Record<string, unknown> = { name: key, state: exists ? 'installed' : 'removed' };
    if (exists && args.has('Version')) params.version = args.text('Version');
    const check = await checkResource(ctx, 'package', params);
    if (check.inSync) return { key, drift: [], state: { type: 'package', params } };
    const change = (check.changes?.[key] ?? {}) as { old?: string };
    const drift = !exists || !change.old ? ['Exists'] : ['Version'];
    return { key, drift, state: { type: 'package', params } };
  },
  configure: (ctx, args, collected) => configure(ctx, collected, 'Package', !args.bool('Exists', true)),
};

const USER_PROPS: Record<string, string> = { uid: 'UserId', gid: 'Group', home: 'HomeDirectory', shell: 'Shell', groups: 'Groups' };

export const ensureUser: EnsureOperation = {
  type: 'ensure',
  name: 'Ensure-User',
  namespace: 'Linux',
  positional: 'Name',
  args: [
    { name: 'Name', type: 'scalar', required: true, aliases: ['UserName'] },
    { name: 'Exists', type: 'bool' },
    { name: 'UserId', type: 'int', aliases: ['UID'] },
    { name: 'Group', type: 'scalar', aliases: ['PrimaryGroup'] },
    { name: 'HomeDirectory', type: 'scalar', aliases: ['Home'] },
    { name: 'Shell', type: 'scalar' },
    { name: 'Groups', type: 'vector' },
  ],
  async collect(ctx, args) {
    const key = args.text('Name');
    const exists = args.bool('Exists', true);
    const params: Record<string, unknown> = { name: key, state: exists ? 'present' : 'absent' };
    if (exists) {
      if (args.has('UserId')) params.uid = args.int('UserId', 0);
      if (args.has('Group')) params.gid = /^\d+$/.test(args.text('Group')) ? Number(args.text('Group')) : args.text('Group');
      if (args.has('HomeDirectory')) params.home = args.text('HomeDirectory');
      if (args.has('Shell')) params.shell = args.text('Shell');
      if (args.has('Groups')) params.groups = args.list('Groups');
    }
    const check = await checkResource(ctx, 'user', params);
    if (check.inSync) return { key, drift: [], state: { type: 'user', params } };
    const missing = !exists || /added|removal/.test(check.comment ?? '');
    const drift = missing ? ['Exists'] : [...new Set(Object.keys(check.changes ?? {}).map((k) => USER_PROPS[k] ?? k))];
    return { key, drift, state: { type: 'user', params } };
  },
  configure: (ctx, args, collected) => configure(ctx, collected, 'User', !args.bool('Exists', true)),
};
