/**
 * A guard every parser runs on its input first: brackets nested deeper than any real configuration would
 * (and deep enough to exhaust the stack of a recursive parser or of the walks after it) are reported at the
 * first bracket past the limit, as a positioned diagnostic instead of a stack overflow. Quoted strings are
 * skipped; the scan is a loop, so it cannot overflow itself.
 */
import type { Code } from './codes.js';
import { type Diagnostic, error, LineMap } from './diag.js';

/** Deeper than this is refused: Python's own parser stops nested brackets at 200. */
export const MAX_NESTING = 200;

export interface NestingOptions {
  readonly open?: string;
  readonly close?: string;
  /** Characters that start a quoted string in which brackets do not count. */
  readonly quotes?: string;
  readonly limit?: number;
}

/** The offset of the first bracket that opens one level too many, or -1. */
export function tooDeepAt(text: string, options: NestingOptions = {}): number {
  const open = options.open ?? '[{(';
  const close = options.close ?? ']})';
  const quotes = options.quotes ?? '"\'';
  const limit = options.limit ?? MAX_NESTING;
  let depth = 0;
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote || c === '\n') quote = '';
      continue;
    }
    if (quotes.includes(c)) quote = c;
    else if (open.includes(c)) {
      if (++depth > limit) return i;
    } else if (close.includes(c) && depth > 0) depth--;
  }
  return -1;
}

/** A positioned diagnostic when the text nests too deeply, else undefined. */
export function nestingDiagnostic(file: string, text: string, code: Code, options: NestingOptions = {}): Diagnostic | undefined {
  const at = tooDeepAt(text, options);
  if (at < 0) return undefined;
  const limit = options.limit ?? MAX_NESTING;
  return error(code, `nesting deeper than ${limit} levels is not supported here`, { span: new LineMap(file, text).range(at, at + 1) });
}
