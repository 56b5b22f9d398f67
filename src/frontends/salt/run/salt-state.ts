/**
 * Salt's state runtime over low chunks, step for step as salt-call 3006.0 runs them: chunks in order, each
 * one's requisites evaluated (and run, depth first) before it, prereq's trial run in test mode into a
 * separate "pre" dict, watch → mod_watch (taking a second run number), failhard, requisite cycles, lost
 * requisites, then the listen mod_watches. The running dict it builds is what `--out json` prints.
 */
import { fnmatch } from '../../../lang/python/fnmatch.js';
import { ChunkIndex } from '../compile/chunk-index.js';
import type { Chunk } from '../compile/index.js';
import { MOD_WATCH_STATES, type Ret, type StateCaller } from './caller.js';
import { pyRepr, pyStr } from '../pytext.js';

type Low = Chunk & Record<string, unknown>;

const NO_ERRORS: string[] = [];
type Running = Record<string, Ret>;

const CHECKED = ['require', 'require_any', 'watch', 'watch_any', 'prereq', 'onfail', 'onfail_any', 'onfail_all', 'onchanges', 'onchanges_any'] as const;
const CALL_REQUISITES = ['require', 'require_any', 'watch', 'watch_any', 'prereq', 'onfail', 'onfail_any', 'onchanges', 'onchanges_any'] as const;
/** Requisite keywords a listen mod_watch chunk drops. */
const STATE_REQUISITE_KEYWORDS = [
  'onchanges', 'onchanges_any', 'onfail', 'onfail_any', 'onfail_all', 'onfail_stop', 'prereq', 'prerequired', 'watch', 'watch_any', 'require', 'require_any', 'listen',
];

/** How many states deep requisites may call states (Salt 3006 under CPython 3.11 stops between 600 and 1,200). */
export const MAX_REQUISITE_NESTING = 800;

/** Thrown when requisites nest deeper than MAX_REQUISITE_NESTING: the run stops, as Salt's does. */
export class RequisiteNestingError extends Error {
  constructor(
    readonly id: string,
    readonly sls: string,
  ) {
    super(`requisites nest more than ${MAX_REQUISITE_NESTING} states deep at ID '${id}' in SLS '${sls}'`);
  }
}

/**
 * Whether a chunk names any requisite check_requisite looks at (watch included: it may become a require):
 * the keys of CHECKED and `prerequired`, each written out, so that each test is a site of its own that
 * learns the chunks' few shapes (one test with a changing key is a generic lookup every time).
 */
export function hasRequisites(low: Record<string, unknown>): boolean {
  return (
    'require' in low ||
    'require_any' in low ||
    'watch' in low ||
    'watch_any' in low ||
    'prereq' in low ||
    'onfail' in low ||
    'onfail_any' in low ||
    'onfail_all' in low ||
    'onchanges' in low ||
    'onchanges_any' in low ||
    'prerequired' in low
  );
}

export function tagOf(c: { state: unknown; __id__: unknown; name: unknown; fun: unknown }): string {
  return `${pyStr(c.state)}_|-${pyStr(c.__id__)}_|-${pyStr(c.name)}_|-${pyStr(c.fun)}`;
}

/**
 * Milliseconds on the monotonic clock, with microseconds in the fraction (process.hrtime: reading the
 * `performance` global would load perf_hooks for two numbers).
 */
function monoMs(): number {
  // Indexed, not destructured: destructuring an array walks an iterator (garbage on every call).
  const t = process.hrtime();
  return (t[0] as number) * 1000 + (t[1] as number) / 1e6;
}

/** The wall clock at the start of the monotonic clock, in ms: set once, so the microseconds keep counting. */
let wallAtMono: number | undefined;

/** Python's datetime.time().isoformat() of now (`ms`, the wall clock in milliseconds), local time. */
export function saltTime(ms = Date.now(), mono = monoMs()): string {
  wallAtMono ??= Date.now() - mono;
  const us = Math.floor((wallAtMono + mono) * 1000) % 1000;
  return `${clockOf(ms)}${us < 10 ? '00' : us < 100 ? '0' : ''}${us}`;
}

