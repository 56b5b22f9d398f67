/**
 * High data reconciliation, as Salt's State.call_high does it before compiling: `extend` blocks merged
 * into their targets, requisite_in statements (require_in, watch_in, …, use, prereq) turned into extend
 * data, and `exclude` applied. Works on a private copy of the render's high data; errors are Salt's strings.
 */
import type { ExcludeEntry, ExtendBlock, HighData } from '../types.js';
import { fnmatch } from '../../../lang/python/fnmatch.js';

export type Arg = Record<string, unknown> | string;
/** One ID declaration: `__sls__`, `__env__` and one arg list per state module. */
export type Body = Record<string, unknown>;
/** ID → declaration, in render order. */
export type High = Map<string, Body>;

/** Requisites a state names on others; `listen` is handled after the run, like Salt. */
export const REQUISITES = ['require', 'watch', 'prereq', 'onfail', 'onchanges', 'use', 'listen'] as const;
export const REQUISITE_KEYWORDS = new Set([
  'require',
  'require_any',
  'watch',
  'watch_any',
  'prereq',
  'prerequired',
  'onfail',
  'onfail_any',
  'onfail_all',
  'onfail_stop',
  'onchanges',
  'onchanges_any',
  'use',
  'listen',
]);
/** The argument keys requisiteIn turns into extend data. */
export const REQUISITE_IN: ReadonlySet<string> = new Set(['require_in', 'watch_in', 'onfail_in', 'onchanges_in', 'use', 'use_in', 'prereq', 'prereq_in']);
const REQUISITE_IN_ALL = new Set([...REQUISITE_IN, 'require', 'watch', 'onfail', 'onfail_stop', 'onchanges']);

export function isModuleKey(key: string): boolean {
  return !key.startsWith('__');
}

export function argsOf(body: Body, state: string): Arg[] {
  const v = body[state];
  return Array.isArray(v) ? (v as Arg[]) : [];
}

function firstKey(o: Record<string, unknown>): string | undefined {
  for (const k in o) return k;
  return undefined;
}

/**
 * A private copy of the render's high data, as deep as reconciliation writes: the arg lists, the arg
 * objects and the lists inside them (requisites are appended to). Values below are shared, never changed.
 */
function copyBody(body: Record<string, unknown>): Body {
  const out: Body = {};
  for (const key in body) {
    const v = body[key];
    if (!Array.isArray(v)) {
      out[key] = v;
      continue;
    }
    out[key] = v.map((arg: unknown) => {
      if (typeof arg !== 'object' || arg === null || Array.isArray(arg)) return arg;
      const copy: Record<string, unknown> = {};
      for (const k in arg as Record<string, unknown>) {
        const x = (arg as Record<string, unknown>)[k];
        copy[k] = Array.isArray(x) ? [...x] : x;
      }
      return copy;
    });
  }
  return out;
}

/** The bodies that are reconciliation's own copies (it may write into them). */
const OWN = new WeakSet<Body>();

/**
 * The render's declarations by ID; a body is copied (copyBody) only when reconciliation first writes into
 * it (an extend or a requisite_in names it), so most states are never copied.
 */
export function toHigh(data: HighData): High {
  // A copy of the render's Map when there is one: reconciliation writes into its own.
  if (data.ids !== undefined) return new Map(data.ids as ReadonlyMap<string, unknown> as ReadonlyMap<string, Body>);
  const high: High = new Map();
  for (const id in data.states) high.set(id, data.states[id] as unknown as Body);
  return high;
}

/** The body of `id` that reconciliation may write into: its own copy, made on first use. */
function writable(high: High, id: string): Body {
  const body = high.get(id) as Body;
  if (OWN.has(body)) return body;
  const copy = copyBody(body);
  OWN.add(copy);
  high.set(id, copy);
  return copy;
}

/** Salt's find_name: the IDs whose declaration of `state` is the ID `name` or has `name: <name>`. */
export function findName(name: string, state: string, high: High): Array<[string, string]> {
  if (high.has(name)) return [[name, state]];
  const out: Array<[string, string]> = [];
  if (state === 'sls') {
    for (const [id, body] of high) if (body.__sls__ === name) out.push([id, Object.keys(body).find(isModuleKey) ?? '']);
    return out;
  }
  for (const [id, body] of high) {
    for (const arg of argsOf(body, state)) {
      if (typeof arg !== 'object' || Object.keys(arg).length !== 1) continue;
      if (arg[firstKey(arg) as string] === name) out.push([id, state]);
    }
  }
  return out;
}

