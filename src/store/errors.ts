/** Errors of the run store that a user can act on (a busy or unusable state directory). */

export type StoreErrorCode = 'locked' | 'state-dir';

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
