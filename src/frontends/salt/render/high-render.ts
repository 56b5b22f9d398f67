/**
 * SLS files → high data, following Salt's render stage: each SLS is rendered once; `include` is resolved
 * depth first (absolute, relative `.x`/`..x`, `{env: sls}`, globs); `extend` and `exclude` are stashed in
 * `__extend__` / `__exclude__`; short declarations `file.managed` become `file: [..., 'managed']`;
 * `__sls__` / `__env__` are injected; every state declaration without an `order` gets the next auto order
 * after its includes were rendered, so the deepest include is numbered first.
 */

import { readFileSync } from 'node:fs';
import { type Diagnostic, error, type Span } from '../../../core/diag.js';
import type { ExcludeEntry, ExtendBlock, HighData, IdDecl, StateArg } from '../types.js';
import { SALT_CONFLICT, SALT_INCLUDE, SALT_MISSING_SLS, SALT_STRUCTURE } from './codes.js';
import { pyStr } from '../pytext.js';
import { isPlainObject } from './data-path.js';
import { deepEqual } from './deep-equal.js';
import type { FileRoots } from './file-roots.js';
import { type JinjaSession, slsContext } from './jinja-session.js';
import { fnmatch, hasGlob } from './match.js';
import { type Rendered, renderFile } from './renderer.js';

/** Salt's per-render dict: IDs plus the stashed `__extend__` / `__exclude__` lists, in insertion order. */
type SlsState = Map<string, unknown>;

const EXTEND = '__extend__';
const EXCLUDE = '__exclude__';

export class HighRenderer {
  /** IDs written as a YAML int, float, bool or null: Python type names, for verify_high. */
  private readonly idTypes: Record<string, string> = {};
  private readonly shortIds = new Set<string>();
  readonly errors: string[] = [];
  readonly diagnostics: Diagnostic[] = [];
  private readonly mods = new Set<string>();
  private iorder = 10000;
  private readonly spans: Record<string, Span> = {};
  /**
   * For each SLS rendered, in render order, what sets the spans of its IDs (each ID's first): run when the
   * spans are first asked for (a diagnostic), so that a run without one works out no position.
   */
  private readonly unspanned: Array<() => void> = [];
  private readonly files: Record<string, string> = {};
  private readonly listings = new Map<string, string[]>();

  constructor(
    private readonly roots: FileRoots,
    private readonly jinja: JinjaSession,
    private readonly onSource?: (chars: number) => void,
  ) {}

  private problem(text: string, diag: Diagnostic): void {
    this.errors.push(text);
    this.diagnostics.push(diag);
  }

  private list(env: string): string[] {
    let l = this.listings.get(env);
    if (!l) this.listings.set(env, (l = this.roots.listSls(env)));
    return l;
  }

  /** Salt's render_highstate over `env → [sls or glob]`. */
  renderMatches(matches: Record<string, string[]>, origin: (env: string) => Span): HighData {
    let high: SlsState = new Map();
    for (const [env, list] of Object.entries(matches)) {
      for (const slsMatch of list) {
        let targets = [slsMatch];
        if (!this.roots.hasEnv(env)) {
          this.problem(`No matching salt environment for environment '${env}' found`, error(SALT_MISSING_SLS, `No matching salt environment for environment '${env}' found`, { span: origin(env) }));
        } else if (hasGlob(slsMatch)) {
          const found = this.list(env).filter((s) => fnmatch(s, slsMatch));
          if (found.length > 0) targets = found;
        }
        for (const sls of targets) {
          if (this.mods.has(`${env}:${sls}`)) continue;
          const before = this.errors.length;
          const state = this.renderState(sls, env, matches, origin(env));
          // Merged into nothing, a render without stashed extend or exclude lists is the merge itself.
          if (state.size > 0 && high.size === 0 && !state.has(EXTEND) && !state.has(EXCLUDE)) high = state;
          else if (state.size > 0) this.mergeIncluded(high, state);
          for (let i = before; i < this.errors.length; i++) {
            const e = this.errors[i] as string;
            if (e.includes('is not available') && e.includes(`SLS ${slsMatch} in saltenv`)) {
              this.errors[i] = `No matching sls found for '${slsMatch}' in env '${env}'`;
            }
          }
        }
      }
    }
    return this.toHighData(high);
  }