let clockMs = Number.NaN;
let clockText = '';
/** HH:MM:SS.mmm of a local time, made once per millisecond (many states start in the same one). */
function clockOf(ms: number): string {
  if (ms !== clockMs) {
    const d = new Date(ms);
    const p = (n: number, w = 2) => String(n).padStart(w, '0');
    clockMs = ms;
    clockText = `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
  }
  return clockText;
}

function trimReq(req: unknown): Record<string, unknown> {
  if (typeof req === 'string') return { id: req };
  const r = (req ?? {}) as Record<string, unknown>;
  const first = Object.keys(r)[0];
  if (first !== undefined && first.includes('.')) return { [first.split('.')[0] as string]: r[first] };
  return r;
}

function firstEntry(req: Record<string, unknown>): [string, unknown] {
  const k = Object.keys(req)[0] ?? '';
  return [k, req[k]];
}

/** Salt's _calculate_fake_duration, in the key order its records use (duration, then start_time). */
function fakeTimes(): { duration: number; start_time: string } {
  return { duration: 0, start_time: saltTime() };
}

function isChanged(r: Ret | undefined): boolean {
  const c = r?.changes;
  if (c === null || c === undefined || c === false || c === '' || c === 0) return false;
  if (typeof c === 'object') return Object.keys(c).length > 0;
  return true;
}

export interface SaltStateOptions {
  readonly test: boolean;
  readonly failhard: boolean;
  readonly caller: StateCaller;
  /** Called after each entry of the running dict is set (progress). */
  readonly onResult?: (tag: string, ret: Ret) => void;
  /** The caller found that no chunk names a requisite (hasRequisites is false for each). */
  readonly noRequisites?: boolean;
}

export class SaltState {
  running: Running = {};
  private readonly pre: Running = {};
  private active = new Set<string>();
  private runNum = 0;
  /** Parallel states still running: their placeholder return, and the call that fills it in. */
  private readonly procs = new Map<Ret, Promise<Ret>>();
  private readonly indexes = new WeakMap<Low[], ChunkIndex<Low>>();
  /** States being called, each for the requisites of the one before. */
  private nesting = 0;

  /** Whether no chunk of the run names a requisite (then none can come to, and none is asked each time). */
  private readonly noRequisites: boolean;
  /**
   * Whether the running dict got its entries only by record, each tag once and none taken out: its keys
   * are then the recorded tags in the order they were recorded (no failhard mark, listen state or error).
   */
  regular = true;

  constructor(
    private readonly chunks: Low[],
    private readonly o: SaltStateOptions,
  ) {
    this.noRequisites = o.noRequisites === true;
  }

  async callChunks(chunks: Low[] = this.chunks): Promise<Running> {
    let running: Running = {};
    this.running = running;
    for (let c = 0; c < chunks.length; c++) {
      const low = chunks[c] as Low;
      if ('__FAILHARD__' in running) {
        delete running.__FAILHARD__;
        return running;
      }
      const tag = tagOf(low);
      if (!(tag in running)) {
        if (this.procs.size === 0 && ((this.noRequisites && chunks === this.chunks) || !hasRequisites(low))) {
          // call_chunk of a state with no requisite: its requisites are met, so it is called, at once when
          // its function settles at once. Salt marks it active while it runs; only requisites look at the
          // active states, and the call of a state without any looks at none, so it is not marked.
          const called = this.call(low, chunks, running);
          const ret = called instanceof Promise ? await called : called;
          if (low.__prereq__) this.pre[tag] = ret;
          else {
            // Not in the running dict: looked for just above.
            running[tag] = ret;
            this.o.onResult?.(tag, ret);
          }
        } else running = await this.callChunk(low, running, chunks);
        if (this.checkFailhard(low, running)) return running;
      }
      if (this.active.size > 0) this.active.clear();
    }
    return running;
  }

  private checkFailhard(low: Low, running: Running): boolean {
    if (this.o.test) return false;
    const failhard = 'failhard' in low ? low.failhard : this.o.failhard;
    if (!failhard) return false;
    const tag = tagOf(low);
    if (tag in running) {
      const r = running[tag] as Ret;
      if (r.result === null) return false;
      return !r.result;
    }
    return false;
  }

  private hasModWatch(state: string): boolean {
    return MOD_WATCH_STATES.has(state);
  }

  /** Salt turns watch into require for a state without mod_watch (in the chunk itself). */
  private watchToRequire(low: Low): void {
    for (const [w, r] of [['watch', 'require'], ['watch_any', 'require_any']] as const) {
      if (!(w in low) || this.hasModWatch(low.state)) continue;
      const moved = low[w];
      delete low[w];
      if (r in low && Array.isArray(low[r])) (low[r] as unknown[]).push(...(Array.isArray(moved) ? moved : []));
      else low[r] = moved;
    }
  }

  /** The index of a chunk list, built on first use (the list's chunks keep their IDs, names and SLS). */
  private indexOf(chunks: Low[]): ChunkIndex<Low> {
    let index = this.indexes.get(chunks);
    if (!index) this.indexes.set(chunks, (index = new ChunkIndex(chunks, pyStr)));
    return index;
  }

  private matching(req: Record<string, unknown>, chunks: Low[]): readonly Low[] {
    const [key, val] = firstEntry(req);
    if (val === null || val === undefined) return [];
    return this.indexOf(chunks).find(key, pyStr(val));
  }

  private checkRequisite(low: Low, running: Running, chunks: Low[], pre: boolean): { status: string; reqs: Record<string, Low[]> } {
    this.watchToRequire(low);
    if (!hasRequisites(low)) return { status: 'met', reqs: {} };
    const reqs: Record<string, Low[]> = {};
    for (const r of CHECKED) reqs[r] = [];
    if (pre) reqs.prerequired = [];
    for (const rState of Object.keys(reqs)) {
      const list = low[rState];
      if (list === undefined || list === null) continue;
      for (const raw of Array.isArray(list) ? list : []) {
        const req = trimReq(raw);
        const [, val] = firstEntry(req);
        if (val === null || val === undefined) continue;
        const found = this.matching(req, chunks);
        if (found.length === 0) return { status: 'unmet', reqs: {} };
        for (const c of found) (reqs[rState] as Low[]).push(c);
      }
    }
    const funStats = new Set<string>();
    for (const [rState, reqChunks] of Object.entries(reqs)) {
      const stats = new Set<string>();
      const runDict = rState.startsWith('prereq') && !rState.startsWith('prerequired') ? this.pre : running;
      for (const chunk of reqChunks) {
        const tag = tagOf(chunk);
        const r = runDict[tag];
        if (r === undefined) {
          stats.add('unmet');
          continue;
        }
        if (rState.startsWith('onfail')) {
          if (r.result === true) {
            stats.add('onfail');
            continue;
          }
        } else if (r.result === false) {
          stats.add('fail');
          continue;
        }
        if (rState.startsWith('onchanges')) {
          stats.add(isChanged(r) ? 'onchangesmet' : 'onchanges');
          continue;
        }
        if (rState.startsWith('watch') && isChanged(r)) {
          stats.add('change');
          continue;
        }
        if (rState.startsWith('prereq') && r.result === null && !rState.startsWith('prerequired')) stats.add('premet');
        if (rState.startsWith('prereq') && r.result !== null) {
          if (!rState.startsWith('prerequired')) stats.add('pre');
        } else if (r.__state_ran__ !== false) stats.add('met');
      }
      if (rState.endsWith('_any') || rState === 'onfail') {
        if (stats.has('met') || stats.has('change')) stats.delete('fail');
        if (stats.has('onchangesmet')) {
          stats.delete('onchanges');
          stats.delete('fail');
        }
        if (stats.has('onfail') && stats.has('met')) stats.delete('onfail');
      }
      if (rState.endsWith('_all') && stats.has('onfail')) stats.delete('met');
      for (const s of stats) funStats.add(s);
    }
    let status: string;
    if (funStats.has('unmet')) status = 'unmet';
    else if (funStats.has('fail')) status = 'fail';
    else if (funStats.has('pre')) status = funStats.has('premet') ? 'met' : 'pre';
    else if (funStats.has('onfail') && !funStats.has('onchangesmet')) status = 'onfail';
    else if (funStats.has('onchanges') && !funStats.has('onchangesmet')) status = 'onchanges';
    else if (funStats.has('change')) status = 'change';
    else if (funStats.has('onfail')) status = 'onfail';
    else status = 'met';
    return { status, reqs };
  }

  private keysOf(low: Low): Record<string, unknown> {
    return { __sls__: low.__sls__ ?? null, __id__: low.__id__ ?? null, name: low.name ?? null };
  }

  private record(running: Running, tag: string, ret: Ret): void {
    if (tag in running) this.regular = false;
    running[tag] = ret;
    this.o.onResult?.(tag, ret);
  }

  /** Salt's reconcile_procs: waits for the parallel states still running and puts their returns in place. */
  private async reconcile(): Promise<void> {
    while (this.procs.size > 0) {
      const [ret, proc] = this.procs.entries().next().value as [Ret, Promise<Ret>];
      this.procs.delete(ret);
      const done = await proc;
      const { start_time: _s, duration: _d, ...rest } = done as Ret & { start_time?: unknown; duration?: unknown };
      Object.assign(ret, rest, { __parallel__: true });
    }
  }

  /**
   * Salt's call_chunk runs a state's requisites by calling itself, so a long enough chain of states that
   * each need the next ends in Python's RecursionError; cairn stops at a fixed depth instead of at the
   * end of its own stack.
   */
  private callChunk(low: Low, running: Running, chunks: Low[], depth = 0): Promise<Running> {
    if (this.nesting >= MAX_REQUISITE_NESTING) return Promise.reject(new RequisiteNestingError(pyStr(low.__id__), pyStr(low.__sls__)));
    this.nesting++;
    return this.callChunkNested(low, running, chunks, depth).finally(() => this.nesting--);
  }

  private async callChunkNested(low: Low, running: Running, chunks: Low[], depth: number): Promise<Running> {
    const tag = tagOf(low);
    if (this.procs.size > 0 && (CHECKED.some((r) => r in low) || 'prerequired' in low)) await this.reconcile();
    if (!low.prerequired) this.active.add(tag);
    let status: string;
    let reqs: Record<string, Low[]>;
    if (!low.__prereq__) ({ status, reqs } = this.checkRequisite(low, running, chunks, true));
    else ({ status, reqs } = this.checkRequisite(low, running, chunks, false));

    if (status === 'unmet') {
      const requisites: string[] = low.__prereq__ ? [...CALL_REQUISITES] : [...CALL_REQUISITES, 'prerequired'];
      const lost: Record<string, Record<string, unknown>[]> = {};
      const toRun: Low[] = [];
      let lastChunk: Low | undefined;
      for (const requisite of requisites) {
        lost[requisite] = [];
        if (!(requisite in low)) continue;
        const list = low[requisite];
        for (const raw of Array.isArray(list) ? list : []) {
          const req = trimReq(raw);
          const [key, val] = firstEntry(req);
          // Salt scans every chunk for each target; its loop leaves the last chunk behind for failhard.
          if (chunks.length > 0) lastChunk = chunks[chunks.length - 1];
          const found = val === null || val === undefined ? [] : this.indexOf(chunks).find(key, pyStr(val));
          for (const chunk of found) {
            if (requisite === 'prereq') chunk.__prereq__ = true;
            else if (requisite === 'prerequired' && key !== 'sls') chunk.__prerequired__ = true;
            toRun.push(chunk);
          }
          if (found.length === 0) (lost[requisite] as Record<string, unknown>[]).push(req);
        }
      }
      if (Object.values(lost).some((l) => l.length > 0)) {
        let comment = 'The following requisites were not found:\n';
        for (const [requisite, lreqs] of Object.entries(lost)) {
          if (lreqs.length === 0) continue;
          comment += `${' '.repeat(19)}${requisite}:\n`;
          for (const lreq of lreqs) {
            const [k, v] = firstEntry(lreq);
            comment += `${' '.repeat(23)}${k}: ${pyStr(v)}\n`;
          }
        }
        const runDict = low.__prereq__ ? this.pre : running;
        const ret: Ret = { changes: {}, result: false, ...fakeTimes(), comment, __run_num__: this.runNum++, ...this.keysOf(low) };
        if (runDict === running) this.record(running, tag, ret);
        else runDict[tag] = ret;
        return running;
      }
      for (const chunk of toRun) {
        lastChunk = chunk;
        const ctag = tagOf(chunk);
        if (ctag in running) continue;
        if (this.active.has(ctag)) {
          if (chunk.__prerequired__) {
            if (!(tag in this.pre)) {
              low.__prereq__ = true;
              this.pre[ctag] = await this.call(low, chunks, running);
            }
            return running;
          }
          this.record(running, tag, { changes: {}, result: false, comment: 'Recursive requisite found', __run_num__: this.runNum, ...this.keysOf(low) });
          this.runNum++;
          return running;
        }
        running = await this.callChunk(chunk, running, chunks);
        if (this.checkFailhard(chunk, running)) {
          this.regular = false;
          running.__FAILHARD__ = true as unknown as Ret;
          return running;
        }
      }
      if (low.__prereq__) {
        const again = this.checkRequisite(low, running, chunks, false);
        const ret = await this.call(low, chunks, running);
        this.pre[tag] = ret;
        if (!isChanged(ret) && again.status === 'change') {
          ret.changes = { watch: 'watch' };
          ret.result = null;
        }
      } else {
        depth += 1;
        if (depth >= 20) {
          this.record(running, tag, { changes: {}, result: false, comment: 'Recursive requisite found', __run_num__: this.runNum, ...this.keysOf(low) });
        } else running = await this.callChunk(low, running, chunks, depth);
      }
      if (lastChunk && this.checkFailhard(lastChunk, running)) {
        this.regular = false;
        running.__FAILHARD__ = true as unknown as Ret;
        return running;
      }
    } else if (status === 'met') {
      if (low.__prereq__) this.pre[tag] = await this.call(low, chunks, running);
      else this.record(running, tag, await this.call(low, chunks, running));
    } else if (status === 'fail') {
      if (tag in this.pre) {
        const ret = this.pre[tag] as Ret;
        if (isChanged(ret)) ret.changes = {};
        ret.__run_num__ = this.runNum;
        Object.assign(ret, this.keysOf(low));
        this.record(running, tag, ret);
      } else {
        const failed: string[] = [];
        for (const reqLows of Object.values(reqs)) {
          for (const reqLow of reqLows) {
            const rtag = tagOf(reqLow);
            const r = this.pre[rtag] ?? running[rtag];
            if (r === undefined) continue;
            if (r.result === false) {
              const key = `${pyStr(reqLow.__sls__)}.${pyStr(reqLow.__id__)}`;
              if (!failed.includes(key)) failed.push(key);
            }
          }
        }
        const ret: Ret = { changes: {}, result: false, ...fakeTimes(), comment: `One or more requisite failed: ${failed.join(', ')}`, __run_num__: this.runNum, ...this.keysOf(low) };
        this.record(running, tag, ret);
        this.pre[tag] = ret;
      }
      this.runNum++;
    } else if (status === 'change' && !low.__prereq__) {
      let ret = await this.call(low, chunks, running);
      if (!isChanged(ret) && !ret.skip_watch) {
        const watchLow: Low = { ...low, sfun: low.fun, fun: 'mod_watch', __reqs__: reqs };
        ret = await this.call(watchLow, chunks, running);
      }
      this.record(running, tag, ret);
    } else if (status === 'pre') {
      const ret: Ret = { changes: {}, result: true, ...fakeTimes(), comment: 'No changes detected', __run_num__: this.runNum, ...this.keysOf(low) };
      this.record(running, tag, ret);
      this.pre[tag] = ret;
      this.runNum++;
    } else if (status === 'onfail' || status === 'onchanges') {
      const comment = status === 'onfail' ? 'State was not run because onfail req did not change' : 'State was not run because none of the onchanges reqs changed';
      this.record(running, tag, { changes: {}, result: true, ...fakeTimes(), comment, __state_ran__: false, __run_num__: this.runNum, ...this.keysOf(low) });
      this.runNum++;
    } else if (low.__prereq__) this.pre[tag] = await this.call(low, chunks, running);
    else this.record(running, tag, await this.call(low, chunks, running));
    return running;
  }

  /** Salt's verify_data for one chunk: the errors that make State.call fail it without running. */
  private verifyData(low: Low): string[] {
    // Most chunks pass with no key this looks at: no list made for them.
    if (typeof low.name === 'string' && !('require' in low) && !('watch' in low) && this.o.caller.exists(low.state, low.fun)) return NO_ERRORS;
    const errors: string[] = [];
    if (low.name && typeof low.name !== 'string') {
      errors.push(`ID '${pyStr(low.name)}' ${'__sls__' in low ? `in SLS '${pyStr(low.__sls__)}' ` : ''}is not formed as a string, but is a ${pyType(low.name)}`);
    }
    const full = `${low.state}.${low.fun}`;
    if (!this.o.caller.exists(low.state, low.fun)) {
      if ('__sls__' in low) {
        errors.push(`State '${full}' was not found in SLS '${pyStr(low.__sls__)}'`);
        errors.push(`Reason: '${full}' is not available.`);
      } else errors.push(`Specified state '${full}' was not found`);
    }
    let reqdec = '';
    if ('require' in low) reqdec = 'require';
    if ('watch' in low) {
      this.watchToRequire(low);
      reqdec = 'watch' in low ? 'watch' : 'require';
    }
    if (reqdec) {
      const list = low[reqdec];
      for (const req of Array.isArray(list) ? list : []) {
        if (typeof req !== 'object' || req === null) continue;
        const [first, val] = firstEntry(req as Record<string, unknown>);
        if (low.state === first && (fnmatch(pyStr(low.name), pyStr(val)) || fnmatch(pyStr(low.__id__), pyStr(val)))) {
          errors.push(`Recursive require detected in SLS ${pyStr(low.__sls__)} for require ${pyRepr(req)} in ID ${pyStr(low.__id__)}`);
        }
      }
    }
    return errors;
  }

  /**
   * Salt's State.call: verify, the unless/onlyif/creates checks, the function, check_cmd, the run keys. A
   * state with no checks whose function settles at once returns without a promise.
   */
  private call(low: Low, _chunks: Low[], running: Running): Ret | Promise<Ret> {
    const startWall = Date.now();
    const t0 = monoMs();
    const errors = this.verifyData(low);
    if (errors.length > 0) {
      return { result: false, name: low.name, changes: {}, comment: errors.map((e) => `${e}\n`).join(''), __run_num__: this.runNum++ };
    }
    const test = this.o.test || low.__prereq__ === true;
    if ('unless' in low || 'onlyif' in low || 'creates' in low || low.fun === 'mod_watch' || (!low.__prereq__ && low.parallel) || ('check_cmd' in low && low.state !== 'file')) {
      return this.callChecked(low, running, test, startWall, t0);
    }
    const ret = this.o.caller.invoke(low, test);
    if (ret instanceof Promise) return ret.then((r) => this.runKeys(low, r, startWall, t0));
    return this.runKeys(low, ret, startWall, t0);
  }

  /** State.call for a state with unless/onlyif/creates, check_cmd, a mod_watch or parallel. */
  private async callChecked(low: Low, running: Running, test: boolean, startWall: number, t0: number): Promise<Ret> {
    // No comment yet: the key comes after the checks' keys, as in Salt's dict.
    let ret = { result: false, name: low.name, changes: {} } as unknown as Ret;
    if ('unless' in low || 'onlyif' in low || 'creates' in low) {
      const check = await this.o.caller.runCheck(low);
      Object.assign(ret, check);
      if (Array.isArray(ret.comment)) ret.comment = (ret.comment as string[]).join('\n');
    }
    if (!('result' in ret) || ret.result === false) {
      if (low.fun === 'mod_watch') {
        const watched = (low.__reqs__ as Record<string, Low[]> | undefined)?.watch ?? [];
        const changed = watched.filter((c) => isChanged(running[tagOf(c)])).map((c) => `${c.state}: ${pyStr(c.__id__)}`);
        ret = await this.o.caller.modWatch(low, test, changed);
      } else if (!low.__prereq__ && low.parallel) {
        // Salt's call_parallel: the function runs on its own while the run goes on; the result is filled in
        // when a requisite needs it or the run ends (reconcile).
        ret = { name: low.name, result: null, changes: {}, comment: 'Started in a separate process' };
        const caller = this.o.caller;
        this.procs.set(ret, (async () => caller.invoke(low, test))().catch((e: unknown) => ({ result: false, name: low.name, changes: {}, comment: `An exception occurred in this state: ${String(e)}` })));
      } else ret = await this.o.caller.invoke(low, test);
      if ('check_cmd' in low && low.state !== 'file') Object.assign(ret, await this.o.caller.runCheckCmd(low));
    }
    return this.runKeys(low, ret, startWall, t0);
  }

  /** The keys State.call adds to a return (none to a prereq's trial run). */
  private runKeys(low: Low, ret: Ret, startWall: number, t0: number): Ret {
    if (low.__prereq__) {
      low.__prereq__ = false;
      return ret;
    }
    ret.__sls__ = low.__sls__ ?? null;
    ret.__run_num__ = this.runNum++;
    const now = monoMs();
    ret.start_time = saltTime(startWall, now);
    ret.duration = Math.round((now - t0) * 1000) / 1000;
    ret.__id__ = low.__id__;
    return ret;
  }

  /** Salt's call_listen: a mod_watch chunk for every listener whose listened-to state changed. */
  async callListen(chunks: Low[], running: Running): Promise<Running> {
    const listeners: Array<{ key: [string, string, string]; val: unknown[] }> = [];
    const crefOf = (chunk: Low): [string, string, string] => [chunk.state, pyStr(chunk.__id__), pyStr(chunk.name)];
    // Indexed: every chunk is looked at, and an array's iterator makes an object at every step.
    for (let c = 0; c < chunks.length; c++) {
      const chunk = chunks[c] as Low;
      if ('listen' in chunk) listeners.push({ key: crefOf(chunk), val: Array.isArray(chunk.listen) ? chunk.listen : [] });
      if ('listen_in' in chunk) {
        for (const lIn of Array.isArray(chunk.listen_in) ? chunk.listen_in : []) {
          if (!lIn || typeof lIn !== 'object') continue;
          for (const [k, v] of Object.entries(lIn as Record<string, unknown>)) listeners.push({ key: [k, pyStr(v), 'lookup'], val: [{ [chunk.state]: chunk.__id__ }] });
        }
      }
    }
    // Every chunk's reference, needed only when something listens.
    const crefs = new Map<string, { cref: [string, string, string]; chunk: Low }>();
    if (listeners.length > 0) {
      for (const chunk of chunks) {
        const cref = crefOf(chunk);
        crefs.set(JSON.stringify(cref), { cref, chunk });
      }
    }
    const inCref = (state: string, v: string, cref: [string, string, string]) => state === cref[0] && cref.includes(v);
    const watchers: Low[] = [];
    const errors: Running = {};
    for (const { key, val } of listeners) {
      for (let listenTo of val) {
        if (!listenTo || typeof listenTo !== 'object') {
          let found = false;
          for (const chunk of chunks) {
            if (chunk.__id__ === listenTo || chunk.name === listenTo) {
              listenTo = { [chunk.state]: chunk.__id__ };
              found = true;
            }
          }
          if (!found) continue;
        }
        for (const [lkey, lvalRaw] of Object.entries(listenTo as Record<string, unknown>)) {
          const lval = pyStr(lvalRaw);
          const refs = [...crefs.values()];
          if (!refs.some((r) => inCref(lkey, lval, r.cref))) {
            errors[listenTag(lkey, lval)] = { comment: `Referenced state ${lkey}: ${lval} does not exist`, name: `listen_${lkey}:${lval}`, result: false, changes: {} };
            continue;
          }
          for (const r of refs.filter((x) => inCref(lkey, lval, x.cref))) {
            const to = running[tagOf(r.chunk)];
            if (!to || !isChanged(to)) continue;
            if (!refs.some((x) => inCref(key[0], key[1], x.cref))) {
              errors[listenTag(key[0], key[1])] = { comment: `Referenced state ${key[0]}: ${key[1]} does not exist`, name: `listen_${key[0]}:${key[1]}`, result: false, changes: {} };
              continue;
            }
            for (const x of refs.filter((y) => inCref(key[0], key[1], y.cref))) {
              const w: Low = { ...x.chunk, sfun: x.chunk.fun, fun: 'mod_watch', __id__: `listener_${pyStr(x.chunk.__id__)}` };
              for (const req of STATE_REQUISITE_KEYWORDS) delete w[req];
              watchers.push(w);
            }
          }
        }
      }
    }
    if (watchers.length > 0 || hasKey(errors)) this.regular = false;
    const ret = await this.callChunks(watchers);
    Object.assign(running, ret);
    for (const [tag, err] of Object.entries(errors)) {
      err.__run_num__ = this.runNum++;
      running[tag] = err;
    }
    this.running = running;
    return running;
  }

  /** state.single / state.low: State.call on one chunk, no requisites, no listen. */
  async callOne(low: Low): Promise<Ret> {
    const ret = await this.call(low, [low], this.running);
    await this.reconcile();
    return ret;
  }

  async run(): Promise<Running> {
    const running = await this.callChunks();
    await this.reconcile();
    return this.callListen(this.chunks, running);
  }
}

function hasKey(o: object): boolean {
  for (const k in o) if (Object.hasOwn(o, k)) return true;
  return false;
}

/** Salt's _l_tag: the tag of a listen error. */
function listenTag(state: string, id: string): string {
  return tagOf({ state: 'Listen_Error', __id__: `listen_${id}`, name: `listen_${state}`, fun: 'Listen_Error' });
}

function pyType(v: unknown): string {
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'list';
  if (v && typeof v === 'object') return 'dict';
  return 'str';
}
