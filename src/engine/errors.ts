/** Turns what stopped a command into text on stderr and an exit code; users never see a stack trace. */
import { readFileSync } from 'node:fs';
import { type Diagnostic, DiagnosticError, formatDiagnostic } from '../core/diag.js';
import { writeErr } from './stdio.js';

function sourceOf(file: string, sources: Map<string, string | undefined>): string | undefined {
  if (!sources.has(file)) {
    try {
      sources.set(file, readFileSync(file, 'utf8'));
    } catch {
      sources.set(file, undefined);
    }
  }
  return sources.get(file);
}

export function printDiagnostics(diags: readonly Diagnostic[]): void {
  // Each file is read once per report, and again for the next (a file may change between two runs in one process).
  const sources = new Map<string, string | undefined>();
  const text = diags.map((d) => formatDiagnostic(d, d.span ? sourceOf(d.span.file, sources) : undefined));
  writeErr(`${text.join('\n')}\n`);
  if (diags.length > 1) writeErr(`${diags.length} errors\n`);
}

/** A user error that is not tied to a source position (missing file, locked state dir). */
export class UserError extends Error {
  readonly isUserError = true;
  static is(e: unknown): e is UserError {
    return typeof e === 'object' && e !== null && (e as { isUserError?: unknown }).isUserError === true;
  }
}

export function reportError(e: unknown): number {
  if (DiagnosticError.is(e)) {
    printDiagnostics(e.diagnostics);
    return 1;
  }
  if (UserError.is(e) || (typeof e === 'object' && e !== null && (e as { isStoreError?: unknown }).isStoreError === true)) {
    writeErr(`cairn: ${(e as Error).message}\n`);
    return 1;
  }
  const err = e instanceof Error ? e : new Error(String(e));
  writeErr(`cairn: internal error: ${err.message}\n`);
  if (process.env.CAIRN_DEBUG) writeErr(`${err.stack ?? ''}\n`);
  else writeErr('(this is a bug in cairn; run with CAIRN_DEBUG=1 to see where it happened)\n');
  return 1;
}