  private renderState(sls: string, env: string, matches: Record<string, string[]>, from: Span | undefined): SlsState {
    let state: SlsState = new Map();
    const found = this.roots.findSls(env, sls);
    if (found === undefined) {
      const msg = `Specified SLS ${sls} in saltenv ${env} is not available on the salt master or through a configured fileserver`;
      this.problem(msg, error(SALT_MISSING_SLS, msg, { span: from }));
      return state;
    }
    if ('code' in found) {
      this.problem(found.message, { ...found, ...(from ? { span: from } : {}) });
      return state;
    }
    const text = readFileSync(found.path, 'utf8');
    this.onSource?.(text.length);
    const names = slsContext(sls, found.rel);
    const out = renderFile(text, found.path, env, names, this.jinja, `SLS ${env}:${sls}`, true);
    this.mods.add(`${env}:${sls}`);
    this.files[`${env}:${sls}`] = found.path;
    if (!out.ok && out.unknownRenderer) {
      // Salt logs the missing renderer and the SLS adds nothing.
      this.diagnostics.push({ ...out.diagnostic, severity: 'warning' });
      return state;
    }
    if (!out.ok) {
      this.problem(`Rendering SLS '${env}:${sls}' failed: ${out.saltMessage}`, out.diagnostic);
      return state;
    }
    const data = out.value.data;
    const entries = out.value.entries;
    const at = (line: number, col: number): Span => ({ file: found.path, line, col });
    if (entries === undefined && (data === null || data === undefined || data === false || data === '' || data === 0)) return state;
    if (entries === undefined && !isPlainObject(data)) {
      this.problem(`SLS ${sls} does not render to a dictionary`, error(SALT_STRUCTURE, `SLS ${sls} does not render to a dictionary`, { span: at(1, 1) }));
      // Salt still updates its high data with the value: a dict.update that fails for anything but pairs.
      const pairs = Array.isArray(data) && data.every((x) => (typeof x === 'string' || Array.isArray(x)) && x.length === 2);
      if (!pairs) this.errors.push(`Error when rendering state with contents: ${pyStr(data)}`);
      return state;
    }
    // The per-ID loops here and below index their lists and go over Maps with forEach: an iterator would
    // make garbage for every ID.
    const topKeys = out.value.topKeys;
    for (let i = 0; i < topKeys.length; i++) {
      const k = topKeys[i] as (typeof topKeys)[number];
      if (k.nonString) this.idTypes[k.key] = k.nonString;
    }
    // The entries in document order: the reader's own Map (made for this render alone) when it kept one,
    // else each key looked up (listing a mapping of thousands of keys and looking each up costs more).
    if (entries !== undefined) state = entries;
    else this.entriesOf(data as Record<string, unknown>, topKeys, state);
    // Where each key is, worked out the first time a position is asked for.
    let keyPos: Map<string, Span> | undefined;
    const posOf = (k: string): Span => {
      if (keyPos === undefined) {
        keyPos = new Map();
        const keys = out.value.keys();
        for (let i = 0; i < keys.length; i++) {
          const p = keys[i] as (typeof keys)[number];
          keyPos.set(p.key, at(p.line, p.col));
        }
      }
      return keyPos.get(k) ?? at(1, 1);
    };

    let include: unknown[] = [];
    if (state.has('include')) {
      const inc = state.get('include');
      if (!Array.isArray(inc)) {
        const msg = `Include Declaration in SLS ${sls} is not formed as a list`;
        this.problem(msg, error(SALT_STRUCTURE, msg, { span: posOf('include') }));
      } else {
        include = inc;
        state.delete('include');
      }
    }
    if (state.has('extend')) this.handleExtend(state, sls, env, posOf('extend'));
    if (state.has('exclude')) this.handleExclude(state, sls, posOf('exclude'));
    this.handleStateDecls(state, sls, env, posOf);
    // The IDs' spans, each ID's first, set when first asked for. This SLS's IDs are the first `own` of
    // its map's entries other than the stashed lists: what is merged into the map later comes after them.
    let own = state.size;
    if (state.has(EXTEND)) own--;
    if (state.has(EXCLUDE)) own--;
    this.unspanned.push(() => {
      let seen = 0;
      state.forEach((_, k) => {
        if (k === EXTEND || k === EXCLUDE || seen >= own) return;
        seen++;
        if (!Object.hasOwn(this.spans, k)) this.spans[k] = posOf(k);
      });
    });

    if (include.length > 0) {
      const incSpan = posOf('include');
      for (const entry of include) this.include(entry, state, sls, env, found.rel, matches, incSpan);
    }
    this.handleIorder(state);
    return state;
  }

  /** Every ID's span (where its first declaration is), the pending ones set now. */
  private spansOf(): Record<string, Span> {
    for (let i = 0; i < this.unspanned.length; i++) (this.unspanned[i] as () => void)();
    this.unspanned.length = 0;
    return this.spans;
  }

