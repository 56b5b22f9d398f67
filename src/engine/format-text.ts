/** Human output: one status line per node, diffs under changed nodes, and a summary line. */
import type { NodeResult, RunMode } from '../core/model.js';
import type { Counts } from '../core/runtime.js';
import { colors } from './color.js';

const LABELS: Record<NodeResult['status'], string> = {
  ok: 'ok',
  changed: 'changed',
  pending: 'would change',
  failed: 'failed',
  skipped: 'skipped',
  unresolvable: 'unresolvable',
};

function label(r: NodeResult, mode: RunMode): string {
  if (r.status === 'pending' && mode === 'collect') return 'drift';
  if (r.status === 'changed' && mode === 'simulate') return 'simulated';
  return LABELS[r.status];
}

function paint(status: NodeResult['status'], text: string): string {
  switch (status) {
    case 'ok':
      return colors().green(text);
    case 'changed':
    case 'pending':
      return colors().yellow(text);
    case 'failed':
      return colors().red(text);
    case 'skipped':
      return colors().dim(text);
    case 'unresolvable':
      return colors().magenta(text);
  }
}

function indent(text: string, prefix: string): string {
  return text
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => prefix + colourDiffLine(l))
    .join('\n');
}

function colourDiffLine(l: string): string {
  if (l.startsWith('+') && !l.startsWith('+++')) return colors().green(l);
  if (l.startsWith('-') && !l.startsWith('---')) return colors().red(l);
  if (l.startsWith('@@')) return colors().cyan(l);
  return l;
}

function formatValue(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** The changes of one node, diffs as indented blocks and other keys as `key: value`. */
export function formatChanges(changes: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(changes)) {
    if (typeof v === 'string' && v.includes('\n')) {
      out.push(`    ${k}:`);
      out.push(indent(v, '      '));
    } else out.push(`    ${k}: ${formatValue(v)}`);
  }
  return out;
}

export function formatResultLine(r: NodeResult, mode: RunMode, width: number): string {
  const name = r.name !== r.id ? ` ${colors().dim(`(${r.name})`)}` : '';
  const comment = r.comment ? `  ${r.comment.split('\n')[0]}` : '';
  return `${paint(r.status, label(r, mode).padEnd(width))} ${r.type} ${colors().bold(r.id)}${name}${comment}`;
}

export function formatResults(results: readonly NodeResult[], mode: RunMode): string {
  const width = Math.max(...results.map((r) => label(r, mode).length), 2);
  const lines: string[] = [];
  for (const r of results) {
    lines.push(formatResultLine(r, mode, width));
    if (r.comment.includes('\n')) lines.push(indent(r.comment.split('\n').slice(1).join('\n'), '    '));
    if (Object.keys(r.changes).length > 0 && r.status !== 'skipped') lines.push(...formatChanges(r.changes));
  }
  return lines.join('\n');
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10000 ? 3 : 1)} s`;
}

export function formatSummary(mode: RunMode, counts: Counts, total: number, durationMs: number, runId?: string | number): string {
  const parts: string[] = [];
  const head = { apply: 'Applied', check: 'Plan', collect: 'Drift', simulate: 'Simulated' }[mode];
  if (mode === 'check') parts.push(`${counts.pending} to change`);
  else if (mode === 'collect') parts.push(`${counts.pending} drifted`);
  else parts.push(`${counts.changed} changed`);
  parts.push(`${counts.ok} ok`, `${counts.failed} failed`, `${counts.skipped} skipped`);
  if (counts.unresolvable > 0) parts.push(`${counts.unresolvable} unresolvable`);
  const run = runId !== undefined ? `, run ${runId}` : '';
  const text = `${head}: ${parts.join(', ')} (${total} nodes in ${seconds(durationMs)}${run})`;
  return counts.failed > 0 ? colors().red(text) : text;
}
