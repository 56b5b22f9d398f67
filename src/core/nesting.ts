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

/** Character classes of the scan, by char code (ASCII only: every bracket and quote is ASCII). */
const OPEN = 1;
const CLOSE = 2;
const QUOTE = 3;

function classes(open: string, close: string, quotes: string): Uint8Array {
  const table = new Uint8Array(128);
  // Later wins: a character that is both a quote and a bracket is a quote, as in the scan's order.
  for (const c of close) table[c.charCodeAt(0)] = CLOSE;
  for (const c of open) table[c.charCodeAt(0)] = OPEN;
  for (const c of quotes) table[c.charCodeAt(0)] = QUOTE;
  return table;
}

/** A sticky expression matching a run of characters none of which is in `special` (ASCII), by `special`. */
const plainRuns = new Map<string, RegExp>();

function plainRun(special: string): RegExp {
  let re = plainRuns.get(special);
  if (!re) {
    const escaped = [...special].map((c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
    plainRuns.set(special, (re = new RegExp(escaped === '' ? '[^]*' : `[^${escaped}]*`, 'y')));
  }
  return re;
}

/** By a quote's char code: the run of characters inside such a quoted string that neither end it nor escape. */
const quotedRuns: RegExp[] = [];

function quotedRun(quote: number): RegExp {
  return (quotedRuns[quote] ??= plainRun(`\\\n${String.fromCharCode(quote)}`));
}

/** The offset of the first bracket that opens one level too many, or -1. */
export function tooDeepAt(text: string, options: NestingOptions = {}): number {
  const open = options.open ?? '[{(';
  const close = options.close ?? ']})';
  const quotes = options.quotes ?? '"\'';
  const limit = options.limit ?? MAX_NESTING;
  if (/[^\x00-\x7f]/.test(open + close + quotes)) throw new Error('internal: nesting scan takes ASCII brackets and quotes only');
  const table = classes(open, close, quotes);
  const plain = plainRun(open + close + quotes);
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    // A run of characters that are neither brackets nor quotes is skipped in one step: the regular
    // expression runs as machine code even while this loop is still cold (a small input).
    plain.lastIndex = i;
    plain.test(text);
    i = plain.lastIndex;
    if (i >= n) break;
    const c = text.charCodeAt(i);
    const k = c < 128 ? table[c] : 0;
    if (k === QUOTE) {
      // Skip the quoted string: to its closing quote, or to the end of the line.
      const quoted = quotedRun(c);
      for (i++; i < n; i++) {
        quoted.lastIndex = i;
        quoted.test(text);
        i = quoted.lastIndex;
        if (i >= n) break;
        const d = text.charCodeAt(i);
        if (d === 92) i++;
        else if (d === c || d === 10) break;
      }
    } else if (k === OPEN) {
      if (++depth > limit) return i;
    } else if (k === CLOSE && depth > 0) depth--;
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

/**
 * Whether a parsed value (JSON.parse's, which does not recurse) nests objects and arrays deeper than
 * `limit`, counting as the text scan counts brackets. Its own recursion stops at the limit. Cheaper than
 * scanning the text when the value is already parsed; the scan then finds the position to report.
 */
export function valueDeeperThan(v: unknown, limit: number = MAX_NESTING): boolean {
  if (typeof v !== 'object' || v === null) return false;
  if (limit <= 0) return true;
  if (Array.isArray(v)) {
    for (const x of v) if (typeof x === 'object' && x !== null && valueDeeperThan(x, limit - 1)) return true;
    return false;
  }
  for (const k in v) {
    const x = (v as Record<string, unknown>)[k];
    if (typeof x === 'object' && x !== null && valueDeeperThan(x, limit - 1)) return true;
  }
  return false;
}
