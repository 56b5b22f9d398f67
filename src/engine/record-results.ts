/**
 * What of a result goes into the run store: hashes and bounded diffs, never whole file contents. A file's
 * content and previous content (kept in a result's outputs for front ends that show old => new) become
 * sha256 hash prefixes; any long text in the changes or outputs is cut at a fixed size.
 */
import type { NodeResult } from '../core/model.js';
import { hashPrefix } from '../resources/file/diff.js';

/** Longest text kept in a stored change or output, in characters. */
export const STORED_TEXT_CAP = 64 * 1024;
/** Outputs that hold a whole file's content: stored as a hash, under the name given here. */
const hashedName = (k: string): string | undefined => (k === 'content' ? 'content_sha256' : k === 'previous_content' ? 'previous_content_sha256' : undefined);

function bounded(v: unknown): unknown {
  if (typeof v === 'string') return v.length > STORED_TEXT_CAP ? `${v.slice(0, STORED_TEXT_CAP)}\n[cut at ${STORED_TEXT_CAP} characters of ${v.length}]\n` : v;
  if (Array.isArray(v)) return v.map(bounded);
  if (v !== null && typeof v === 'object') {
    let out: Record<string, unknown> | undefined;
    for (const k in v) {
      const x = (v as Record<string, unknown>)[k];
      const b = bounded(x);
      if (b !== x && out === undefined) out = { ...v };
      if (out !== undefined) out[k] = b;
    }
    // Nothing cut: the object itself (results are not changed after they are made).
    return out ?? v;
  }
  return v;
}

function storedOutputs(outputs: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // Keys by index and short strings as they are: a run of 10,000 files stores 10,000 of these.
  const keys = Object.keys(outputs);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    const v = outputs[k];
    if (typeof v === 'string') {
      const hashed = hashedName(k);
      if (hashed !== undefined) out[hashed] = hashPrefix(v);
      else out[k] = v.length > STORED_TEXT_CAP ? bounded(v) : v;
    } else out[k] = bounded(v);
  }
  return out;
}

/** Stored copies made for the live view, kept so that the finished run reuses them. */
const kept = new WeakMap<NodeResult, NodeResult>();

/** A result's stored copy; `keep` keeps it for the next call (a run shown live copies its results twice). */
export function recordableResult(r: NodeResult, keep = false): NodeResult {
  const known = kept.get(r);
  if (known !== undefined) return known;
  const stored: NodeResult = {
    ...r,
    changes: bounded(r.changes) as Record<string, unknown>,
    comment: bounded(r.comment) as string,
    ...(r.outputs ? { outputs: storedOutputs(r.outputs) } : {}),
  };
  if (keep) kept.set(r, stored);
  return stored;
}
