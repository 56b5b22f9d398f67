/** Human output: one status line per node, diffs under changed nodes, and a summary line. */
import type { NodeResult, RunMode } from '../core/model.js';
import type { Counts } from '../core/runtime.js';
import { colors, type Palette } from './color.js';

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


function paint(c: Palette, status: NodeResult['status'], text: string): string {
  switch (status) {
    case 'ok':
      return c.green(text);
    case 'changed':
    case 'pending':
      return c.yellow(text);
    case 'failed':
      return c.red(text);
    case 'skipped':
      return c.dim(text);
    case 'unresolvable':
      return c.magenta(text);
  }
}

function indent(c: Palette, text: string, prefix: string): string {
  return text
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => prefix + colourDiffLine(c, l))
    .join('\n');
}

function colourDiffLine(c: Palette, l: string): string {
  if (l.startsWith('+') && !l.startsWith('+++')) return c.green(l);
  if (l.startsWith('-') && !l.startsWith('---')) return c.red(l);
  if (l.startsWith('@@')) return c.cyan(l);
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
export function formatChanges(changes: Record<string, unknown>, path?: string, c: Palette = colors()): string[] {
  const out: string[] = [];
  for (const [k, v0] of Object.entries(changes)) {
    const v = k === 'diff' && typeof v0 === 'string' ? withPath(v0, path) : v0;
    if (typeof v === 'string' && v.includes('\n')) {
      out.push(`    ${k}:`);
      out.push(indent(c, v, '      '));
    } else out.push(`    ${k}: ${formatValue(v)}`);
  }
  return out;
}

export function formatResultLine(r: NodeResult, mode: RunMode, width: number, c: Palette = colors()): string {
  const name = r.name !== r.id ? ` ${c.dim(`(${r.name})`)}` : '';
  const nl = r.comment.indexOf('\n');
  const comment = r.comment ? `  ${nl < 0 ? r.comment : r.comment.slice(0, nl)}` : '';
  return `${paint(c, r.status, label(r, mode).padEnd(width))} ${r.type} ${c.bold(r.id)}${name}${comment}`;
}

/** The width of the status column for these results. */
export function labelWidth(results: readonly NodeResult[], mode: RunMode): number {
  let width = 2;
  for (const r of results) width = Math.max(width, label(r, mode).length);
  return width;
}

/** The text lines of results; `width` (the status column) is given when they are a piece of a longer list. */
export function formatResults(results: readonly NodeResult[], mode: RunMode, width: number = labelWidth(results, mode)): string {
  const c = colors();
  const lines: string[] = [];
  for (const r of results) {
    lines.push(formatResultLine(r, mode, width, c));
    if (r.comment.includes('\n')) lines.push(indent(c, r.comment.split('\n').slice(1).join('\n'), '    '));
    if (r.status !== 'skipped' && hasKeys(r.changes)) {
      const path = typeof r.outputs?.path === 'string' ? r.outputs.path : undefined;
      lines.push(...formatChanges(r.changes, path, c));
      const content = r.outputs?.content;
      if (r.changes.newfile !== undefined && path !== undefined && typeof content === 'string') lines.push('    content:', indent(c, newFileDiff(path, content), '      '));
    }
  }
  return lines.join('\n');
}

function hasKeys(o: object): boolean {
  for (const _ in o) return true;
  return false;
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
