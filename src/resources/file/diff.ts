/**
 * File diffs as Salt prints them: a unified diff like Python's difflib (empty file names after `---` and
 * `+++`, ranges without `,1`), or a fixed phrase for binary content. The diff library is loaded only
 * when a diff is actually needed: most runs change nothing and must start fast.
 *
 * Diffs take near-linear time: the common head and tail of the two texts are cut off first (keeping the
 * context lines), only the changed middle is diffed, with a bound on the edit length that keeps the work
 * proportional to the input. A change too large to diff within those bounds (or inputs over
 * MAX_DIFF_BYTES together) is summarised by sizes and sha256 hash prefixes instead.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/** Above this many bytes (old and new together) a change is summarised, never diffed line by line. */
export const MAX_DIFF_BYTES = 1 << 20;
/** The diff's work budget: (lines of the changed middle) x (edit length) stays under this. */
const WORK_BUDGET = 40_000_000;
const CONTEXT = 3;

export function looksBinary(data: Uint8Array): boolean {
  const n = Math.min(data.length, 8000);
  for (let i = 0; i < n; i++) if (data[i] === 0) return true;
  return false;
}

/** The first 12 hex digits of a sha256: enough to tell two contents apart, never the content. */
export function hashPrefix(data: Uint8Array | string): string {
  if (cryptoModule === undefined && hashedInScript < SCRIPT_HASHES && data.length <= SCRIPT_HASH_MAX) {
    hashedInScript++;
    return scriptHashPrefix(data);
  }
  return nativeHashPrefix(data);
}

/**
 * Loading Node's crypto module takes a millisecond or more, a noticeable part of a small run, and such a
 * run hashes a few short contents. Those are hashed by a JavaScript sha256 (the same digest; before V8
 * optimizes it, some 80 µs a call): from the first long content, or once a run has hashed this many, the
 * crypto module is loaded and does the rest (a run of 10,000 files spent 5 ms on its first 64 in script).
 */
const SCRIPT_HASHES = 16;
const SCRIPT_HASH_MAX = 16 * 1024;
let hashedInScript = 0;

/** hashPrefix by the JavaScript sha256 (strings as UTF-8, as Node encodes them). */
export function scriptHashPrefix(data: Uint8Array | string): string {
  return bytesToHex(sha256(typeof data === 'string' ? utf8ToBytes(data) : data).subarray(0, 6));
}

/** hashPrefix by Node's crypto module. */
export function nativeHashPrefix(data: Uint8Array | string): string {
  const crypto = (cryptoModule ??= process.getBuiltinModule('node:crypto'));
  // The one-shot hash (Node 20.12 and later) is several times faster for the short texts most files hold.
  return (crypto.hash ? crypto.hash('sha256', data, 'hex') : crypto.createHash('sha256').update(data).digest('hex')).slice(0, 12);
}

/** Loaded when first needed (a small run never loads it), then kept: a run may hash 100,000 contents. */
let cryptoModule: typeof import('node:crypto') | undefined;

/** `large file changed: 10 bytes → 12 bytes, sha256 0a1b… → 2c3d…`. */
export function summariseChange(kind: string, before: Uint8Array, after: Uint8Array): string {
  return `${kind} file changed: ${before.length} bytes → ${after.length} bytes, sha256 ${hashPrefix(before)}… → ${hashPrefix(after)}…`;
}

function range(start: number, length: number): string {
  if (length === 1) return String(start);
  return `${length === 0 ? start - 1 : start},${length}`;
}

/** Lines with their `\n` (the last may lack it), as the diff library splits them. */
function lines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

interface Op {
  readonly tag: ' ' | '-' | '+';
  readonly line: string;
}

/** The edit script: the common head, the diffed middle (removals before additions), the common tail. */
async function editScript(a: string[], b: string[]): Promise<Op[] | undefined> {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const oldMid = a.slice(head, a.length - tail);
  const newMid = b.slice(head, b.length - tail);
  const maxEditLength = Math.max(64, Math.floor(WORK_BUDGET / (oldMid.length + newMid.length + 1)));
  const { diffArrays } = await import('diff');
  const parts = diffArrays(oldMid, newMid, { maxEditLength });
  if (parts === undefined) return undefined;
  const ops: Op[] = a.slice(0, head).map((line) => ({ tag: ' ', line }));
  let removed: Op[] = [];
  let added: Op[] = [];
  const flush = (): void => {
    ops.push(...removed, ...added);
    removed = [];
    added = [];
  };
  for (const p of parts) {
    if (p.removed) removed.push(...p.value.map((line): Op => ({ tag: '-', line })));
    else if (p.added) added.push(...p.value.map((line): Op => ({ tag: '+', line })));
    else {
      flush();
      ops.push(...p.value.map((line): Op => ({ tag: ' ', line })));
    }
  }
  flush();
  ops.push(...a.slice(a.length - tail).map((line): Op => ({ tag: ' ', line })));
  return ops;
}

function hunkText(ops: readonly Op[]): string {
  let out = '';
  for (const o of ops) {
    out += `${o.tag}${o.line.endsWith('\n') ? o.line.slice(0, -1) : o.line}\n`;
    if (!o.line.endsWith('\n')) out += '\\ No newline at end of file\n';
  }
  return out;
}

export async function unifiedDiff(before: Uint8Array, after: Uint8Array): Promise<string> {
  if (looksBinary(before) || looksBinary(after)) return 'Replace binary file';
  if (before.length + after.length > MAX_DIFF_BYTES) return summariseChange('large', before, after);
  const ops = await editScript(lines(Buffer.from(before).toString('utf8')), lines(Buffer.from(after).toString('utf8')));
  if (ops === undefined) return summariseChange('large', before, after);
  // Line numbers before each op, 1-based.
  const oldNo: number[] = [];
  const newNo: number[] = [];
  let o = 1;
  let n = 1;
  for (const op of ops) {
    oldNo.push(o);
    newNo.push(n);
    if (op.tag !== '+') o++;
    if (op.tag !== '-') n++;
  }
  const changed = ops.flatMap((op, i) => (op.tag === ' ' ? [] : [i]));
  let out = '--- \n+++ \n';
  for (let g = 0; g < changed.length; ) {
    let last = g;
    while (last + 1 < changed.length && changed[last + 1]! - changed[last]! - 1 <= 2 * CONTEXT) last++;
    const from = Math.max(0, changed[g]! - CONTEXT);
    const to = Math.min(ops.length, changed[last]! + 1 + CONTEXT);
    const hunk = ops.slice(from, to);
    const oldLines = hunk.filter((x) => x.tag !== '+').length;
    const newLines = hunk.filter((x) => x.tag !== '-').length;
    out += `@@ -${range(oldNo[from]!, oldLines)} +${range(newNo[from]!, newLines)} @@\n${hunkText(hunk)}`;
    g = last + 1;
  }
  return out;
}
