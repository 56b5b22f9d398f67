/** Fleet output: per-host results, unreachable hosts apart with why, a totals line; and a progress line per host. */
import type { RunMode } from '../core/model.js';
import type { RunReport } from '../core/runtime.js';
import { type FleetTotals, type HostOutcome, totalsLine } from '../engine/fanout.js';
import { colors } from '../engine/color.js';
import { formatResults, formatSummary } from '../engine/format-text.js';
import { isTerminal, writeOut } from '../engine/stdio.js';

export type HostClass = 'changed' | 'ok' | 'failed' | 'unreachable';

/**
 * One host's run: its report and, for a front end with its own output, the text it prints for the host
 * and whether it counts the host's run as failed (an error it reports beside the results).
 */
export interface HostRun extends RunReport {
  readonly text?: string;
  readonly failed?: boolean;
}

export function classify(outcome: HostOutcome<HostRun>): HostClass {
  if (outcome.status === 'unreachable') return 'unreachable';
  if (outcome.status === 'failed') return 'failed';
  const r = outcome.value;
  if (r.failed === true || r.counts.failed > 0 || r.results.some((x) => x.result === false)) return 'failed';
  if (r.counts.changed + r.counts.pending > 0) return 'changed';
  return 'ok';
}

/** How many hosts fell in each class (`cls`: a graph run's classes by default). */
export function totalsOf<T = HostRun>(
  outcomes: readonly HostOutcome<T>[],
  cls: (o: HostOutcome<T>) => HostClass = classify as unknown as (o: HostOutcome<T>) => HostClass,
): FleetTotals {
  const t = { hosts: outcomes.length, changed: 0, ok: 0, failed: 0, unreachable: 0 };
  for (const o of outcomes) t[cls(o)] += 1;
  return t;
}

/** `changesOnly`: each host's resources already in the right state are left out and counted, as on one machine. */
export function printFleetText(outcomes: readonly HostOutcome<HostRun>[], mode: RunMode, runId: number | undefined, changesOnly = false): void {
  const c = colors();
  const out: string[] = [];
  for (const o of outcomes) {
    if (o.status === 'unreachable') continue;
    out.push(c.bold(`== ${o.host}`));
    if (o.status === 'failed') {
      out.push(`${c.red('failed')}: ${o.reason}`);
      continue;
    }
    if (o.value.text !== undefined) {
      out.push(o.value.text.replace(/\n$/, ''));
      continue;
    }
    const shown = changesOnly ? o.value.results.filter((r) => r.status !== 'ok') : o.value.results;
    if (shown.length > 0) out.push(formatResults(shown, mode));
    if (changesOnly) out.push(`${o.value.results.length - shown.length} unchanged not shown (--changes-only)`);
    out.push(formatSummary(mode, o.value.counts, o.value.results.length, o.value.durationMs));
  }
  const unreachable = outcomes.filter((o) => o.status === 'unreachable');
  if (unreachable.length > 0) {
    out.push(c.bold('unreachable:'));
    for (const o of unreachable) out.push(`  ${o.host}: ${o.status === 'unreachable' ? o.reason : ''}`);
  }
  out.push(`${totalsLine(totalsOf(outcomes))}${runId !== undefined ? ` (run ${runId})` : ''}`);
  writeOut(`${out.join('\n')}\n`);
}

/** `transport` per host: what reaching it cost (requests, sequential round trips), where the host counts them. */
export function fleetJson(
  outcomes: readonly HostOutcome<HostRun>[],
  mode: RunMode,
  runId: number | undefined,
  extra: Record<string, unknown>,
  transport: ReadonlyMap<string, unknown> = new Map(),
): Record<string, unknown> {
  const hosts: Record<string, unknown> = {};
  for (const o of outcomes) {
    const base = { status: classify(o), duration_ms: o.durationMs, ...(transport.has(o.host) ? { transport: transport.get(o.host) } : {}) };
    hosts[o.host] = o.status === 'done' ? { ...base, counts: o.value.counts, results: o.value.results } : { ...base, reason: o.reason };
  }
  return { run: runId ?? null, mode, ...extra, totals: totalsOf(outcomes), hosts };
}

/** On a terminal, one line per host as it finishes (classed by `cls`, a program run's by default); silent when piped. */
export function hostProgress<T = HostRun>(
  given?: NodeJS.WriteStream,
  cls: (o: HostOutcome<T>) => HostClass = classify as unknown as (o: HostOutcome<T>) => HostClass,
): ((o: HostOutcome<T>) => void) | undefined {
  if (process.env.CI || (given ? !given.isTTY : !isTerminal(2))) return undefined;
  const stream = given ?? process.stderr;
  let done = 0;
  return (o) => {
    done += 1;
    const status = cls(o);
    const why = o.status === 'done' ? '' : `: ${o.reason}`;
    stream.write(`[${done}] ${o.host}: ${status}${why} (${(o.durationMs / 1000).toFixed(1)} s)\n`);
  };
}
