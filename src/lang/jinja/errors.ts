/** Error types raised while compiling or rendering; index.ts turns them into positioned diagnostics. */

export const CODE_SYNTAX = 'JINJA001';
export const CODE_UNDEFINED = 'JINJA002';
export const CODE_RUNTIME = 'JINJA003';
export const CODE_NOT_FOUND = 'JINJA004';

export class TemplateSyntaxError extends Error {
  constructor(message: string, readonly file: string, readonly offset: number) {
    super(message);
    this.name = 'TemplateSyntaxError';
  }
}

/** A Python-level exception (TypeError, UndefinedError, ...) raised while rendering. */
export class PyError extends Error {
  /** Where it happened, filled in by the interpreter at the innermost statement that saw it. */
  file?: string;
  offset?: number;
  source?: string;
  constructor(readonly pyType: string, message: string) {
    super(message);
    this.name = pyType;
  }
}

export const typeError = (msg: string): PyError => new PyError('TypeError', msg);
export const valueError = (msg: string): PyError => new PyError('ValueError', msg);
export const undefinedError = (msg: string): PyError => new PyError('UndefinedError', msg);

/**
 * Budgets that make a runaway template end with a positioned error instead of running for ever or
 * exhausting memory (Python's lazy `range(10**9)` loop would run for hours; `'x' * 10**10` aborts).
 * The most items one `range()` makes, the longest string or list `*` builds, and the most loop-body runs
 * in one render (CAIRN_JINJA_MAX_ITERATIONS overrides the last).
 */
export const MAX_RANGE = 1_000_000;
export const MAX_SEQUENCE = 16 * 1024 * 1024;
export function maxIterations(): number {
  const n = Number(process.env.CAIRN_JINJA_MAX_ITERATIONS);
  return Number.isInteger(n) && n > 0 ? n : 10_000_000;
}
