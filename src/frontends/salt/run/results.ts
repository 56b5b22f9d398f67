/**
 * Runtime results → Salt's running dict: tags, Salt's key order, `__run_num__` with the gap a mod_watch
 * leaves, `__state_ran__` / `skip_watch`, and each state's own wording.
 */
import type { NodeResult } from '../../../core/model.js';
import type { SaltRet } from '../states/index.js';
import type { NodeInfo, SaltGraph } from './graph.js';
import { changedWatches, type WatchTracker } from './kinds.js';

export type SaltResult = Record<string, unknown>;

/** The runtime's note on a watch that would fire in check mode. */
const WATCH_NOTE = /(?:; )?would run its watch action because [\s\S]*$/;
const GUARD = /^(onlyif condition is false|unless condition is true|.* exists|All files in creates exist)$/;

/** Salt prints local wall-clock time with microseconds. */
export function localTime(iso: string): string {
  const d = new Date(iso);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}000`;
}

function fake(r: NodeResult, info: NodeInfo, runNum: number, result: boolean, extra: Record<string, unknown> = {}): SaltResult {
  return {
    changes: {},
    result,
    duration: r.duration,
    start_time: localTime(r.start),
    comment: r.comment,
    ...extra,
    __run_num__: runNum,
    __sls__: info.chunk.__sls__,
  };
}

export class RunNumbers {
  private next = 0;
  take(): number {
    return this.next++;
  }
}

export function saltResult(r: NodeResult, info: NodeInfo, tracker: WatchTracker, test: boolean, nums: RunNumbers): SaltResult {
  const { chunk } = info;
  if (r.status === 'skipped') {
    if (r.comment.startsWith('One or more requisite failed')) return fake(r, info, nums.take(), false);
    if (r.comment.startsWith('State was not run because')) return fake(r, info, nums.take(), true, { __state_ran__: false });
    if (r.comment === 'No changes detected') return fake(r, info, nums.take(), true);
  }
  if (info.failure === 'lost') {
    // Salt's record of a state whose requisite matches nothing.
    return {
      changes: {},
      result: false,
      duration: r.duration,
      start_time: localTime(r.start),
      comment: info.fail,
      __run_num__: nums.take(),
      __sls__: chunk.__sls__,
      __id__: chunk.__id__,
      name: chunk.name,
    };
  }
  if (info.failure === 'unknown') {
    // verify_data failed in State.call: no times, no __sls__ or __id__.
    return { result: false, name: chunk.name, changes: {}, comment: info.fail, __run_num__: nums.take() };
  }
  let ret: SaltRet = { result: r.result, comment: r.comment, changes: r.changes };
  let skipWatch = false;
  let modWatch = false;
  const watched = tracker.watchRet.get(r.id);
  if (info.fail !== undefined) ret = { result: false, comment: info.fail, changes: {} };
  else if (test && WATCH_NOTE.test(r.comment)) {
    const base = r.comment.replace(WATCH_NOTE, '');
    if (chunk.state === 'cmd' && GUARD.test(base)) {
      ret = { result: true, comment: base, changes: {} };
      skipWatch = true;
    } else if (chunk.state === 'cmd') {
      ret = { result: null, comment: `Command "${chunk.name}" would have been executed`, changes: {} };
      modWatch = true;
    } else {
      ret = { result: true, comment: typeof chunk.comment === 'string' ? chunk.comment : 'Watch statement fired.', changes: { 'Requisites with changes': changedWatches(info, tracker.running) } };
      modWatch = true;
    }
  } else if (watched) {
    if (tracker.skipWatch.has(r.id)) {
      ret = { result: true, comment: watched.comment ?? '', changes: {} };
      skipWatch = true;
    } else {
      ret = { result: watched.ok, comment: watched.comment ?? '', changes: watched.changes ?? {} };
      modWatch = true;
    }
  } else if (r.outputs?.guard_skip === true) {
    // state.py's _run_check result: its own key order, and the state function is never called.
    return {
      result: true,
      name: chunk.name,
      changes: {},
      comment: r.comment,
      __sls__: chunk.__sls__,
      __id__: chunk.__id__,
      skip_watch: true,
      __run_num__: nums.take(),
      start_time: localTime(r.start),
      duration: r.duration,
    };
  }
  else if (r.result === false && r.outputs?.skip_watch === true) skipWatch = true;
  // test.mod_watch's return stands as it is; cmd's goes through cmd's own wording.
  if (info.impl?.finish && info.fail === undefined && !(modWatch && chunk.state === 'test')) ret = info.impl.finish(chunk, ret, { test });
  let runNum = nums.take();
  if (modWatch) runNum = nums.take();
  const core: Record<string, unknown> = { changes: ret.changes, comment: ret.comment, name: chunk.name, result: ret.result };
  // cmd's mod_watch calls the function again (same dict); test's builds its own.
  const order = info.impl?.retOrder && !(chunk.state === 'test' && (modWatch || watched)) ? info.impl.retOrder : undefined;
  const ordered = order ? Object.fromEntries(order.map((k) => [k, core[k]])) : core;
  if (r.outputs?.check_cmd === true) {
    // state.py's check_cmd updates the function's return in place: __sls__ and __id__ come before __run_num__.
    return { ...ordered, __sls__: chunk.__sls__, __id__: chunk.__id__, __run_num__: runNum, start_time: localTime(r.start), duration: r.duration };
  }
  return {
    ...ordered,
    ...(skipWatch ? { skip_watch: true } : {}),
    __sls__: chunk.__sls__,
    __run_num__: runNum,
    start_time: localTime(r.start),
    duration: r.duration,
    __id__: chunk.__id__,
  };
}

export function saltResults(results: readonly NodeResult[], sg: SaltGraph, tracker: WatchTracker, test: boolean, nums: RunNumbers): Record<string, SaltResult> {
  const out: Record<string, SaltResult> = {};
  for (const r of results) {
    const info = sg.info.get(r.id);
    if (info) out[r.id] = saltResult(r, info, tracker, test, nums);
  }
  return out;
}
