/**
 * The three kinds of error (DESIGN.md): a user error is a diagnostic (diag.ts); a resource failure is
 * something the machine refused (a missing file, a command that failed) and becomes a failed result in
 * the system's wording; an internal error is a bug in cairn: it also becomes a failed result, but marked
 * `internal`, with its stack kept for the run record, and no language's own `try` may catch it.
 */

/** Thrown by code that finds cairn itself in a state it should never reach. */
export class InternalError extends Error {
  readonly isInternalError = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InternalError';
  }
}

/**
 * Whether what was thrown is a bug rather than a failure of the machine. Resources report failures by
 * returning `ok: false` or by throwing a plain Error (or a HostError) with the system's wording; the
 * JavaScript engine's own error classes (a property read on undefined, a call of a non-function, a stack
 * overflow) and InternalError only come from mistakes in cairn.
 */
export function isInternal(e: unknown): boolean {
  if (typeof e !== 'object' || e === null) return false;
  if ((e as { isInternalError?: unknown }).isInternalError === true) return true;
  return e instanceof TypeError || e instanceof ReferenceError || e instanceof RangeError || e instanceof SyntaxError || e instanceof EvalError;
}

/** What a result keeps of an internal error: the message shown and the stack for the run record. */
export interface InternalInfo {
  readonly message: string;
  readonly stack: string;
}

export function internalInfo(e: unknown): InternalInfo {
  const err = e instanceof Error ? e : new Error(String(e));
  return { message: `${err.name}: ${err.message}`, stack: err.stack ?? `${err.name}: ${err.message}` };
}

/** The comment of a result that ended in a bug: says so, and where to find the details. */
export function internalComment(info: InternalInfo): string {
  return `internal error (a bug in cairn, not in your input): ${info.message}`;
}

export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
