/** `group`: a local group, managed with groupadd / groupmod / gpasswd / groupdel and read from /etc/group. */
import type { ApplyOutcome, CheckOutcome } from '../../core/model.js';
import type { Host } from '../../host/types.js';
import { findGroup, type GroupEntry, readAccounts } from '../accounts.js';
import { type Kind, type Params, parseParams, validateWith } from '../kind.js';
import { type GroupParams, groupSchema } from './schema.js';

const TYPE = 'group';

type Diff = Record<string, { old: unknown; new: unknown }>;

function parse(params: Params): GroupParams {
  return parseParams(TYPE, groupSchema, params);
}

function wantedMembers(p: GroupParams): string[] | undefined {
  return p.members === undefined ? undefined : [...new Set(p.members)].sort();
}

function differences(p: GroupParams, group: GroupEntry): Diff {
  const diff: Diff = {};
  if (p.gid !== undefined && p.gid !== group.gid) diff.gid = { old: group.gid, new: p.gid };
  const want = wantedMembers(p);
  const have = [...group.members].sort();
  if (want !== undefined && want.join(',') !== have.join(',')) diff.members = { old: have, new: want };
  return diff;
}

function describe(diff: Diff): string {
  return Object.entries(diff)
    .map(([k, d]) => `${k}: ${Array.isArray(d.new) ? d.new.join(',') : String(d.new)}`)
    .join('\n');
}

/** The attributes a new group would get, as far as the params say. */
function planned(p: GroupParams): Record<string, unknown> {
  const out: Record<string, unknown> = { name: p.name };
  if (p.gid !== undefined) out.gid = p.gid;
  const members = wantedMembers(p);
  if (members !== undefined) out.members = members;
  return out;
}

function info(group: GroupEntry): Record<string, unknown> {
  return { name: group.name, gid: group.gid, members: [...group.members].sort() };
}

async function exec(host: Host, argv: readonly string[]): Promise<string | null> {
  const r = await host.exec(argv);
  if (r.code === 0) return null;
  return (r.stderr.trim() || r.stdout.trim() || `exit code ${r.code ?? r.signal}`).split('\n').slice(-3).join(' ');
}

async function create(host: Host, p: GroupParams): Promise<ApplyOutcome> {
  const argv = ['groupadd'];
  if (p.gid !== undefined) argv.push('-g', String(p.gid));
  if (p.system) argv.push('-r');
  argv.push(p.name);
  const failed = await exec(host, argv);
  if (failed !== null) return { ok: false, comment: `Failed to create new group ${p.name}: ${failed}` };
  const members = wantedMembers(p);
  if (members !== undefined && members.length > 0) {
    const failedMembers = await exec(host, ['gpasswd', '-M', members.join(','), p.name]);
    if (failedMembers !== null) return { ok: false, changes: { name: p.name }, comment: `Group ${p.name} created, but its members could not be set: ${failedMembers}` };
  }
  if (host.simulated === true) return { ok: true, changes: planned(p), comment: `New group ${p.name} created` };
  const group = findGroup(await readAccounts(host), p.name);
  if (group === undefined) return { ok: false, comment: `Failed to create new group ${p.name}: not found after groupadd` };
  return { ok: true, changes: info(group), comment: `New group ${p.name} created` };
}

async function update(host: Host, p: GroupParams, diff: Diff): Promise<ApplyOutcome> {
  if (diff.gid) {
    const failed = await exec(host, ['groupmod', '-g', String(p.gid), p.name]);
    if (failed !== null) return { ok: false, comment: `Failed to change the gid of group ${p.name}: ${failed}` };
  }
  if (diff.members) {
    const failed = await exec(host, ['gpasswd', '-M', (diff.members.new as string[]).join(','), p.name]);
    if (failed !== null) {
      const done = diff.gid ? { gid: diff.gid } : undefined;
      return { ok: false, ...(done ? { changes: done } : {}), comment: `Failed to set the members of group ${p.name}: ${failed}` };
    }
  }
  if (host.simulated === true) return { ok: true, changes: diff, comment: `Updated group ${p.name}` };
  const group = findGroup(await readAccounts(host), p.name);
  const left = group ? differences(p, group) : diff;
  if (Object.keys(left).length > 0) return { ok: false, changes: diff, comment: `These values could not be changed for group ${p.name}: ${Object.keys(left).join(', ')}` };
  return { ok: true, changes: diff, comment: `Updated group ${p.name}` };
}

export const kind: Kind = {
  type: TYPE,
  validate: (params, node) => validateWith(TYPE, groupSchema, params, node),
  schema: groupSchema,
  async check(ctx, params): Promise<CheckOutcome> {
    const p = parse(params);
    const group = findGroup(await readAccounts(ctx.host), p.name);
    if (p.state === 'absent') {
      if (group === undefined) return { inSync: true, comment: `Group ${p.name} is not present` };
      return { inSync: false, changes: { [p.name]: '' }, comment: `Group ${p.name} is set for removal`, outputs: info(group) };
    }
    if (group === undefined) return { inSync: false, changes: planned(p), comment: `Group ${p.name} set to be added` };
    const diff = differences(p, group);
    if (Object.keys(diff).length === 0) return { inSync: true, comment: `Group ${p.name} is present and up to date`, outputs: info(group) };
    return { inSync: false, changes: diff, comment: `The following group attributes are set to be changed:\n${describe(diff)}`, outputs: info(group) };
  },
  async apply(ctx, params): Promise<ApplyOutcome> {
    const p = parse(params);
    const group = findGroup(await readAccounts(ctx.host), p.name);
    if (p.state === 'absent') {
      if (group === undefined) return { ok: true, comment: `Group ${p.name} is not present` };
      const failed = await exec(ctx.host, ['groupdel', p.name]);
      if (failed !== null) return { ok: false, comment: `Failed to remove group ${p.name}: ${failed}` };
      return { ok: true, changes: { [p.name]: '' }, comment: `Removed group ${p.name}` };
    }
    if (group === undefined) return create(ctx.host, p);
    const diff = differences(p, group);
    if (Object.keys(diff).length === 0) return { ok: true, comment: `Group ${p.name} is present and up to date` };
    return update(ctx.host, p, diff);
  },
};
