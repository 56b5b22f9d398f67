/**
 * Mode and ownership, shared by the file, directory and symlink kinds: the params, turning owner and group
 * names into ids (through the host's /etc/passwd and /etc/group), and the Salt-style change records.
 */
import * as v from 'valibot';
import type { Host, StatInfo } from '../host/types.js';
import { type AccountDb, findGroup, findUser, groupByGid, readAccounts } from './accounts.js';
import { formatMode, parseMode } from './kind.js';

/** An owner or group: a name, or a numeric id (as a number or a string of digits). */
export const ownerSchema = v.union([v.pipe(v.string(), v.minLength(1, 'expected a user or group name')), v.pipe(v.number(), v.integer(), v.minValue(0))]);

export interface AttrParams {
  readonly mode?: string | number | undefined;
  readonly owner?: string | number | undefined;
  readonly group?: string | number | undefined;
}

/** What the params ask for, with names resolved to ids; the names are kept for change records. */
export interface WantedAttrs {
  readonly mode?: number;
  readonly uid?: number;
  readonly gid?: number;
  readonly user?: string | number;
  readonly group?: string | number;
}

/**
 * Ids that resolved once are kept per host for the run: a file resource per path must not re-read the
 * account files each time. A miss re-reads them, so users created earlier in the run are found.
 */
const idCache = new WeakMap<Host, { users: Map<string, number>; groups: Map<string, number> }>();

function cacheFor(host: Host): { users: Map<string, number>; groups: Map<string, number> } {
  let c = idCache.get(host);
  if (!c) idCache.set(host, (c = { users: new Map(), groups: new Map() }));
  return c;
}

/** An id known without the account files: a number, digits, or a name this run already looked up on the host. */
function knownId(host: Host, value: string | number, which: 'user' | 'group'): number | undefined {
  if (typeof value === 'number') return value;
  if (/^\d+$/.test(value)) return Number(value);
  return idCache.get(host)?.[which === 'user' ? 'users' : 'groups'].get(value);
}

async function resolveId(host: Host, value: string | number, which: 'user' | 'group'): Promise<number> {
  const known = knownId(host, value, which);
  if (known !== undefined) return known;
  const db = await readAccounts(host);
  const id = which === 'user' ? findUser(db, value as string)?.uid : findGroup(db, value as string)?.gid;
  if (id === undefined) throw new Error(`${which === 'user' ? 'User' : 'Group'} ${value} is not available (not in /etc/${which === 'user' ? 'passwd' : 'group'})`);
  cacheFor(host)[which === 'user' ? 'users' : 'groups'].set(value as string, id);
  return id;
}

/** The wanted attributes when no owner or group is to be looked up (no call to the host): else undefined. */
export function plainAttrs(p: AttrParams): WantedAttrs | undefined {
  if (p.owner !== undefined || p.group !== undefined) return undefined;
  const mode = parseMode(p.mode);
  return mode === undefined ? {} : { mode };
}

/** The wanted attributes for the params, with the owner's and group's ids as found. */
function wanted(p: AttrParams, uid: number | undefined, gid: number | undefined): WantedAttrs {
  const out: { mode?: number; uid?: number; gid?: number; user?: string | number; group?: string | number } = {};
  const mode = parseMode(p.mode);
  if (mode !== undefined) out.mode = mode;
  if (uid !== undefined) {
    out.uid = uid;
    out.user = p.owner;
  }
  if (gid !== undefined) {
    out.gid = gid;
    out.group = p.group;
  }
  return out;
}

/**
 * The wanted attributes where they are known without a call to the host: no owner or group, or ids, or
 * names this run already resolved on this host (what resolveAttrs would give). Else undefined.
 */
export function knownAttrs(host: Host, p: AttrParams): WantedAttrs | undefined {
  const plain = plainAttrs(p);
  if (plain) return plain;
  const uid = p.owner === undefined ? undefined : knownId(host, p.owner, 'user');
  const gid = p.group === undefined ? undefined : knownId(host, p.group, 'group');
  if ((p.owner !== undefined && uid === undefined) || (p.group !== undefined && gid === undefined)) return undefined;
  return wanted(p, uid, gid);
}

export async function resolveAttrs(host: Host, p: AttrParams): Promise<WantedAttrs> {
  const plain = plainAttrs(p);
  if (plain) return plain;
  const uid = p.owner === undefined ? undefined : await resolveId(host, p.owner, 'user');
  const gid = p.group === undefined ? undefined : await resolveId(host, p.group, 'group');
  return wanted(p, uid, gid);
}

/** Salt's permission changes: `mode` (as "0644"), `user` and `group` (as given) where they differ. */
export function attrChanges(current: StatInfo, want: WantedAttrs, options: { readonly mode?: boolean } = {}): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  if (want.mode !== undefined && options.mode !== false && current.mode !== want.mode) changes.mode = formatMode(want.mode);
  if (want.uid !== undefined && current.uid !== want.uid) changes.user = want.user;
  if (want.gid !== undefined && current.gid !== want.gid) changes.group = want.group;
  return changes;
}

/** Makes mode and owner of an existing path what is wanted; `mode: false` for symlinks, whose mode means nothing. */
export async function applyAttrs(host: Host, path: string, current: StatInfo, want: WantedAttrs, options: { readonly mode?: boolean } = {}): Promise<void> {
  const uid = want.uid !== undefined && want.uid !== current.uid ? want.uid : -1;
  const gid = want.gid !== undefined && want.gid !== current.gid ? want.gid : -1;
  // Owner first: chown may clear setuid/setgid bits that the mode then restores.
  if (uid !== -1 || gid !== -1) await host.chown(path, uid, gid);
  if (options.mode !== false && want.mode !== undefined && (want.mode !== current.mode || uid !== -1 || gid !== -1)) await host.chmod(path, want.mode);
}

/** `user:group` of ids as names where the account files know them (Salt's "owned by root:root"). */
export async function ownerLabel(host: Host, uid: number, gid: number): Promise<string> {
  let db: AccountDb;
  try {
    db = await readAccounts(host);
  } catch {
    return `${uid}:${gid}`;
  }
  const user = db.users.find((u) => u.uid === uid)?.name ?? String(uid);
  const group = groupByGid(db, gid)?.name ?? String(gid);
  return `${user}:${group}`;
}
