/**
 * The one exit-code policy (DESIGN.md, as terraform): 0 success; 1 a failure, an error or bad input;
 * with --detailed-exitcode, 2 when the run succeeded with changes (made, pending, or drift found).
 */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_CHANGES = 2;

export interface RunVerdict {
  /** A resource, step or operation failed, or the run itself errored. */
  readonly failed: boolean;
  /** Something changed, would change, or drifted. */
  readonly changed: boolean;
}

export function exitCodeFor(verdict: RunVerdict, detailed: boolean): number {
  if (verdict.failed) return EXIT_FAILED;
  return detailed && verdict.changed ? EXIT_CHANGES : EXIT_OK;
}