  /** The entries of an SLS's data in document order, each key looked up. */
  private entriesOf(data: Record<string, unknown>, keys: Rendered['topKeys'], state: SlsState): void {
    const dataKeys = Object.keys(data);
    if (keys.length === dataKeys.length) {
      for (let i = 0; i < keys.length; i++) {
        const k = (keys[i] as (typeof keys)[number]).key;
        state.set(k, data[k]);
      }
    } else for (let i = 0; i < dataKeys.length; i++) state.set(dataKeys[i] as string, data[dataKeys[i] as string]);
  }

  private include(entry: unknown, state: SlsState, sls: string, env: string, rel: string, matches: Record<string, string[]>, span: Span): void {
    let envKey = env;
    let inc: string;
    if (isPlainObject(entry)) {
      const pairs = Object.entries(entry);
      const last = pairs[pairs.length - 1];
      if (!last) return;
      envKey = last[0];
      inc = String(last[1]);
    } else inc = String(entry);
    if (envKey !== '_xenv' && !this.roots.hasEnv(envKey)) {
      const msg = `Nonexistent saltenv '${envKey}' found in include of '${inc}' within SLS '${env}:${sls}'`;
      this.problem(msg, error(SALT_INCLUDE, msg, { span }));
      return;
    }
    if (inc.startsWith('.')) {
      const m = /^(\.+)(.*)$/.exec(inc) as RegExpExecArray;
      const levels = (m[1] ?? '').length;
      const parts = sls.split('.');
      if (rel.endsWith('init.sls')) parts.push('init');
      if (levels > parts.length) {
        const msg = `Attempted relative include of '${inc}' within SLS '${env}:${sls}' goes beyond top level package `;
        this.problem(msg, error(SALT_INCLUDE, msg.trimEnd(), { span }));
        return;
      }
      inc = [...parts.slice(0, parts.length - levels), m[2] ?? ''].join('.');
    }
    const exists = (e: string): boolean => (hasGlob(inc) ? this.list(e).some((s) => fnmatch(s, inc)) : this.roots.findSls(e, inc) !== undefined);
    const resolved = envKey === '_xenv' ? Object.keys(matches).filter((e) => this.roots.hasEnv(e) && exists(e)) : Object.hasOwn(matches, envKey) || exists(envKey) ? [envKey] : [];
    if (resolved.length === 1 || resolved.includes(env)) {
      const rEnv = resolved.length === 1 ? (resolved[0] as string) : env;
      const targets = hasGlob(inc) ? this.list(env).filter((s) => fnmatch(s, inc)) : [];
      for (const target of targets.length > 0 ? targets : [inc]) {
        if (this.mods.has(`${rEnv}:${target}`)) continue;
        const nstate = this.renderState(target, rEnv, matches, span);
        if (nstate.size > 0) this.mergeIncluded(state, nstate);
      }
      return;
    }
    const msg =
      resolved.length === 0
        ? `Unknown include: Specified SLS ${envKey}: ${inc} is not available on the salt master in saltenv(s): ${envKey === '_xenv' ? Object.keys(matches).join(', ') : envKey} `
        : `Ambiguous include: Specified SLS ${envKey}: ${inc} is available on the salt master in multiple available saltenvs: ${resolved.join(', ')}`;
    this.problem(msg, error(SALT_INCLUDE, msg.trimEnd(), { span }));
  }

  private handleExtend(state: SlsState, sls: string, env: string, span: Span): void {
    if (!state.has('extend')) return;
    const ext = state.get('extend');
    state.delete('extend');
    if (!isPlainObject(ext)) {
      this.problem(`Extension value in SLS '${sls}' is not a dictionary`, error(SALT_STRUCTURE, `Extension value in SLS '${sls}' is not a dictionary`, { span }));
      return;
    }
    const block: ExtendBlock = {};
    for (const [name, body] of Object.entries(ext)) {
      if (!isPlainObject(body)) {
        const msg = `Extension name '${name}' in SLS '${sls}' is not a dictionary`;
        this.problem(msg, error(SALT_STRUCTURE, msg, { span }));
        continue;
      }
      // As Salt: the body's keys, then `__sls__` and `__env__` unless the body gives them.
      const out: Record<string, string | StateArg[]> = {};
      for (const [key, value] of Object.entries(body)) {
        const dot = key.indexOf('.');
        if (dot > 0 && Array.isArray(value)) out[key.slice(0, dot)] = [...(value as StateArg[]), key.slice(dot + 1)];
        else out[key] = value as string | StateArg[];
      }
      if (!('__sls__' in out)) out.__sls__ = sls;
      if (!('__env__' in out)) out.__env__ = env;
      block[name] = out;
    }
    const list = (state.get(EXTEND) as ExtendBlock[] | undefined) ?? [];
    list.push(block);
    state.set(EXTEND, list);
  }

