/**
 * The runtime stage of the Salt front end: low chunks → Salt's state runtime (salt-state.ts) → Salt's running
 * dict, plus the core result records the run store keeps.
 */
import type { NodeResult, NodeStatus } from '../../../core/model.js';
import type { ResourceContext } from '../../../host/types.js';
import { type Kind, kinds as sharedKinds } from '../../../resources/index.js';
import type { Chunk } from '../compile/index.js';
import type { TranslateContext } from '../states/index.js';
import { type Ret, StateCaller } from './caller.js';
import { hasRequisites, SaltState, tagOf } from './salt-state.js';
import { tagParts, tagType } from '../tag.js';

export { MAX_REQUISITE_NESTING, RequisiteNestingError, tagOf } from './salt-state.js';
export type SaltResult = Record<string, unknown>;

export interface SaltRunOptions {
  readonly test: boolean;
  readonly failhard: boolean;
  readonly ctx: ResourceContext;
  readonly translate: TranslateContext;
  readonly kinds?: ReadonlyMap<string, Kind>;
  /** Accepted for callers of the earlier graph runtime; Salt runs states one at a time, and so does cairn. */
  readonly jobs?: number;
  /** state.single / state.low: call the one chunk directly, as State.call does (no requisites). */
  readonly single?: boolean;
  readonly onResult?: (result: NodeResult) => void;
}

export interface SaltRun {
  readonly running: Record<string, SaltResult>;
  /** The core results, for the run store. */
  readonly results: NodeResult[];
  /**
   * The running dict's tags and returns in its order, when the run knows it without listing the dict's
   * keys (for thousands of states a dictionary's, whose key list is sorted back into insertion order).
   */
  readonly order?: RunOrder;
}

export interface RunOrder {
  readonly tags: readonly string[];
  readonly rets: readonly SaltResult[];
}

/** Whether an object has an own enumerable key (Object.keys(o).length > 0, without making the list). */
function hasOwnKey(o: object): boolean {
  for (const k in o) if (Object.hasOwn(o, k)) return true;
  return false;
}

function statusOf(r: Ret, test: boolean): NodeStatus {
  if (r.result === false) return 'failed';
  if (r.__state_ran__ === false) return 'skipped';
  const changed = r.changes !== null && typeof r.changes === 'object' && hasOwnKey(r.changes);
  if (r.result === null || (test && changed)) return 'pending';
  return changed ? 'changed' : 'ok';
}

