/** Prints a finished run in the chosen format. */
import type { RunReport } from '../core/runtime.js';
import { formatResults, formatSummary } from './format-text.js';

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

export function printReport(report: RunReport, out: 'text' | 'json', runId: string | number | undefined, extra: Record<string, unknown>): void {
  if (out === 'json') {
    process.stdout.write(`${JSON.stringify(reportJson(report, runId, extra), null, 2)}\n`);
    return;
  }
  const body = report.results.length > 0 ? `${formatResults(report.results, report.mode)}\n` : '';
  process.stdout.write(`${body}${formatSummary(report.mode, report.counts, report.results.length, report.durationMs, runId)}\n`);
}
