/** System operations: Ensure-Package (Debian packages) and Ensure-User, on the package and user kinds. */
import { applyResource, checkResource } from './resource.js';
import type { CollectOperation, EnsureOperation, OpArgs, OpContext } from './types.js';

async function converge(ctx: OpContext, type: string, params: Record<string, unknown>): Promise<boolean> {
  const check = await checkResource(ctx, type, params);
  if (check.inSync) return false;
  await applyResource(ctx, type, params, check);
  return true;
}

function packageParams(args: OpArgs): Record<string, unknown> {
  const exists = args.bool('Exists', true);
  const params: Record<string, unknown> = { name: args.text('Name'), state: exists ? 'installed' : 'removed' };
  if (exists && args.has('Version')) params.version = args.text('Version');
  return params;
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
    ctx.log('DEBUG', `Looking for package ${key}...`);
    const check = await checkResource(ctx, 'package', packageParams(args));
    if (check.inSync) return { key, drift: [] };
    const change = (check.changes?.[key] ?? {}) as { old?: string; new?: string };
    if (!exists || !change.old) return { key, drift: ['Exists'], details: [{ property: 'Exists', expected: String(exists), actual: String(!exists) }] };
    return { key, drift: ['Version'], details: [{ property: 'Version', expected: args.text('Version'), actual: change.old }] };
  },
  async configure(ctx, args) {
    const key = args.text('Name');
    const removing = !args.bool('Exists', true);
    ctx.log('DEBUG', `Looking for package ${key}...`);
    const changed = await converge(ctx, 'package', packageParams(args));
    ctx.log('INFO', removing ? `Package ${key} removed.` : `Package ${key} configured.`);
    return { changed };
  },
};

const USER_PROPS: Record<string, string> = { uid: 'UserId', gid: 'Group', home: 'HomeDirectory', shell: 'Shell', groups: 'Groups' };

function userParams(args: OpArgs): Record<string, unknown> {
  const exists = args.bool('Exists', true);
  const params: Record<string, unknown> = { name: args.text('Name'), state: exists ? 'present' : 'absent' };
  if (exists) {
    if (args.has('UserId')) params.uid = args.int('UserId', 0);
    if (args.has('Group')) params.gid = /^\d+$/.test(args.text('Group')) ? Number(args.text('Group')) : args.text('Group');
    if (args.has('HomeDirectory')) params.home = args.text('HomeDirectory');
    if (args.has('Shell')) params.shell = args.text('Shell');
    if (args.has('Groups')) params.groups = args.list('Groups');
  }
  return params;
}

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
    ctx.log('DEBUG', `Looking for user ${key}...`);
    const check = await checkResource(ctx, 'user', userParams(args));
    if (check.inSync) return { key, drift: [] };
    const missing = !exists || /added|removal/.test(check.comment ?? '');
    if (missing) return { key, drift: ['Exists'], details: [{ property: 'Exists', expected: String(exists), actual: String(!exists) }] };
    const text = (v: unknown): string => (Array.isArray(v) ? v.join(', ') : String(v ?? ''));
    const changed = Object.entries(check.changes ?? {}) as [string, { old?: unknown; new?: unknown }][];
    return {
      key,
      drift: [...new Set(changed.map(([k]) => USER_PROPS[k] ?? k))],
      details: changed.map(([k, v]) => ({ property: USER_PROPS[k] ?? k, expected: text(v.new), actual: text(v.old) })),
    };
  },
  async configure(ctx, args) {
    const key = args.text('Name');
    const removing = !args.bool('Exists', true);
    ctx.log('DEBUG', `Looking for user ${key}...`);
    const changed = await converge(ctx, 'user', userParams(args));
    ctx.log('INFO', removing ? `User ${key} removed.` : `User ${key} configured.`);
    return { changed };
  },
};

/**
 * Collect-DebianPackages (collecting only, as Inedo's): reads the installed packages from `dpkg --list`
 * (lines starting `ii`), in a collection pass only; errors on stderr are warnings, a failing dpkg an error.
 */
export const collectDebianPackages: CollectOperation = {
  type: 'collect',
  name: 'Collect-DebianPackages',
  namespace: 'Linux',
  args: [],
  key: () => 'Debian packages',
  async collect(ctx) {
    const r = await ctx.resources.host.exec(['/usr/bin/dpkg', '--list'], { readOnly: true, cwd: ctx.cwd });
    const packages = new Map<string, string>();
    for (const line of r.stdout.split('\n')) {
      if (!line.startsWith('ii ')) continue;
      const parts = line.split(/ +/);
      if (parts[1] !== undefined) packages.set(parts[1], parts[2] ?? '');
    }
    for (const line of r.stderr.split('\n')) if (line.trim() !== '') ctx.log('WARN', line);
    if (r.code !== 0) {
      ctx.log('ERROR', `"dpkg --list" exited with code ${r.code ?? r.signal ?? 'unknown'}`);
      return { changed: false };
    }
    ctx.log('DEBUG', `Collected ${packages.size} Debian packages.`);
    return { changed: false, outputs: { Packages: packages } };
  },
};