let lastMs = Number.NaN;
let lastIso = '';
/** The time now as an ISO string, made once per millisecond (thousands of states can finish in one). */
function nowIso(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

/** One core result record per entry of Salt's running dict. */
export function nodeResult(tag: string, r: Ret, test: boolean): NodeResult {
  const changes = r.changes !== null && typeof r.changes === 'object' && !Array.isArray(r.changes) ? (r.changes as Record<string, unknown>) : {};
  return {
    id: tag,
    name: typeof r.name === 'string' ? r.name : tagParts(tag).name,
    type: tagType(tag),
    result: r.result,
    status: statusOf(r, test),
    changes,
    comment: typeof r.comment === 'string' ? r.comment : JSON.stringify(r.comment),
    start: nowIso(),
    duration: typeof r.duration === 'number' ? r.duration : 0,
    run_num: typeof r.__run_num__ === 'number' ? r.__run_num__ : 0,
  };
}

/**
 * The fields of a return a record read, kept to tell whether the record still holds at the end of a run
 * with parallel states (a parallel state's return is filled in after its record was built).
 */
interface Built {
  readonly name: unknown;
  readonly res: unknown;
  readonly changes: unknown;
  readonly changed: number;
  readonly comment: unknown;
  readonly duration: unknown;
  readonly runNum: unknown;
  readonly ran: unknown;
  readonly parallel: unknown;
}

function changeCount(r: Ret): number {
  if (!r.changes || typeof r.changes !== 'object') return 0;
  let n = 0;
  for (const k in r.changes) if (Object.hasOwn(r.changes, k)) n++;
  return n;
}

function builtOf(r: Ret): Built {
  return { name: r.name, res: r.result, changes: r.changes, changed: changeCount(r), comment: r.comment, duration: r.duration, runNum: r.__run_num__, ran: r.__state_ran__, parallel: r.__parallel__ };
}

function unchanged(b: Built, r: Ret): boolean {
  return (
    b.name === r.name && b.res === r.result && b.changes === r.changes && b.changed === changeCount(r) && b.comment === r.comment && b.duration === r.duration && b.runNum === r.__run_num__ &&
    b.ran === r.__state_ran__ && b.parallel === r.__parallel__
  );
}

/**
 * The chunks the runtime may write into. It writes only where requisites are: a watch becomes a require,
 * a prereq marks its target chunks (and a prereq's trial run unmarks its own). Without any requisite the chunks are handed over as they are (the
 * runtime copies a chunk it calls with other keys); with one, each is copied so the caller's stay as
 * compiled.
 */
function runnable(chunks: readonly Chunk[]): { chunks: Chunk[]; noRequisites: boolean; parallel: boolean } {
  let requisites = false;
  let parallel = false;
  for (let i = 0; i < chunks.length; i++) {
    const c = chunks[i] as Chunk;
    if (hasRequisites(c) || '__prereq__' in c) requisites = true;
    if (c.parallel) parallel = true;
  }
  return { chunks: requisites ? chunks.map((x) => ({ ...x })) : (chunks as Chunk[]), noRequisites: !requisites, parallel };
}

/**
 * The records built for progress, in the order they were built, with their tags and returns. A record
 * still holds at the end when its return is still the running dict's and still has the run number it
 * had (each call gives a return a new one; a state's return taken up again gets one too); in a run with
 * parallel states, when every field the record read is unchanged as well.
 */
class Records {
  readonly tags: string[] = [];
  readonly rets: Ret[] = [];
  readonly results: NodeResult[] = [];
  readonly runNums: unknown[] = [];
  readonly fields: Built[] | undefined;

  constructor(parallel: boolean) {
    this.fields = parallel ? [] : undefined;
  }

  add(tag: string, r: Ret, result: NodeResult): void {
    this.tags.push(tag);
    this.rets.push(r);
    this.results.push(result);
    this.runNums.push(r.__run_num__);
    this.fields?.push(builtOf(r));
  }

  /** Record i if it still holds for the return r. */
  holds(i: number, r: Ret): boolean {
    if (this.rets[i] !== r || this.runNums[i] !== r.__run_num__) return false;
    return this.fields === undefined || unchanged(this.fields[i] as Built, r);
  }
}

export async function runChunks(chunks: readonly Chunk[], opts: SaltRunOptions): Promise<SaltRun> {
  const caller = new StateCaller({ ctx: opts.ctx, translate: { ...opts.translate, lowstate: chunks }, kinds: opts.kinds ?? sharedKinds });
  // The records built for progress are kept for the end of the run, where each still holding is used.
  const onResult = opts.onResult;
  const run = runnable(chunks);
  const records = new Records(run.parallel);
  const state = new SaltState(run.chunks, {
    noRequisites: run.noRequisites,
    test: opts.test,
    failhard: opts.failhard,
    caller,
    ...(onResult
      ? {
          onResult: (tag: string, r: Ret) => {
            const result = nodeResult(tag, r, opts.test);
            records.add(tag, r, result);
            onResult(result);
          },
        }
      : {}),
  });
  let running: Record<string, SaltResult>;
  if (opts.single && chunks[0]) {
    const r = await state.callOne({ ...chunks[0] });
    running = { [tagOf(chunks[0])]: r };
    opts.onResult?.(nodeResult(tagOf(chunks[0]), r, opts.test));
  } else {
    running = (await state.run()) as Record<string, SaltResult>;
    // A running dict that got its entries only by record holds the recorded tags and returns in order.
    if (state.regular && onResult) {
      const results: NodeResult[] = [];
      for (let i = 0; i < records.tags.length; i++) {
        const r = records.rets[i] as Ret;
        results.push(records.holds(i, r) ? (records.results[i] as NodeResult) : nodeResult(records.tags[i] as string, r, opts.test));
      }
      return { running, results, order: { tags: records.tags, rets: records.rets } };
    }
  }
  // Otherwise the running dict's keys are listed: the latest record of each tag is looked up by tag.
  const tags = Object.keys(running);
  const byTag = new Map<string, number>();
  for (let i = 0; i < records.tags.length; i++) byTag.set(records.tags[i] as string, i);
  const results: NodeResult[] = [];
  for (let i = 0; i < tags.length; i++) {
    const tag = tags[i] as string;
    const r = running[tag] as Ret;
    const b = byTag.get(tag);
    results.push(b !== undefined && records.holds(b, r) ? (records.results[b] as NodeResult) : nodeResult(tag, r, opts.test));
  }
  return { running, results };
}

/**
 * Salt's check_result for the exit code: false when any state failed, unless the failure was handled by an
 * onfail state that sets `onfail_stop: False` and succeeded. An empty run is a failure too. The onfail
 * handlers and the running dict are indexed by state and ID once, so many failures cost no more each.
 */
export function runSucceeded(running: Record<string, SaltResult>, chunks: readonly Chunk[], results?: SaltRun['results']): boolean {
  // The run's core results (one per entry, in its order, with its result) answer a run without a failed
  // state without listing the running dict's keys, which for thousands of states is a dictionary's.
  if (results !== undefined && results.length > 0) {
    let anyFailed = false;
    for (let i = 0; i < results.length; i++) if ((results[i] as NodeResult).result === false) anyFailed = true;
    if (!anyFailed) return true;
  }
  const tags = Object.keys(running);
  if (tags.length === 0) return false;
  if (!tags.some((t) => (running[t] as Record<string, unknown>).result === false)) return true;
  const key = (state: unknown, id: unknown) => `${String(state)}\0${String(id)}`;
  // Handlers by the (state, ID) they name in onfail, in the chunks' order, each once per target.
  const handlers = new Map<string, Chunk[]>();
  for (const c of chunks) {
    if (c.onfail_stop !== false || !Array.isArray(c.onfail)) continue;
    const named = new Set<string>();
    for (const req of c.onfail) {
      if (!req || typeof req !== 'object') continue;
      for (const [m, v] of Object.entries(req as Record<string, unknown>)) if (typeof v === 'string') named.add(key(m, v));
    }
    for (const k of named) {
      const list = handlers.get(k);
      if (list) list.push(c);
      else handlers.set(k, [c]);
    }
  }
  // Results of the running dict by the state and ID of their tag, in its order.
  const byStateId = new Map<string, unknown[]>();
  for (const t of tags) {
    const [hs, hid] = t.split('_|-');
    const k = key(hs, hid);
    const res = (running[t] as Record<string, unknown>).result;
    const list = byStateId.get(k);
    if (list) list.push(res);
    else byStateId.set(k, [res]);
  }
  for (const tag of tags) {
    const r = running[tag] as Record<string, unknown>;
    if (r.result !== false) continue;
    const [state, id] = tag.split('_|-');
    let handled: boolean | undefined;
    for (const h of handlers.get(key(state, id)) ?? []) {
      if (h.__id__ === id) continue;
      for (const res of byStateId.get(key(h.state, h.__id__)) ?? []) {
        if (res === true || res === false) handled = res;
        if (res === false) break;
      }
    }
    if (handled !== true) return false;
  }
  return true;
}
