/** What `cairn otter run` prints: the log at a level, status, summary and drift, as text or JSON. */
import { type DriftItem, indentedLines, type LogLine, type OtterRunResult, plainLines } from '../frontends/otter/index.js';
import type { OtterOptions } from './otter-command.js';
import { writeOut } from '../engine/stdio.js';

const STATUS = { normal: 'Normal', warning: 'Warning', error: 'Error' } as const;

const LEVELS = { debug: 'DEBUG', information: 'INFO', warning: 'WARN', error: 'ERROR' } as const;

export interface Summary {
  readonly operations: number;
  readonly changed: number;
  readonly unchanged: number;
  readonly failed: number;
  readonly drifted: number;
  readonly warnings: number;
  readonly errors: number;
}

export function summarize(result: OtterRunResult): Summary {
  // One pass over the results and one over the log (a large run has a result and a line per operation).
  let changed = 0;
  let unchanged = 0;
  let failed = 0;
  let drifted = 0;
  const results = result.results;
  for (let i = 0; i < results.length; i++) {
    const status = (results[i] as (typeof results)[number]).status;
    if (status === 'changed') changed++;
    else if (status === 'ok') unchanged++;
    else if (status === 'failed') failed++;
    else if (status === 'pending') drifted++;
  }
  let warnings = 0;
  let errors = 0;
  const log = result.log;
  for (let i = 0; i < log.length; i++) {
    const x = log[i] as LogLine;
    if (x.kind !== 'message') continue;
    if (x.level === 'WARN') warnings++;
    else if (x.level === 'ERROR') errors++;
  }
  return { operations: results.length, changed, unchanged, failed, drifted, warnings, errors };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function summaryLine(s: Summary): string {
  return `Summary: ${plural(s.operations, 'operation run')}: ${s.changed} changed, ${s.unchanged} unchanged, ${s.drifted} drifted, ${s.failed} failed; ${plural(s.warnings, 'warning')}, ${plural(s.errors, 'error')}`;
}

/** One drifted item: its properties, then under it what differs (a diff for text content). */
function driftLines(d: DriftItem): string[] {
  const lines = [`  ${d.operation} ${d.key}: ${d.properties.join(', ')}`];
  for (const detail of d.details ?? []) {
    if (detail.diff !== undefined) lines.push(...detail.diff.replace(/\n$/, '').split('\n').map((l) => `      ${l}`));
    else lines.push(`    ${detail.property}: wanted ${detail.expected ?? ''}, found ${detail.actual ?? ''}`);
  }
  return lines;
}

/** The messages at `level` or above, and the scopes that still hold one of them. */
function shown(log: readonly LogLine[], level: OtterOptions['logLevel']): LogLine[] {
  const order = ['DEBUG', 'INFO', 'WARN', 'ERROR'];
  const min = order.indexOf(LEVELS[level ?? 'debug']);
  const visible = (l: LogLine): boolean => l.kind === 'message' && order.indexOf(l.level) >= min;
  return log.filter((l, i) => {
    if (l.kind === 'message') return visible(l);
    // A scope holds the lines after it that are deeper than it.
    for (let j = i + 1; j < log.length && (log[j] as LogLine).depth > l.depth; j++) if (visible(log[j] as LogLine)) return true;
    return false;
  });
}

/** The log (scopes as headers), the final status and summary, then for collect runs the drift report. */
export function printText(result: OtterRunResult, opts: OtterOptions, runId: number): void {
  writeOut(`${textLines(result, opts, runId).join('\n')}\n`);
}

/** What `printText` prints, as lines (a fleet run prints them under each server's name). */
export function textLines(result: OtterRunResult, opts: OtterOptions, runId: number): string[] {
  const lines = indentedLines(shown(result.log, opts.logLevel ?? 'information'));
  if (lines.length > 0) lines.push('');
  if (opts.simulation) lines.push('Simulation: nothing was changed.');
  lines.push(`Status: ${STATUS[result.status]} (run ${runId})`);
  lines.push(summaryLine(summarize(result)));
  if (opts.mode !== 'execute') {
    lines.push('');
    if (result.drift.length === 0) lines.push('No drift.');
    else {
      lines.push(opts.mode === 'collect' ? 'Drift (nothing changed):' : 'Drift:');
      for (const d of result.drift) lines.push(...driftLines(d));
    }
  }
  return lines;
}

/** Status, `LEVEL: message` lines without scopes, drift in the script's names (with what differs), and the summary. */
export function printJson(result: OtterRunResult, opts: OtterOptions, warnings: readonly string[]): void {
  writeOut(`${JSON.stringify(jsonOf(result, opts, warnings), null, 2)}\n`);
}

/** What `printJson` prints, as an object. */
export function jsonOf(result: OtterRunResult, opts: OtterOptions, warnings: readonly string[]): Record<string, unknown> {
  return {
    status: STATUS[result.status],
    log: plainLines(shown(result.log, opts.logLevel)),
    drift: result.drift.map((d) => ({ operation: d.operation, key: d.key, properties: [...d.properties], ...(d.details ? { details: d.details } : {}) })),
    summary: summarize(result),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}