  private handleExclude(state: SlsState, sls: string, span: Span): void {
    if (!state.has('exclude')) return;
    const exc = state.get('exclude');
    state.delete('exclude');
    if (!Array.isArray(exc)) {
      const msg = `Exclude Declaration in SLS ${sls} is not formed as a list`;
      this.problem(msg, error(SALT_STRUCTURE, msg, { span }));
      return;
    }
    const list = (state.get(EXCLUDE) as unknown[] | undefined) ?? [];
    list.push(...exc.map((e) => (typeof e === 'string' ? { sls: e } : e)));
    state.set(EXCLUDE, list);
  }

  private handleStateDecls(state: SlsState, sls: string, env: string, posOf: (k: string) => Span): void {
    // The last state key split into module and function, reused while the next IDs' keys are the same
    // text (an SLS of many states repeats a few `mod.fun` keys): no search and no new strings for them.
    let lastKey: string | undefined;
    let lastDot = -1;
    let lastMod = '';
    let lastFun = '';
    state.forEach((body, name) => {
      if (name === EXTEND || name === EXCLUDE) return;
      if (!isPlainObject(body)) {
        if (typeof body === 'string' && body.includes('.')) {
          const [mod, fun] = body.split('.');
          state.set(name, { __sls__: sls, __env__: env, [mod as string]: [fun as string] });
          this.shortIds.add(name);
          return;
        }
        const msg = `ID ${name} in SLS ${sls} is not a dictionary`;
        this.problem(msg, error(SALT_STRUCTURE, msg, { span: posOf(name) }));
        return;
      }
      // The declaration: __env__ and __sls__, the body's other keys in order, then each `mod.fun` key moved
      // to `mod` with the function appended to a copy of its list.
      const decl: Record<string, unknown> = {
        __env__: typeof body.__env__ === 'string' ? body.__env__ : env,
        __sls__: typeof body.__sls__ === 'string' ? body.__sls__ : sls,
      };
      // The modules seen and the `mod.fun` keys moved: the first of each in variables (most IDs have one
      // state), lists only for more.
      let firstSeen: string | undefined;
      let seen: string[] | undefined;
      let firstMod: string | undefined;
      let firstArgs: unknown[] | undefined;
      let moved: Array<string | unknown[]> | undefined;
      for (const key in body) {
        const value = body[key];
        if (key.startsWith('_') || !Array.isArray(value)) {
          if (key !== '__env__' && key !== '__sls__') decl[key] = value;
          continue;
        }
        if (key !== lastKey) {
          lastKey = key;
          lastDot = key.indexOf('.');
          lastMod = lastDot < 0 ? key : key.slice(0, lastDot);
          lastFun = lastDot < 0 ? '' : key.slice(lastDot + 1);
        }
        const dot = lastDot;
        const mod = lastMod;
        if (dot >= 0 && (firstSeen === mod || (seen !== undefined && seen.includes(mod)))) {
          const msg = `ID '${name}' in SLS '${sls}' contains multiple state declarations of the same type`;
          this.problem(msg, error(SALT_STRUCTURE, msg, { span: posOf(name) }));
          decl[key] = value;
          continue;
        }
        if (firstSeen === undefined) firstSeen = mod;
        else (seen ??= []).push(mod);
        if (dot < 0) {
          decl[key] = value;
          continue;
        }
        // A copy with the function appended (a spread costs less than concat, or slice and push).
        const args = [...value, lastFun];
        if (firstMod === undefined) {
          firstMod = mod;
          firstArgs = args;
        } else (moved ??= []).push(mod, args);
      }
      if (firstMod !== undefined) decl[firstMod] = firstArgs;
      if (moved !== undefined) for (let i = 0; i < moved.length; i += 2) decl[moved[i] as string] = moved[i + 1];
      state.set(name, decl);
    });
  }

  private handleIorder(state: SlsState): void {
    state.forEach((body) => {
      if (!isPlainObject(body)) return;
      for (const key in body) {
        const decl = body[key];
        if (key.startsWith('_') || !Array.isArray(decl)) continue;
        let hasOrder = false;
        for (let i = 0; i < decl.length; i++) {
          const a: unknown = decl[i];
          // `in` first: most arguments have no `order` key at all, and it asks no key list of them.
          if (isPlainObject(a) && 'order' in a && firstKey(a) === 'order') {
            hasOrder = true;
            break;
          }
        }
        if (!hasOrder) decl.push({ order: this.iorder++ });
      }
    });
  }