function findSlsIds(sls: string, high: High): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [id, body] of high) {
    if (typeof body.__sls__ !== 'string' || !fnmatch(body.__sls__, sls)) continue;
    for (const st of Object.keys(body)) if (isModuleKey(st)) out.push([id, st]);
  }
  return out;
}

/** Merges extend blocks into the high data (Salt's reconcile_extend). */
export function reconcileExtend(high: High, extend: readonly ExtendBlock[]): string[] {
  const errors: string[] = [];
  for (const block of extend) {
    for (const [declared, body] of Object.entries(block)) {
      let name = declared;
      const stateType = Object.keys(body).find(isModuleKey) ?? '';
      const existing = high.get(name);
      if (!existing || !(stateType in existing)) {
        const ids = findName(name, stateType, high);
        if (ids.length !== 1) {
          const env = typeof body.__env__ === 'string' ? body.__env__ : 'base';
          const sls = typeof body.__sls__ === 'string' ? body.__sls__ : 'base';
          errors.push(
            `Cannot extend ID '${name}' in '${env}:${sls}'. It is not part of the high state.\n` +
              'This is likely due to a missing include statement or an incorrectly typed ID.\n' +
              `Ensure that a state with an ID of '${name}' is available\nin environment '${env}' and to SLS '${sls}'`,
          );
          continue;
        }
        name = (ids[0] as [string, string])[0];
      }
      const target = writable(high, name);
      for (const [state, run] of Object.entries(body)) {
        if (!isModuleKey(state) || !Array.isArray(run)) continue;
        if (!(state in target)) {
          target[state] = structuredClone(run);
          continue;
        }
        const list = argsOf(target, state);
        for (const arg of run as Arg[]) {
          let update = false;
          for (let i = 0; i < list.length; i++) {
            const val = list[i] as Arg;
            if (typeof arg === 'string' && typeof val === 'string') {
              list[i] = arg;
              update = true;
              continue;
            }
            if (typeof arg === 'object' && typeof val === 'object') {
              const key = firstKey(arg) as string;
              const valKey = firstKey(val);
              if (key === valKey) {
                if (REQUISITE_KEYWORDS.has(key) && Array.isArray(val[key])) for (const r of (arg[key] as unknown[]) ?? []) (val[key] as unknown[]).push(r);
                else list[i] = structuredClone(arg);
                update = true;
              }
              if (key === 'name' && valKey === 'names') list[i] = structuredClone(arg);
            }
          }
          if (!update) list.push(structuredClone(arg));
        }
      }
    }
  }
  return errors;
}

/** Removes excluded IDs and SLS (Salt's apply_exclude). */
export function applyExclude(high: High, exclude: readonly ExcludeEntry[]): void {
  const exSls = new Set<string>();
  const exId = new Set<string>();
  for (const e of exclude as ReadonlyArray<ExcludeEntry | string>) {
    if (typeof e === 'string') exSls.add(e);
    else if ('sls' in e) exSls.add(e.sls);
    else if ('id' in e) exId.add(e.id);
  }
  if (exSls.size > 0) {
    for (const [id, body] of high) {
      const sls = body.__sls__;
      if (typeof sls === 'string' && sls && [...exSls].some((p) => fnmatch(sls, p))) exId.add(id);
    }
  }
  for (const id of exId) high.delete(id);
}

/** The arg keys a state declares, for `use` (args the state already has are not copied). */
function stateArgKeys(id: string, state: string, high: High): Set<string> {
  const keys = new Set<string>();
  const body = high.get(id);
  if (!body) return keys;
  for (const arg of argsOf(body, state)) if (typeof arg === 'object') for (const k of Object.keys(arg)) keys.add(k);
  return keys;
}

type ExtendMap = Map<string, Map<string, Arg[]> & { env?: string; sls?: string }>;

function extendSlot(extend: ExtendMap, id: string, state: string): Arg[] {
  let forId = extend.get(id);
  if (!forId) extend.set(id, (forId = new Map()));
  let list = forId.get(state);
  if (!list) forId.set(state, (list = []));
  return list;
}

function addRequisite(list: Arg[], rkey: string, ref: Record<string, string>): void {
  for (const item of list) {
    if (typeof item === 'object' && firstKey(item) === rkey) {
      (item[rkey] as unknown[]).push(ref);
      return;
    }
  }
  list.push({ [rkey]: [ref] });
}

