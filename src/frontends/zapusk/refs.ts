/**
 * The `{{name}}` references of a value, its `{}`-mismatch check, and positions inside it, each in one
 * pass over the value. The patterns are zapusk-tool's regular expressions (`\{\{([^}]+)\}\}`, and
 * `\{\{([^}]+)\}|\{([^}]+)\}\}` for the mismatch warning); read by a backtracking engine they cost the
 * square of a run of `{` that is never closed, so they are scanned here by hand with the same matches.
 */
import type { Span } from '../../core/diag.js';

export interface Ref {
  /** Offset of the `{{`. */
  readonly index: number;
  /** Offset just past the closing `}}`. */
  readonly end: number;
  /** The text between the braces, untrimmed. */
  readonly raw: string;
}

/** What `text.matchAll(/\{\{([^}]+)\}\}/g)` finds, in order. */
export function* refsIn(text: string): Generator<Ref> {
  let from = 0;
  // The first `}` at or after some offset: every `{{` before it shares it, so it is looked up once.
  let close = -1;
  for (;;) {
    const i = text.indexOf('{{', from);
    if (i < 0) return;
    if (close < i + 2) close = text.indexOf('}', i + 2);
    if (close < 0) return;
    // `[^}]+` runs from i + 2 to the first `}`; it must hold a character and be followed by `}}`.
    if (close > i + 2 && text.charCodeAt(close + 1) === 125) {
      yield { index: i, end: close + 2, raw: text.slice(i + 2, close) };
      from = close + 2;
    } else from = i + 1;
  }
}

/** What `/\{\{([^}]+)\}|\{([^}]+)\}\}/.test(text)` says. */
export function hasMismatch(text: string): boolean {
  // Both alternatives end at a `}` whose run of non-`}` characters before it (the segment) holds the
  // opening brace(s) and at least one character after them.
  let start = 0;
  for (let j = text.indexOf('}'); j >= 0; start = j + 1, j = text.indexOf('}', j + 1)) {
    const body = text.slice(start, Math.max(start, j - 1));
    if (body.includes('{{')) return true;
    if (text.charCodeAt(j + 1) === 125 && body.includes('{')) return true;
  }
  return false;
}

/** Positions inside one value that starts at `start`; multi-line values count lines. */
export class ValuePositions {
  private lineStarts: number[] | undefined;

  constructor(
    private readonly start: Span,
    private readonly text: string,
  ) {}

  at(offset: number): Span {
    if (!this.lineStarts) {
      this.lineStarts = [0];
      for (let i = this.text.indexOf('\n'); i >= 0; i = this.text.indexOf('\n', i + 1)) this.lineStarts.push(i + 1);
    }
    const starts = this.lineStarts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    if (lo === 0) return { ...this.start, col: this.start.col + offset };
    return { file: this.start.file, line: this.start.line + lo, col: offset - (starts[lo] as number) + 1 };
  }
}
