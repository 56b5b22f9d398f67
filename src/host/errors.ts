/** Filesystem errors of every host, worded the same way: `cannot write /etc/x: permission denied (EACCES)`. */

const DESCRIPTIONS: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOENT: 'no such file or directory',
  ENOTDIR: 'a parent is not a directory',
  EISDIR: 'is a directory',
  EEXIST: 'already exists',
  ENOTEMPTY: 'directory not empty',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'file name too long',
  EINVAL: 'invalid argument',
  EBUSY: 'resource busy',
  EXDEV: 'cross-device link',
  EMFILE: 'too many open files',
  EIO: 'input/output error',
};

/** An error of a host operation on a path; `code` is the errno name so callers can branch on it. */
export class HostError extends Error {
  readonly code: string;
  readonly path: string;
  constructor(operation: string, path: string, code: string, detail?: string) {
    super(`cannot ${operation} ${path}: ${detail ?? DESCRIPTIONS[code] ?? 'failed'} (${code})`);
    this.name = 'HostError';
    this.code = code;
    this.path = path;
  }
}

/** Whether the error says a host could not be reached or its connection was lost (an SSH host's SshConnectError). */
export function isConnectionError(e: unknown): e is Error {
  return e instanceof Error && (e as { isSshConnectError?: unknown }).isSshConnectError === true;
}

export function errnoCode(e: unknown): string | undefined {
  const code = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/** Wraps an error thrown by `node:fs` into a HostError naming the path; other errors pass unchanged. */
export function toHostError(e: unknown, operation: string, path: string): Error {
  if (e instanceof HostError) return e;
  const code = errnoCode(e);
  if (code === undefined) return e instanceof Error ? e : new Error(String(e));
  if (code === 'ERR_FS_EISDIR') return new HostError(operation, path, 'EISDIR');
  return new HostError(operation, path, code);
}
