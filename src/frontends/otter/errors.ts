/** How execution leaves a statement early: a raised error, or break/continue/return/fail. */
import type { Span } from '../../core/diag.js';

/**
 * A raised error (seed: the execution "raises an error"): it halts execution unless a `try` catches it.
 * A fatal one (`fail`, a lock inside a lock, a `global` after other statements) cannot be caught.
 */
export class OtterError extends Error {
  /** Set once the message has been written to the log, so that it is written once. */
  logged = false;
  constructor(
    message: string,
    readonly span?: Span,
    readonly fatal = false,
  ) {
    super(message);
    this.name = 'OtterError';
  }
}

/** `break`, `continue` and `return` unwind to their loop or module; `fail` to the top. */
export class ControlSignal {
  constructor(readonly kind: 'break' | 'continue' | 'return' | 'fail') {}
}

export function at(span: Span | undefined): string {
  return span ? `${span.file}:${span.line}:${span.col}: ` : '';
}

/** Thrown by an operation stopped by an enclosing `with timeout` (its process killed, its sleep cut short). */
export class Cancelled extends Error {
  constructor() {
    super('cancelled');
    this.name = 'Cancelled';
  }
}
