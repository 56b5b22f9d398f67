/**
 * Results of secret nodes as they may be shown and kept: that something changed, with sha256 hash
 * prefixes, never what. The runtime keeps the whole result for the nodes that refer to it and hands out
 * only this copy (to the output, the live view, the run store).
 */
import type { NodeResult } from './model.js';

export const SECRET_MASK = '********';
/** Change keys whose values say where or how, never what: kept as they are. */
const PLAIN_CHANGES = new Set(['newfile', 'mode', 'user', 'group', 'owner', 'removed', 'new_mode']);
/** Fixed phrases a resource reports in place of a diff: they tell nothing of the content. */
const PLAIN_DIFFS = new Set(['New file', 'Replace binary file']);
/** Outputs that name a place or a mode: kept. */
const PLAIN_OUTPUTS = new Set(['path', 'mode', 'name']);

function hash(v: unknown): string {
  // Loaded when a secret is first hashed: most runs have none, and crypto is a few ms of start-up.
  return process
    .getBuiltinModule('node:crypto')
    .createHash('sha256')
    .update(typeof v === 'string' ? v : JSON.stringify(v) ?? '')
    .digest('hex')
    .slice(0, 12);
}

/** Every occurrence of a secret value (of 3 characters or more) in a text replaced by the mask. */
export function maskValues(text: string, values: readonly string[]): string {
  let out = text;
  for (const v of values) {
    for (const piece of [v, v.trim()]) if (piece.length >= 3) out = out.split(piece).join(SECRET_MASK);
  }
  return out;
}

export function redactSecretResult(r: NodeResult, values: readonly string[]): NodeResult {
  const outputs = r.outputs ?? {};
  const changes: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r.changes)) {
    if (PLAIN_CHANGES.has(k) && typeof v !== 'object') changes[k] = maskValues(String(v), values);
    else if (k === 'diff' && typeof v === 'string' && PLAIN_DIFFS.has(v)) changes[k] = v;
    else if (k === 'diff' && typeof outputs.content === 'string')
      changes[k] =
        typeof outputs.previous_content === 'string'
          ? `secret content changed: sha256 ${hash(outputs.previous_content)}… → ${hash(outputs.content)}…`
          : `secret content changed: sha256 ${hash(outputs.content)}…`;
    else changes[k] = `secret value changed: sha256 ${hash(v)}…`;
  }
  const kept: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(outputs)) {
    if (PLAIN_OUTPUTS.has(k) && typeof v === 'string') kept[k] = maskValues(v, values);
    else kept[`${k}_sha256`] = hash(v);
  }
  return {
    ...r,
    changes,
    comment: maskValues(r.comment, values),
    ...(r.outputs ? { outputs: kept } : {}),
    ...(r.internal ? { internal: { message: maskValues(r.internal.message, values), stack: maskValues(r.internal.stack, values) } } : {}),
  };
}

/** Every string in a value with each secret value in it masked. */
function maskDeep(v: unknown, values: readonly string[]): unknown {
  if (typeof v === 'string') return maskValues(v, values);
  if (Array.isArray(v)) return v.map((x) => maskDeep(x, values));
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, maskDeep(x, values)]));
  return v;
}

/** A non-secret node's result with every occurrence of a secret value masked (its changes, outputs, comment). */
export function maskResult(r: NodeResult, values: readonly string[]): NodeResult {
  return {
    ...r,
    changes: maskDeep(r.changes, values) as NodeResult['changes'],
    comment: maskValues(r.comment, values),
    ...(r.outputs ? { outputs: maskDeep(r.outputs, values) as NonNullable<NodeResult['outputs']> } : {}),
  };
}