function copyArgs(from: Arg[], into: Arg[], ignore: Set<string>): void {
  for (const arg of from) {
    if (typeof arg !== 'object' || Object.keys(arg).length !== 1) continue;
    const k = firstKey(arg) as string;
    if (ignore.has(k) || k === 'name' || k === 'names') continue;
    into.push(structuredClone(arg));
  }
}

/**
 * Turns requisite_in statements, `use` and `prereq` into extend data and merges it (Salt's requisite_in).
 * `ids`: only these IDs, in this order, need looking at (verifyHigh lists them); otherwise every ID.
 */
export function requisiteIn(high: High, ids?: readonly string[]): string[] {
  const extend: ExtendMap = new Map();
  const errors: string[] = [];
  const meta = new Map<string, { env: unknown; sls: unknown }>();
  for (const [id, body] of ids ? ids.map((i) => [i, high.get(i) as Body] as const) : high) {
    for (const state in body) {
      if (!isModuleKey(state)) continue;
      for (const arg of argsOf(body, state)) {
        if (typeof arg !== 'object') continue;
        const key = firstKey(arg);
        if (key === undefined || !REQUISITE_IN.has(key)) continue;
        const rkey = key.split('_')[0] as string;
        const items = arg[key];
        const targets: Array<[string, string]> = [];
        const list = Array.isArray(items) ? items : items && typeof items === 'object' ? Object.entries(items).map(([k, v]) => ({ [k]: v })) : [];
        for (let ind of list as unknown[]) {
          if (typeof ind !== 'object' || ind === null) {
            const ref = String(ind);
            const targetBody = high.get(ref);
            if (targetBody) ind = { [Object.keys(targetBody).find(isModuleKey) ?? '']: ref };
            else {
              let found: Record<string, string> | undefined;
              for (const [tid, tbody] of high) {
                for (const st of Object.keys(tbody).filter(isModuleKey)) {
                  for (const a of argsOf(tbody, st)) if (typeof a === 'object' && a.name === ref) found = { [st]: tid };
                }
              }
              if (!found) continue;
              ind = found;
            }
          }
          const entry = ind as Record<string, unknown>;
          let pstate = firstKey(entry);
          if (pstate === undefined) continue;
          const pname = String(entry[pstate]);
          if (pstate.includes('.')) {
            errors.push(
              `Invalid requisite in ${rkey}: ${pstate} for ${pname}, in SLS '${String(body.__sls__)}'. Requisites must not contain dots, did you mean '${pstate.slice(0, pstate.indexOf('.'))}'?`,
            );
            pstate = pstate.split('.')[0] as string;
          }
          if (pstate === 'sls') for (const [i, s] of findSlsIds(pname, high)) targets.push([i, s]);
          else targets.push([pname, pstate]);
        }
        for (const [name, tstate] of targets) {
          if (key === 'prereq_in') {
            extendSlot(extend, id, state).push({ prerequired: [{ [tstate]: name }] });
          }
          if (key === 'prereq') {
            for (const [extId, reqState] of findName(name, tstate, high)) extendSlot(extend, extId, reqState).push({ prerequired: [{ [state]: id }] });
            continue;
          }
          if (key === 'use_in') {
            for (const [extId, reqState] of findName(name, tstate, high)) {
              const ignore = new Set([...REQUISITE_IN_ALL, ...stateArgKeys(extId, tstate, high)]);
              copyArgs(argsOf(body, state), extendSlot(extend, extId, reqState), ignore);
            }
            continue;
          }
          if (key === 'use') {
            for (const [extId, reqState] of findName(name, tstate, high)) {
              const ignore = new Set([...REQUISITE_IN_ALL, ...stateArgKeys(id, state, high)]);
              copyArgs(argsOf(high.get(extId) as Body, reqState), extendSlot(extend, id, state), ignore);
            }
            continue;
          }
          addRequisite(extendSlot(extend, name, tstate), rkey, { [state]: id });
          meta.set(name, { env: body.__env__, sls: body.__sls__ });
        }
      }
    }
  }
  const blocks: ExtendBlock[] = [];
  for (const [id, states] of extend) {
    const m = meta.get(id);
    const body: Record<string, string | Arg[]> = {};
    for (const [st, args] of states) body[st] = args;
    if (m) {
      body.__env__ = String(m.env);
      body.__sls__ = String(m.sls);
    }
    blocks.push({ [id]: body } as ExtendBlock);
  }
  for (const e of reconcileExtend(high, blocks)) errors.push(e);
  return errors;
}
