/**
 * The compile stage of the Salt front end: render's high data → reconciled high data → ordered low chunks,
 * with Salt's error strings and positioned diagnostics for what cannot run.
 */
import { type Code, type Diagnostic, error } from '../../../core/diag.js';
import type { HighData } from '../types.js';
import { applyExclude, type High, reconcileExtend, requisiteIn, toHigh } from './high.js';
import { type Chunk, compileHighData, verifyHigh } from './low.js';
import { ChunkIndex } from './chunk-index.js';
import { hasRequisite, lostRequisites } from './requisites.js';

export type { Chunk } from './low.js';
export { showChunk } from './low.js';

export interface CompileResult {
  chunks: Chunk[];
  /** Salt's error strings; non-empty means nothing runs. */
  errors: string[];
  diagnostics: Diagnostic[];
  /**
   * States that fail when they are reached but do not stop the run, as in Salt 3006: a requisite that
   * matches no state (`lost`) or a state function that does not exist (`unknown`), with Salt's comment.
   */
  failures: Map<Chunk, ChunkFailure>;
  /** Positioned warnings for those states (printed on stderr; the run goes on). */
  warnings: Diagnostic[];
}

export interface ChunkFailure {
  readonly kind: 'lost' | 'unknown';
  readonly comment: string;
}

export interface CompileOptions {
  /** Apply requisite_in, use and prereq (state runs and show_lowstate); show_low_sls leaves them. */
  readonly requisiteIn: boolean;
  /** Whether a state function exists; when given, unknown functions are compile errors. */
  readonly knownFunction?: (state: string, fun: string) => boolean;
  /** Report requisites that match no state as compile errors. */
  readonly checkRequisites?: boolean;
}

function spanDiag(data: HighData, id: string, code: Code, message: string): Diagnostic {
  return { ...error(code, message, { span: data.spans[id], nodeId: id }), severity: 'warning' };
}

export function reconcile(data: HighData, requisites: boolean): { high: High; errors: string[] } {
  // Without extend or exclude, only a requisite_in statement writes into the declarations' Map: until one
  // is found, the render's own Map is read as it is (only read), and copied before requisiteIn writes.
  const readOnly = data.ids !== undefined && data.extend.length === 0 && data.exclude.length === 0;
  let high = readOnly ? (data.ids as ReadonlyMap<string, unknown> as High) : toHigh(data);
  const errors = reconcileExtend(high, data.extend);
  const requisiteInIds: string[] = [];
  for (const e of verifyHigh(high, data.idTypes, requisiteInIds)) errors.push(e);
  if (errors.length > 0) return { high, errors };
  if (requisites && requisiteInIds.length > 0) {
    if (readOnly) high = toHigh(data);
    for (const e of requisiteIn(high, requisiteInIds)) errors.push(e);
  }
  applyExclude(high, data.exclude);
  return { high, errors };
}

export function compile(data: HighData, options: CompileOptions): CompileResult {
  const { high, errors } = reconcile(data, options.requisiteIn);
  const failures = new Map<Chunk, ChunkFailure>();
  if (errors.length > 0) return { chunks: [], errors, diagnostics: errors.map((e) => error('S200', e.split('\n')[0] as string)), failures, warnings: [] };
  const chunks = compileHighData(high);
  // The index is built when the first chunk with a requisite needs it: most states have none.
  let index: ChunkIndex<Chunk> | undefined;
  const warnings: Diagnostic[] = [];
  for (let i = 0; i < chunks.length; i++) {
    const c = chunks[i] as Chunk;
    // Salt checks requisites before it calls the state function: a lost requisite wins.
    if (options.checkRequisites && hasRequisite(c)) {
      const lost = lostRequisites(c, (index ??= new ChunkIndex(chunks, String)));
      if (lost) {
        failures.set(c, { kind: 'lost', comment: lost.comment });
        for (const { requisite, ref } of lost.lost) {
          const why = ref.key === 'sls' ? `no state comes from an SLS matching '${ref.value}'` : ref.key === 'id' ? `no state has the ID or name '${ref.value}'` : `no ${ref.key} state has the ID or name '${ref.value}'`;
          warnings.push(spanDiag(data, c.__id__, 'S202', `${c.state}.${c.fun} '${c.__id__}' in SLS '${c.__sls__}': ${requisite} ${ref.key}: ${ref.value} not found (${why}); the state fails, the others run`));
        }
        continue;
      }
    }
    if (options.knownFunction && !options.knownFunction(c.state, c.fun)) {
      const full = `${c.state}.${c.fun}`;
      failures.set(c, { kind: 'unknown', comment: `State '${full}' was not found in SLS '${c.__sls__}'\nReason: '${full}' is not available.\n` });
      warnings.push(spanDiag(data, c.__id__, 'S201', `state function ${full} (ID '${c.__id__}' in SLS '${c.__sls__}') does not exist; the state fails, the others run`));
    }
  }
  return { chunks, errors: [], diagnostics: [], failures, warnings };
}
