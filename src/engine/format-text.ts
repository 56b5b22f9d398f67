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

/** A new file's content shown in a plan or apply: at most this many lines and characters. */
export const NEW_CONTENT_LINES = 200;
export const NEW_CONTENT_CHARS = 16 * 1024;

/** Unified-diff headers that name the file: a diff computed as Salt prints it has empty names. */
function withPath(diff: string, path: string | undefined): string {
  if (path === undefined || !diff.startsWith('--- \n+++ \n')) return diff;
  return `--- ${path}\n+++ ${path}\n${diff.slice('--- \n+++ \n'.length)}`;
}

/** A new file's content as a diff from nothing, bounded; binary content is only named and sized. */
export function newFileDiff(path: string, content: string): string {
  if (content.includes('\0')) return `binary file created: ${Buffer.byteLength(content, 'utf8')} bytes`;
  const all = content.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  let shown = all.slice(0, NEW_CONTENT_LINES);
  let text = shown.join('');
  if (text.length > NEW_CONTENT_CHARS) {
    text = text.slice(0, NEW_CONTENT_CHARS);
    shown = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  }
  let out = `--- /dev/null\n+++ ${path}\n@@ -0,0 +1${all.length === 1 ? '' : `,${all.length}`} @@\n`;
  for (const l of shown) out += `+${l.replace(/\n$/, '')}\n`;
  if (shown.length < all.length || text.length < content.length) out += `[${all.length - shown.length} more lines, ${Buffer.byteLength(content, 'utf8')} bytes in all]\n`;
  return out;
}

/** The changes of one node, diffs as indented blocks and other keys as `key: value`. */
export function formatChanges(changes: Record<string, unknown>, path?: string): string[] {
  const out: string[] = [];
  for (const [k, v0] of Object.entries(changes)) {
    const v = k === 'diff' && typeof v0 === 'string' ? withPath(v0, path) : v0;
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
    if (Object.keys(r.changes).length > 0 && r.status !== 'skipped') {
      const path = typeof r.outputs?.path === 'string' ? r.outputs.path : undefined;
      lines.push(...formatChanges(r.changes, path));
      const content = r.outputs?.content;
      if (r.changes.newfile !== undefined && path !== undefined && typeof content === 'string') lines.push('    content:', indent(newFileDiff(path, content), '      '));
    }
  }
  return lines.join('\n');
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10000 ? 3 : 1)} s`;
}

export function formatSummary(mode: RunMode, counts: Counts, total: number, durationMs: number, runId?: string | number): string {
  const parts: string[] = [];
  const head = { apply: 'Applied', check: 'Plan', collect: 'Drift', simulate: 'Simulated', destroy: 'Destroyed' }[mode];
  if (mode === 'check') parts.push(`${counts.pending} to change`);
  else if (mode === 'collect') parts.push(`${counts.pending} drifted`);
  else parts.push(`${counts.changed} changed`);
  parts.push(`${counts.ok} ok`, `${counts.failed} failed`, `${counts.skipped} skipped`);
  if (counts.unresolvable > 0) parts.push(`${counts.unresolvable} unresolvable`);
  const run = runId !== undefined ? `, run ${runId}` : '';
  const text = `${head}: ${parts.join(', ')} (${total} nodes in ${seconds(durationMs)}${run})`;
  return counts.failed > 0 ? colors().red(text) : text;
}
