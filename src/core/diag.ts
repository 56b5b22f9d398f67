/** Positions and user diagnostics: collected as values, printed as `file:line:col: CODE message`. */
import type { Code } from './codes.js';

export type { Code } from './codes.js';

export interface Span {
  readonly file: string;
  /** 1-based line. */
  readonly line: number;
  /** 1-based column. */
  readonly col: number;
  /** Where the offending text ends (exclusive, 1-based), when known: the code frame underlines up to it. */
  readonly endLine?: number;
  readonly endCol?: number;
}

export type Severity = 'error' | 'warning';

export interface Diagnostic {
  /** A code of the catalogue (codes.ts); `cairn explain CODE` tells what it means. */
  readonly code: Code;
  readonly severity: Severity;
  readonly message: string;
  readonly span?: Span;
  /** The graph node the problem belongs to, when there is no source position. */
  readonly nodeId?: string;
}

export function error(code: Code, message: string, where?: { span?: Span | undefined; nodeId?: string | undefined }): Diagnostic {
  const d: { code: Code; severity: Severity; message: string; span?: Span; nodeId?: string } = { code, severity: 'error', message };
  if (where?.span) d.span = where.span;
  if (where?.nodeId !== undefined) d.nodeId = where.nodeId;
  return d;
}

/** Thrown to stop a command because its input is wrong; the CLI prints the diagnostics and exits 1. */
export class DiagnosticError extends Error {
  readonly diagnostics: readonly Diagnostic[];
  readonly isDiagnosticError = true;
  constructor(diagnostics: readonly Diagnostic[]) {
    super(diagnostics.map((d) => formatDiagnostic(d)).join('\n'));
    this.name = 'DiagnosticError';
    this.diagnostics = diagnostics;
  }
  static is(e: unknown): e is DiagnosticError {
    return typeof e === 'object' && e !== null && (e as { isDiagnosticError?: unknown }).isDiagnosticError === true;
  }
}

export function formatLocation(d: Diagnostic): string {
  if (d.span) return `${d.span.file}:${d.span.line}:${d.span.col}`;
  if (d.nodeId !== undefined) return `node ${JSON.stringify(d.nodeId)}`;
  return 'cairn';
}

/** Longest stretch of a source line a code frame shows. */
const FRAME_WIDTH = 120;

/** One diagnostic as text; with the source text, adds the offending line and a caret under the column. */
export function formatDiagnostic(d: Diagnostic, source?: string): string {
  const head = `${formatLocation(d)}: ${d.code} ${d.message}`;
  if (!d.span || source === undefined) return head;
  const full = source.split('\n')[d.span.line - 1];
  if (full === undefined) return head;
  // A long line is shown as a window around the column, so the caret stays on screen.
  const from = full.length > FRAME_WIDTH ? Math.max(0, Math.min(d.span.col - 1 - FRAME_WIDTH / 2, full.length - FRAME_WIDTH)) : 0;
  const shown = full.slice(from, from + FRAME_WIDTH);
  const line = `${from > 0 ? '…' : ''}${shown}${from + FRAME_WIDTH < full.length ? '…' : ''}`;
  const col = d.span.col - from + (from > 0 ? 1 : 0);
  const gutter = String(d.span.line);
  const pad = ' '.repeat(gutter.length);
  const caretPad = line.slice(0, Math.max(0, col - 1)).replace(/[^\t]/g, ' ');
  const sameLine = d.span.endLine === undefined || d.span.endLine === d.span.line;
  const end = sameLine && d.span.endCol !== undefined ? Math.min(d.span.endCol - from + (from > 0 ? 1 : 0), line.length + 1) : col + 1;
  return `${head}\n ${gutter} | ${line}\n ${pad} | ${caretPad}${'^'.repeat(Math.max(1, end - col))}`;
}

/** Maps character offsets of a text to 1-based line and column. */
export class LineMap {
  private readonly starts: number[] = [0];
  constructor(readonly file: string, text: string) {
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
  }
  /** The span of the text from `offset` to `end` (exclusive). */
  range(offset: number, end: number): Span {
    const from = this.span(offset);
    const to = this.span(Math.max(offset, end));
    return { ...from, endLine: to.line, endCol: to.col };
  }

  span(offset: number): Span {
    const lo = this.lineIndex(offset);
    this.last = lo;
    return { file: this.file, line: lo + 1, col: offset - (this.starts[lo] ?? 0) + 1 };
  }

  /** The line of the last answer: a parser asks mostly in order, so that line or the next is tried first. */
  private last = 0;

  /** The index of the last line starting at or before `offset`. */
  private lineIndex(offset: number): number {
    const starts = this.starts;
    const n = starts.length;
    const at = this.last;
    for (let i = at; i <= at + 1 && i < n; i++) {
      if ((starts[i] ?? 0) <= offset && (i + 1 >= n || offset < (starts[i + 1] ?? 0))) return i;
    }
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}
