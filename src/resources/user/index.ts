/** `user`: a local account, managed with useradd / usermod / userdel and read from /etc/passwd and /etc/group. */
import type { ApplyOutcome, CheckOutcome } from '../../core/model.js';
import type { Host } from '../../host/types.js';
import { type AccountDb, findGroup, findUser, groupByGid, type PasswdEntry, readAccounts, supplementaryGroups } from '../accounts.js';
import { type Kind, type Params, parseParams, validateWith } from '../kind.js';
import { type UserParams, userSchema } from './schema.js';

const TYPE = 'user';

type Diff = Record<string, { old: unknown; new: unknown }>;

function parse(params: Params): UserParams {
  return parseParams(TYPE, userSchema, params);
}

/** The supplementary groups asked for, without the primary group (which usermod -G refuses to list twice). */
function wantedGroups(p: UserParams, db: AccountDb, primaryGid: number | undefined): string[] {
  const primary = primaryGid !== undefined ? groupByGid(db, primaryGid)?.name : undefined;
  return [...new Set(p.groups ?? [])].filter((g) => g !== primary).sort();
}

/** The primary gid the params ask for; undefined when a named group does not exist (yet). */
function wantedGid(p: UserParams, db: AccountDb): number | undefined {
  if (p.gid === undefined || typeof p.gid === 'number') return p.gid;
  return findGroup(db, p.gid)?.gid;
}

function groupLabel(db: AccountDb, gid: number): string | number {
  return groupByGid(db, gid)?.name ?? gid;
}

/** What differs between an existing user and the params, attribute by attribute. */
function differences(p: UserParams, db: AccountDb, user: PasswdEntry): Diff {
  const diff: Diff = {};
  if (p.uid !== undefined && p.uid !== user.uid) diff.uid = { old: user.uid, new: p.uid };
  if (p.gid !== undefined) {
    const gid = wantedGid(p, db);
    if (gid !== user.gid) diff.gid = { old: typeof p.gid === 'string' ? groupLabel(db, user.gid) : user.gid, new: p.gid };
  }
  if (p.home !== undefined && p.home !== user.home) diff.home = { old: user.home, new: p.home };
  if (p.shell !== undefined && p.shell !== user.shell) diff.shell = { old: user.shell, new: p.shell };
  if (p.groups !== undefined) {
    const have = supplementaryGroups(db, user.name);
    const want = wantedGroups(p, db, wantedGid(p, db) ?? user.gid);
    if (have.join(',') !== want.join(',')) diff.groups = { old: have, new: want };
  }
  return diff;
}

function describe(diff: Diff): string {
  return Object.entries(diff)
    .map(([k, d]) => `${k}: ${Array.isArray(d.new) ? d.new.join(',') : String(d.new)}`)
    .join('\n');
}

/** The attributes a new user would get, as far as the params say. */
function planned(p: UserParams): Record<string, unknown> {
  const out: Record<string, unknown> = { name: p.name };
  if (p.uid !== undefined) out.uid = p.uid;
  if (p.gid !== undefined) out.gid = p.gid;
  if (p.home !== undefined) out.home = p.home;
  if (p.shell !== undefined) out.shell = p.shell;
  if (p.groups !== undefined) out.groups = [...p.groups].sort();
  return out;
}

function info(db: AccountDb, user: PasswdEntry): Record<string, unknown> {
  return {
    name: user.name,
    uid: user.uid,
    gid: user.gid,
    groups: supplementaryGroups(db, user.name),
    home: user.home,
    shell: user.shell,
    fullname: user.gecos.split(',')[0] ?? '',
  };
}

async function exec(host: Host, argv: readonly string[]): Promise<string | null> {
  const r = await host.exec(argv);
  if (r.code === 0) return null;
  const why = (r.stderr.trim() || r.stdout.trim() || `exit code ${r.code ?? r.signal}`).split('\n').slice(-3).join(' ');
  return why;
}

