/**
 * What each Converge resource type accepts and exposes: its HCL fields, the fields a lookup may read (fixed
 * in the HCL, or known only once the node ran, with the core output that carries them), and how its fields
 * become the params of a shared resource kind.
 */
import type { RawNode } from './types.js';

export type FieldRef =
  | { readonly kind: 'static'; readonly field: string; readonly fallback: unknown; readonly output?: string }
  | { readonly kind: 'runtime'; readonly output: string };

const COMMON = ['depends', 'group'];
const SHELL = ['interpreter', 'check_flags', 'exec_flags', 'timeout', 'dir', 'env'];

/** HCL fields per supported type. */
export const FIELDS: Readonly<Record<string, readonly string[]>> = {
  task: ['check', 'apply', ...SHELL],
  'task.query': ['query', ...SHELL],
  'healthcheck.task': ['check', 'apply', ...SHELL],
  'file.content': ['destination', 'content'],
  'file.directory': ['destination', 'create_all'],
  'file.mode': ['destination', 'mode'],
  'file.owner': ['destination', 'user', 'uid', 'group', 'gid', 'recursive', 'verbose'],
  'file.fetch': ['source', 'destination', 'hash_type', 'hash', 'force'],
  unarchive: ['source', 'destination', 'hash_type', 'hash', 'force'],
  'wait.query': ['check', ...SHELL, 'interval', 'grace_period', 'max_retry'],
  'wait.port': ['host', 'port', 'interval', 'grace_period', 'max_retry'],
  'systemd.unit.state': ['unit', 'state', 'reload', 'signal_name', 'signal_number'],
  'package.apt': ['name', 'state'],
  'user.user': ['username', 'new_username', 'uid', 'groupname', 'gid', 'name', 'create_home', 'skel_dir', 'home_dir', 'move_dir', 'expiry', 'state'],
  'user.group': ['gid', 'name', 'new_name', 'state'],
};

/** Types Converge has that cairn refuses, with the reason. */
export const UNSUPPORTED: Readonly<Record<string, string>> = {
  'docker.image': 'docker resources are not supported',
  'docker.container': 'docker resources are not supported',
  'docker.network': 'docker resources are not supported',
  'docker.volume': 'docker resources are not supported',
  'lvm.volumegroup': 'lvm resources are not supported',
  'lvm.logicalvolume': 'lvm resources are not supported',
  filesystem: 'filesystem resources are not supported',
  'package.rpm': 'rpm packages are not supported (this engine manages dpkg/apt packages)',
};

export function isTask(ctype: string): boolean {
  return ctype === 'task' || ctype === 'task.query' || ctype === 'healthcheck.task';
}

const ALLOWED = new Map<string, readonly string[]>();

export function allowedFields(ctype: string): readonly string[] | undefined {
  const f = FIELDS[ctype];
  if (!f) return undefined;
  let all = ALLOWED.get(ctype);
  if (!all) ALLOWED.set(ctype, (all = [...f, ...COMMON]));
  return all;
}

const STATUS: Readonly<Record<string, string>> = { stdout: 'stdout', stderr: 'stderr', exitstatus: 'exitstatus' };

/** What a lookup of `path` on `target` reads, or undefined for a field the type does not have. */
export function lookupField(target: RawNode, path: string): FieldRef | undefined {
  if (isTask(target.ctype)) {
    const [head, tail, ...rest] = path.split('.');
    if (rest.length > 0 || head === undefined) return undefined;
    // The seed writes `task.x.stdout`; Converge's own names are `status.stdout` and `checkstatus.stdout`.
    if (tail === undefined && STATUS[head]) return { kind: 'runtime', output: STATUS[head] as string };
    if (head === 'status' && tail !== undefined && STATUS[tail]) return { kind: 'runtime', output: STATUS[tail] as string };
    if (head === 'checkstatus' && tail !== undefined && STATUS[tail]) return { kind: 'runtime', output: `check.${STATUS[tail]}` };
    if (tail !== undefined) return undefined;
    const script = target.ctype === 'task.query' ? 'query' : 'check';
    if (head === 'check' || head === 'query') return head === script ? { kind: 'static', field: script, fallback: '', output: 'check' } : undefined;
    if (head === 'apply' && target.ctype !== 'task.query') return { kind: 'static', field: 'apply', fallback: '', output: 'apply' };
    if (head === 'dir') return { kind: 'static', field: 'dir', fallback: '', output: 'dir' };
    if (head === 'interpreter') return { kind: 'static', field: 'interpreter', fallback: '/bin/sh', output: 'interpreter' };
    if (head === 'env') return { kind: 'static', field: 'env', fallback: [] };
    return undefined;
  }
  if (target.ctype === 'file.content') {
    if (path === 'destination') return { kind: 'static', field: 'destination', fallback: '', output: 'path' };
    if (path === 'content') return { kind: 'static', field: 'content', fallback: '', output: 'content' };
    return undefined;
  }
  const fields = FIELDS[target.ctype];
  if (!fields?.includes(path)) return undefined;
  return { kind: 'static', field: path, fallback: '' };
}
