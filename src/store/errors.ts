/** Errors of the run store that a user can act on (a busy or unusable state directory). */

export type StoreErrorCode = 'locked' | 'state-dir' | 'io' | 'unreachable' | 'schema' | 'usage';

/** Thrown for a store problem the user can fix; the CLI prints the message (no stack) and exits 1. */
export class StoreError extends Error {
  readonly code: StoreErrorCode;
  readonly isStoreError = true;
  constructor(code: StoreErrorCode, message: string) {
    super(message);
    this.name = 'StoreError';
    this.code = code;
  }
  static is(e: unknown): e is StoreError {
    return typeof e === 'object' && e !== null && (e as { isStoreError?: unknown }).isStoreError === true;
  }
}

const WHY: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  ENOENT: 'no such file or directory',
  ENOTDIR: 'a file is in the way',
  EEXIST: 'a file is in the way',
};

/**
 * Turns a file-system error the user can act on (permissions, a full disk) into a StoreError with the
 * given lead-in; anything else is a bug and is returned unchanged, to be thrown with its stack.
 */
export function storeIoError(code: StoreErrorCode, lead: string, e: unknown): unknown {
  if (StoreError.is(e)) return e;
  const why = WHY[(e as NodeJS.ErrnoException | undefined)?.code ?? ''];
  return why === undefined ? e : new StoreError(code, `${lead}: ${why}`);
}