async function create(host: Host, p: UserParams): Promise<ApplyOutcome> {
  const argv = ['useradd'];
  if (p.uid !== undefined) argv.push('-u', String(p.uid));
  if (p.gid !== undefined) argv.push('-g', String(p.gid));
  if (p.home !== undefined) argv.push('-d', p.home);
  if (p.shell !== undefined) argv.push('-s', p.shell);
  if (p.groups !== undefined && p.groups.length > 0) argv.push('-G', [...new Set(p.groups)].join(','));
  if (p.system) argv.push('-r');
  argv.push(p.createhome ? '-m' : '-M', p.name);
  const failed = await exec(host, argv);
  if (failed !== null) return { ok: false, comment: `Failed to create new user ${p.name}: ${failed}` };
  if (host.simulated === true) return { ok: true, changes: planned(p), comment: `New user ${p.name} created` };
  const db = await readAccounts(host);
  const user = findUser(db, p.name);
  if (user === undefined) return { ok: false, comment: `Failed to create new user ${p.name}: not found after useradd` };
  return { ok: true, changes: info(db, user), comment: `New user ${p.name} created` };
}

async function update(host: Host, p: UserParams, diff: Diff): Promise<ApplyOutcome> {
  const argv = ['usermod'];
  if (diff.uid) argv.push('-u', String(p.uid));
  if (diff.gid) argv.push('-g', String(p.gid));
  if (diff.home) argv.push('-d', String(p.home));
  if (diff.shell) argv.push('-s', String(p.shell));
  if (diff.groups) argv.push('-G', (diff.groups.new as string[]).join(','));
  argv.push(p.name);
  const failed = await exec(host, argv);
  if (failed !== null) return { ok: false, comment: `Failed to update user ${p.name}: ${failed}` };
  if (host.simulated === true) return { ok: true, changes: diff, comment: `Updated user ${p.name}` };
  const db = await readAccounts(host);
  const user = findUser(db, p.name);
  const left = user ? differences(p, db, user) : diff;
  if (Object.keys(left).length > 0) return { ok: false, changes: diff, comment: `These values could not be changed for user ${p.name}: ${Object.keys(left).join(', ')}` };
  return { ok: true, changes: diff, comment: `Updated user ${p.name}` };
}

export const kind: Kind = {
  type: TYPE,
  validate: (params, node) => validateWith(TYPE, userSchema, params, node),
  schema: userSchema,
  async check(ctx, params): Promise<CheckOutcome> {
    const p = parse(params);
    const db = await readAccounts(ctx.host);
    const user = findUser(db, p.name);
    if (p.state === 'absent') {
      if (user === undefined) return { inSync: true, comment: `User ${p.name} is not present` };
      return { inSync: false, changes: { [p.name]: 'removed' }, comment: `User ${p.name} set for removal`, outputs: info(db, user) };
    }
    if (user === undefined) return { inSync: false, changes: planned(p), comment: `User ${p.name} set to be added` };
    const diff = differences(p, db, user);
    if (Object.keys(diff).length === 0) return { inSync: true, comment: `User ${p.name} is present and up to date`, outputs: info(db, user) };
    return {
      inSync: false,
      changes: diff,
      comment: `The following user attributes are set to be changed:\n${describe(diff)}`,
      outputs: info(db, user),
    };
  },
  async apply(ctx, params): Promise<ApplyOutcome> {
    const p = parse(params);
    // Read again rather than trust the check: another node may have changed the account meanwhile.
    const db = await readAccounts(ctx.host);
    const user = findUser(db, p.name);
    if (p.state === 'absent') {
      if (user === undefined) return { ok: true, comment: `User ${p.name} is not present` };
      const failed = await exec(ctx.host, p.purge ? ['userdel', '-r', p.name] : ['userdel', p.name]);
      if (failed !== null) return { ok: false, comment: `Failed to remove user ${p.name}: ${failed}` };
      return { ok: true, changes: { [p.name]: 'removed' }, comment: `Removed user ${p.name}` };
    }
    if (user === undefined) return create(ctx.host, p);
    const diff = differences(p, db, user);
    if (Object.keys(diff).length === 0) return { ok: true, comment: `User ${p.name} is present and up to date` };
    return update(ctx.host, p, diff);
  },
};
