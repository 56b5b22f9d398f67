/**
 * The account database as files (/etc/passwd, /etc/group), read through a host. Shared by the user and
 * group kinds, and by any kind that needs to turn an owner or group name into a number.
 */
import type { Host } from '../host/types.js';

export const PASSWD_PATH = '/etc/passwd';
export const GROUP_PATH = '/etc/group';

export interface PasswdEntry {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
  readonly gecos: string;
  readonly home: string;
  readonly shell: string;
}

export interface GroupEntry {
  readonly name: string;
  readonly gid: number;
  readonly members: readonly string[];
}

export interface AccountDb {
  readonly users: readonly PasswdEntry[];
  readonly groups: readonly GroupEntry[];
}

/** Lines that are not `name:x:uid:gid:...` (comments, NIS `+` entries, blanks) are skipped. */
export function parsePasswd(text: string): PasswdEntry[] {
  const out: PasswdEntry[] = [];
  for (const line of text.split('\n')) {
    const f = line.split(':');
    if (f.length < 7 || line.startsWith('#') || line.startsWith('+') || line.startsWith('-')) continue;
    const uid = Number(f[2]);
    const gid = Number(f[3]);
    if (!Number.isInteger(uid) || !Number.isInteger(gid) || f[2] === '' || f[3] === '') continue;
    out.push({ name: f[0] as string, uid, gid, gecos: f[4] as string, home: f[5] as string, shell: f.slice(6).join(':') });
  }
  return out;
}

export function parseGroup(text: string): GroupEntry[] {
  const out: GroupEntry[] = [];
  for (const line of text.split('\n')) {
    const f = line.split(':');
    if (f.length < 4 || line.startsWith('#') || line.startsWith('+') || line.startsWith('-')) continue;
    const gid = Number(f[2]);
    if (!Number.isInteger(gid) || f[2] === '') continue;
    const members = (f[3] as string).split(',').map((m) => m.trim()).filter((m) => m !== '');
    out.push({ name: f[0] as string, gid, members });
  }
  return out;
}

async function readOrEmpty(host: Host, path: string): Promise<string> {
  if ((await host.stat(path)) === null) return '';
  return (await host.readFile(path)).toString('utf8');
}

export async function readAccounts(host: Host): Promise<AccountDb> {
  const [passwd, group] = await Promise.all([readOrEmpty(host, PASSWD_PATH), readOrEmpty(host, GROUP_PATH)]);
  return { users: parsePasswd(passwd), groups: parseGroup(group) };
}

export function findUser(db: AccountDb, name: string): PasswdEntry | undefined {
  return db.users.find((u) => u.name === name);
}

export function findGroup(db: AccountDb, name: string): GroupEntry | undefined {
  return db.groups.find((g) => g.name === name);
}

export function groupByGid(db: AccountDb, gid: number): GroupEntry | undefined {
  return db.groups.find((g) => g.gid === gid);
}

/** Supplementary groups of a user: the groups that list it as a member, by name, sorted. */
export function supplementaryGroups(db: AccountDb, user: string): string[] {
  return db.groups.filter((g) => g.members.includes(user)).map((g) => g.name).sort();
}

/** The uid of a user name; a numeric string is taken as the uid itself. undefined when unknown. */
export async function uidByName(host: Host, name: string): Promise<number | undefined> {
  if (/^\d+$/.test(name)) return Number(name);
  return findUser(await readAccounts(host), name)?.uid;
}

/** The gid of a group name; a numeric string is taken as the gid itself. undefined when unknown. */
export async function gidByName(host: Host, name: string): Promise<number | undefined> {
  if (/^\d+$/.test(name)) return Number(name);
  return findGroup(await readAccounts(host), name)?.gid;
}