  /** Salt's merge_included_states: stash lists move up; an ID seen twice with different bodies conflicts. */
  private mergeIncluded(high: SlsState, state: SlsState): void {
    for (const key of [EXTEND, EXCLUDE]) {
      const moving = state.get(key) as unknown[] | undefined;
      if (!moving) continue;
      state.delete(key);
      const list = (high.get(key) as unknown[] | undefined) ?? [];
      list.push(...moving);
      high.set(key, list);
    }
    state.forEach((body, id) => {
      const prev = high.get(id);
      if (prev !== undefined && !deepEqual(prev, body)) {
        const a = prev as IdDecl;
        const b = body as IdDecl;
        const msg = `Detected conflicting IDs, SLS IDs need to be globally unique.\n    The conflicting ID is '${id}' and is found in SLS '${a.__env__}:${a.__sls__}' and SLS '${b.__env__}:${b.__sls__}'`;
        const where = this.files[`${b.__env__}:${b.__sls__}`];
        this.problem(msg, error(SALT_CONFLICT, `ID '${id}' is declared in SLS '${a.__env__}:${a.__sls__}' and again in SLS '${b.__env__}:${b.__sls__}'; SLS IDs must be globally unique`, { span: where ? { file: where, line: 1, col: 1 } : this.spansOf()[id] }));
      }
      high.set(id, body);
    });
  }

  /**
   * The high data. Its declarations come as the render's own Map (`ids`); the dict of them (`states`), the
   * key order and the spans are made when first read: a state run reads none of them (a dictionary of
   * thousands of IDs is slow to fill, and the spans are for diagnostics).
   */
  private toHighData(high: SlsState): HighData {
    const extendList = high.get(EXTEND) as ExtendBlock[] | undefined;
    const extend = extendList === undefined ? [] : dedupeExtends(extendList);
    const exclude = (high.get(EXCLUDE) as ExcludeEntry[] | undefined) ?? [];
    let ids = high as Map<string, unknown> as Map<string, IdDecl>;
    if (high.has(EXTEND) || high.has(EXCLUDE)) {
      ids = new Map();
      high.forEach((v, k) => {
        if (k !== EXTEND && k !== EXCLUDE) ids.set(k, v as IdDecl);
      });
    }
    const shortIds = [...this.shortIds].filter((id) => ids.has(id));
    // An ID that is an array index ('10') comes first in the dict's key order, as JavaScript enumerates
    // one: with such an ID, the dict's order is the one the compiler goes by, and no Map is handed on.
    let indexId = false;
    ids.forEach((_, k) => {
      if (!indexId && isArrayIndex(k)) indexId = true;
    });
    let states: Record<string, IdDecl> | undefined;
    let keyOrder: string[] | undefined;
    const spansOf = () => this.spansOf();
    return {
      get states() {
        if (states === undefined) {
          const dict: Record<string, IdDecl> = {};
          ids.forEach((v, k) => (dict[k] = v));
          states = dict;
        }
        return states;
      },
      ...(indexId ? {} : { ids }),
      extend,
      exclude,
      get spans() {
        return spansOf();
      },
      files: this.files,
      get keyOrder() {
        return (keyOrder ??= [...high.keys()]);
      },
      ...(Object.keys(this.idTypes).length > 0 ? { idTypes: this.idTypes } : {}),
      ...(shortIds.length > 0 ? { shortIds } : {}),
    };
  }
}

/** Whether a key is one JavaScript enumerates first, in numeric order (a canonical array index). */
function isArrayIndex(k: string): boolean {
  const c = k.charCodeAt(0);
  if (!(c >= 0x30 && c <= 0x39)) return false;
  return /^(?:0|[1-9]\d*)$/.test(k) && Number(k) < 4294967295;
}

/** An object's first own key (Object.keys(o)[0]) without listing the others. */
function firstKey(o: object): string | undefined {
  for (const k in o) if (Object.hasOwn(o, k)) return k;
  return undefined;
}

/** Salt's clean_duplicate_extends: one `{id: body}` per distinct pair. */
function dedupeExtends(list: ExtendBlock[]): ExtendBlock[] {
  const out: [string, ExtendBlock[string]][] = [];
  for (const block of list) {
    for (const [id, body] of Object.entries(block)) {
      if (!out.some(([i, b]) => i === id && deepEqual(b, body))) out.push([id, body as ExtendBlock[string]]);
    }
  }
  return out.map(([id, body]) => ({ [id]: body }) as ExtendBlock);
}
