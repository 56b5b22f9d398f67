/**
 * Requisite targets resolved against the low chunks, the way Salt's runtime finds them: `{state: x}` matches
 * chunks of that state module whose ID or name matches x (fnmatch), a bare string or `{id: x}` any state,
 * and `{sls: x}` every chunk of that SLS.
 */
import type { ChunkIndex } from './chunk-index.js';
import type { Chunk } from './low.js';

/** The requisite types Salt evaluates, in the order call_chunk runs their targets. */
export const RUN_REQUISITES = ['require', 'require_any', 'watch', 'watch_any', 'prereq', 'onfail', 'onfail_any', 'onchanges', 'onchanges_any'] as const;
export type RunRequisite = (typeof RUN_REQUISITES)[number] | 'prerequired';

export interface Ref {
  readonly key: string;
  readonly value: string;
}

const NO_REFS: readonly Ref[] = Object.freeze([]);
/** Every requisite list of a chunk, parsed once: the runtime asks for each type of each chunk several times. */
const parsed = new WeakMap<Chunk, Record<string, Ref[]>>();

function parseRefs(raw: unknown): Ref[] {
  const out: Ref[] = [];
  if (!Array.isArray(raw)) return out;
  for (const r of raw) {
    if (typeof r === 'string') out.push({ key: 'id', value: r });
    else if (r && typeof r === 'object') {
      const [key, value] = Object.entries(r as Record<string, unknown>)[0] ?? [];
      if (key !== undefined && value !== null && value !== undefined) out.push({ key, value: String(value) });
    }
  }
  return out;
}

export function refsOf(chunk: Chunk, requisite: string): readonly Ref[] {
  let all = parsed.get(chunk);
  if (!all) parsed.set(chunk, (all = {}));
  let refs = all[requisite];
  if (!refs) {
    const raw = chunk[requisite];
    refs = all[requisite] = Array.isArray(raw) ? parseRefs(raw) : (NO_REFS as Ref[]);
  }
  return refs;
}


const LOST_CHECKED = [...RUN_REQUISITES, 'prerequired'];

const LOST_CHECKED_SET: ReadonlySet<string> = new Set(LOST_CHECKED);

/** Whether a chunk names any requisite lostRequisites checks (one pass over its own keys). */
export function hasRequisite(chunk: Chunk): boolean {
  for (const key in chunk) if (LOST_CHECKED_SET.has(key) && chunk[key] !== undefined) return true;
  return false;
}

/** Salt's "requisites were not found" comment for the refs of one chunk that match nothing, or undefined. */
export function lostRequisites(chunk: Chunk, chunks: ChunkIndex<Chunk>): { comment: string; lost: Array<{ requisite: string; ref: Ref }> } | undefined {
  const lost: Array<{ requisite: string; ref: Ref }> = [];
  let comment = 'The following requisites were not found:\n';
  for (const requisite of LOST_CHECKED) {
    if (chunk[requisite] === undefined) continue;
    const missing = refsOf(chunk, requisite).filter((ref) => chunks.find(ref.key, ref.value).length === 0);
    if (missing.length === 0) continue;
    comment += `${' '.repeat(19)}${requisite}:\n`;
    for (const ref of missing) {
      comment += `${' '.repeat(23)}${ref.key}: ${ref.value}\n`;
      lost.push({ requisite, ref });
    }
  }
  return lost.length > 0 ? { comment, lost } : undefined;
}
