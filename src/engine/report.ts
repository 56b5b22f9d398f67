/** Prints a finished run in the chosen format. */
import type { RunReport } from '../core/runtime.js';
import { formatResults, formatSummary, labelWidth } from './format-text.js';
import { writeOut } from './stdio.js';

export function reportJson(report: RunReport, runId: string | number | undefined, extra: Record<string, unknown>): Record<string, unknown> {
  return {
    run: runId ?? null,
    mode: report.mode,
    ...extra,
    start: report.start,
    duration_ms: Math.round(report.durationMs * 1000) / 1000,
    counts: report.counts,
    // The stack of an internal error stays in the run record; the output says only what happened.
    results: report.results.map((r) => (r.internal ? { ...r, internal: { message: r.internal.message } } : r)),
  };
}

/**
 * Prints a run. `changesOnly` leaves out the text lines of resources already in the right state (status
 * `ok`) and says how many it left out; what changed, would change, failed, was skipped or could not be
 * resolved is always shown. The JSON output and the run store keep every result.
 */
export function printReport(report: RunReport, out: 'text' | 'json', runId: string | number | undefined, extra: Record<string, unknown>, options: { changesOnly?: boolean } = {}): void {
  if (out === 'json') {
    writeOut(`${JSON.stringify(reportJson(report, runId, extra), null, 2)}\n`);
    return;
  }
  const shown = options.changesOnly ? report.results.filter((r) => r.status !== 'ok') : report.results;
  // Written a piece at a time: the text of 10,000s of results is never one string.
  const width = labelWidth(shown, report.mode);
  for (let i = 0; i < shown.length; i += PIECE) writeOut(`${formatResults(shown.slice(i, i + PIECE), report.mode, width)}\n`);
  const hidden = report.results.length - shown.length;
  const note = options.changesOnly ? `${hidden} unchanged not shown (--changes-only)\n` : '';
  writeOut(`${note}${formatSummary(report.mode, report.counts, report.results.length, report.durationMs, runId)}\n`);
}

/** Results formatted and written at a time. */
const PIECE = 1000;
