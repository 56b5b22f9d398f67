/** Salt's pkg, user and group states on the shared package, user and group kinds. */
import type { Chunk } from '../compile/index.js';
import type { StateImpl, Translation } from './types.js';

function pkg(state: 'installed' | 'removed' | 'latest' | 'purged') {
  return (chunk: Chunk): Translation => {
    const params: Record<string, unknown> = { state };
    if (Array.isArray(chunk.pkgs)) {
      params.names = chunk.pkgs.map((p) => (p && typeof p === 'object' ? Object.keys(p)[0] : String(p)));
    } else params.name = chunk.name;
    if (typeof chunk.version === 'string' || typeof chunk.version === 'number') params.version = String(chunk.version);
    return { type: 'package', params };
  };
}

function num(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
  return undefined;
}

function user(state: 'present' | 'absent') {
  return (chunk: Chunk): Translation => {
    const params: Record<string, unknown> = { name: chunk.name, state };
    if (state === 'absent') {
      if (chunk.purge === true) params.purge = true;
      return { type: 'user', params };
    }
    const uid = num(chunk.uid);
    if (uid !== undefined) params.uid = uid;
    const gid = num(chunk.gid) ?? (typeof chunk.gid === 'string' ? chunk.gid : undefined);
    if (gid !== undefined) params.gid = gid;
    if (typeof chunk.home === 'string') params.home = chunk.home;
    if (typeof chunk.shell === 'string') params.shell = chunk.shell;
    if (Array.isArray(chunk.groups)) params.groups = chunk.groups.map(String);
    if (chunk.system === true) params.system = true;
    if (chunk.createhome === false) params.createhome = false;
    return { type: 'user', params };
  };
}

function group(state: 'present' | 'absent') {
  return (chunk: Chunk): Translation => {
    const params: Record<string, unknown> = { name: chunk.name, state };
    if (state === 'present') {
      const gid = num(chunk.gid);
      if (gid !== undefined) params.gid = gid;
      if (chunk.system === true) params.system = true;
      if (Array.isArray(chunk.members)) params.members = chunk.members.map(String);
    }
    return { type: 'group', params };
  };
}

export const pkgStates: Record<string, StateImpl> = {
  installed: { translate: pkg('installed') },
  removed: { translate: pkg('removed') },
  purged: { translate: pkg('purged') },
  latest: { translate: pkg('latest') },
};
export const userStates: Record<string, StateImpl> = { present: { translate: user('present') }, absent: { translate: user('absent') } };
export const groupStates: Record<string, StateImpl> = { present: { translate: group('present') }, absent: { translate: group('absent') } };
