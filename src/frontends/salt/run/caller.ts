/**
 * One state function call, as Salt's State.call makes it: the state's own return (through its StateImpl and
 * the shared resource kind: check, then apply unless testing), the unless/onlyif/creates checks Salt runs
 * before it, check_cmd after it, and mod_watch. Requisites are the runtime's business (salt-state.ts).
 */
import { type ApplyOutcome, type CheckOutcome, checkAtOnce, type GraphNode } from '../../../core/model.js';
import type { ResourceContext } from '../../../host/types.js';
import type { Kind } from '../../../resources/index.js';
import { serviceWatch } from '../../../resources/service/index.js';
import type { Chunk } from '../compile/index.js';
import { truthy } from '../states/args.js';
import { type SaltRet, stateImpl, type StateImpl, type TranslateContext, type Translation } from '../states/index.js';
import { NCRC, type RetKey } from '../states/types.js';
import { callFunction } from './guards.js';
import { pyStr } from '../pytext.js';

/** A state's return dict: `name`, `result`, `comment`, `changes` and whatever else it adds. */
export type Ret = Record<string, unknown> & { result: boolean | null; comment: unknown; changes: unknown };

/** State modules of Salt 3006.0 that have a mod_watch; for the others a watch is a require. */
export const MOD_WATCH_STATES: ReadonlySet<string> = new Set([
  'at', 'cmd', 'docker_container', 'docker_image', 'etcd_mod', 'kernelpkg', 'mount', 'pkg', 'service', 'supervisord', 'test', 'tomcat',
]);

const GUARD_KEYS = ['unless', 'onlyif', 'creates'] as const;

export interface CallerOptions {
  readonly ctx: ResourceContext;
  readonly translate: TranslateContext;
  readonly kinds: ReadonlyMap<string, Kind>;
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * A return dict with its keys in a state function's order. The two usual orders (most state functions'
 * and file.managed's) are made as one object each, written out; any other key by key.
 */
function retDict(order: readonly RetKey[], name: unknown, r: SaltRet): Record<string, unknown> {
  if (order.length === 4) {
    const a = order[0];
    const b = order[1];
    const c = order[2];
    const d = order[3];
    if (a === 'name' && b === 'changes' && c === 'result' && d === 'comment') return { name, changes: r.changes, result: r.result, comment: r.comment };
    if (a === 'changes' && b === 'comment' && c === 'name' && d === 'result') return { changes: r.changes, comment: r.comment, name, result: r.result };
  }
  const out: Record<string, unknown> = {};
  for (let i = 0; i < order.length; i++) {
    const k = order[i] as RetKey;
    out[k] = k === 'name' ? name : r[k];
  }
  return out;
}

export class StateCaller {
  constructor(private readonly o: CallerOptions) {}

  exists(state: string, fun: string): boolean {
    if (fun === 'mod_watch') return MOD_WATCH_STATES.has(state);
    return stateImpl(state, fun) !== undefined;
  }

  /** Salt's _run_check: evaluates unless/onlyif/creates; a `result: true` return means the state is skipped. */
  async runCheck(low: Chunk): Promise<Ret & { skip_watch?: boolean }> {
    const ret: Ret & { skip_watch?: boolean } = { result: false, comment: [] as string[], changes: undefined, __sls__: low.__sls__, __id__: low.__id__, name: low.name };
    delete (ret as Record<string, unknown>).changes;
    const comments = ret.comment as string[];
    const opts = this.cmdOptions(low);
    if ('onlyif' in low) {
      const r = await this.onlyif(low.onlyif, opts, low);
      ret.result = r.result;
      comments.push(r.comment);
      if (r.skip !== undefined) ret.skip_watch = r.skip;
    }
    if ('unless' in low) {
      const r = await this.unless(low.unless, opts, low);
      ret.result = r.result || ret.result;
      comments.push(r.comment);
      if (r.skip !== undefined) ret.skip_watch = r.skip || ret.skip_watch === true;
    }
    if ('creates' in low) {
      const r = await this.creates(low.creates);
      ret.result = r.result || ret.result;
      comments.push(r.comment);
      if (r.skip !== undefined) ret.skip_watch = r.skip || ret.skip_watch === true;
    }
    return ret;
  }

  private cmdOptions(low: Chunk): { cwd?: string; env?: Record<string, string>; shell?: string } {
    const out: { cwd?: string; env?: Record<string, string>; shell?: string } = {};
    if (typeof low.cwd === 'string') out.cwd = low.cwd;
    if (typeof low.shell === 'string') out.shell = low.shell;
    const env: Record<string, string> = {};
    const add = (o: unknown) => {
      if (o && typeof o === 'object' && !Array.isArray(o)) for (const [k, v] of Object.entries(o)) env[k] = pyStr(v);
    };
    if (Array.isArray(low.env)) low.env.forEach(add);
    else add(low.env);
    if (Object.keys(env).length > 0) out.env = env;
    return out;
  }

  /** cmd.retcode with python_shell=True. */
  async retcode(cmd: string, opts: { cwd?: string; env?: Record<string, string>; shell?: string }): Promise<number> {
    try {
      const r = await this.o.ctx.host.exec([opts.shell ?? '/bin/sh', '-c', cmd], { readOnly: true, ...(opts.cwd ? { cwd: opts.cwd } : {}), ...(opts.env ? { env: opts.env } : {}) });
      return r.code ?? 1;
    } catch {
      return 1;
    }
  }

  /** An execution function of the `fun:` form, with `get_return` applied to its value. */
  private async checkFunction(entry: Record<string, unknown>, low: Chunk): Promise<{ value: unknown; retcode: number } | { error: string }> {
    try {
      const r = await callFunction(this.o.ctx.host, entry, low);
      if (typeof entry.get_return === 'string') {
        let v: unknown = r.value;
        for (const k of entry.get_return.split(':')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
        return { value: v, retcode: r.retcode };
      }
      return r;
    } catch (e) {
      return { error: messageOf(e) };
    }
  }

  private async onlyif(v: unknown, opts: { cwd?: string; env?: Record<string, string> }, low: Chunk): Promise<{ result: boolean; comment: string; skip?: boolean }> {
    let ret: { result: boolean; comment: string; skip?: boolean } = { result: false, comment: '' };
    for (const entry of Array.isArray(v) ? v : [v]) {
      if (typeof entry === 'string') {
        const code = await this.retcode(entry, opts);
        if (code !== 0 && ret.result === false) return { comment: 'onlyif condition is false', skip: true, result: true };
        if (code === 0) ret = { ...ret, comment: 'onlyif condition is true', result: false };
      } else if (entry && typeof entry === 'object' && !Array.isArray(entry)) {
        if (!('fun' in entry)) return { ...ret, comment: `no \`fun\` argument in onlyif: ${pyStr(entry)}` };
        const r = await this.checkFunction(entry as Record<string, unknown>, low);
        if ('error' in r) return { comment: r.error, result: false };
        if (r.retcode !== 0 ? ret.result === false : !truthy(r.value)) return { comment: 'onlyif condition is false', skip: true, result: true };
        ret = { ...ret, comment: 'onlyif condition is true', result: false };
      } else {
        return { ...ret, comment: 'onlyif execution failed, bad type passed', result: false };
      }
    }
    return ret;
  }

  private async unless(v: unknown, opts: { cwd?: string; env?: Record<string, string> }, low: Chunk): Promise<{ result: boolean; comment: string; skip?: boolean }> {
    let ret: { result: boolean; comment: string; skip?: boolean } = { result: false, comment: '' };
    for (const entry of Array.isArray(v) ? v : [v]) {
      if (typeof entry === 'string') {
        const code = await this.retcode(entry, opts);
        if (code === 0) ret = { comment: 'unless condition is true', skip: true, result: true };
        else return { comment: 'unless condition is false', result: false };
      } else if (entry && typeof entry === 'object' && !Array.isArray(entry)) {
        if (!('fun' in entry)) return { ...ret, comment: `no \`fun\` argument in unless: ${pyStr(entry)}` };
        const r = await this.checkFunction(entry as Record<string, unknown>, low);
        if ('error' in r) return { comment: r.error, result: false };
        if (r.retcode !== 0 || !truthy(r.value)) return { comment: 'unless condition is false', result: false };
        ret = { comment: 'unless condition is true', skip: true, result: true };
      } else {
        ret = { ...ret, comment: 'unless condition is false, bad type passed', result: false };
      }
    }
    return ret;
  }

  private async creates(v: unknown): Promise<{ result: boolean; comment: string; skip?: boolean }> {
    const exists = async (p: unknown) => typeof p === 'string' && (await this.o.ctx.host.stat(p)) !== null;
    if (typeof v === 'string' && (await exists(v))) return { comment: `${v} exists`, result: true, skip: true };
    if (Array.isArray(v)) {
      let all = true;
      for (const p of v) if (!(await exists(p))) all = false;
      if (all) return { comment: 'All files in creates exist', result: true, skip: true };
    }
    return { comment: 'Creates files not found', result: false };
  }

  /** Salt's _run_check_cmd: the state's result decided by commands run after it. */
  async runCheckCmd(low: Chunk): Promise<Record<string, unknown>> {
    const ret: Record<string, unknown> = { result: false, __sls__: low.__sls__, __id__: low.__id__, name: low.name };
    const list = Array.isArray(low.check_cmd) ? low.check_cmd : [low.check_cmd];
    for (const entry of list) {
      const code = await this.retcode(pyStr(entry), {});
      if (code === 0 && ret.result === false) Object.assign(ret, { comment: 'check_cmd determined the state succeeded', result: true });
      else if (code !== 0) return Object.assign(ret, { comment: 'check_cmd determined the state failed', result: false });
    }
    return ret;
  }

  /**
   * The state function itself (no checks, no requisites). A state the shared kind can settle at once (a file
   * already in its state, a translation that fails) returns without a promise; the rest return one.
   */
  invoke(low: Chunk, test: boolean): Ret | Promise<Ret> {
    // cmd.wait, wait_script and wait_call do nothing by themselves; only their mod_watch runs.
    if (low.state === 'cmd' && (low.fun === 'wait' || low.fun === 'wait_script' || low.fun === 'wait_call')) return { name: low.name, changes: {}, result: true, comment: '' };
    const impl = stateImpl(low.state, low.fun);
    if (!impl) return { name: low.name, result: false, changes: {}, comment: `State '${low.state}.${low.fun}' was not found` };
    // The state function sees the chunk without Salt's guard keys (state functions never change a chunk).
    let chunk = low;
    if ('unless' in low || 'onlyif' in low || 'creates' in low) {
      chunk = { ...low };
      for (const g of GUARD_KEYS) delete chunk[g];
    }
    if (impl.call && (impl.calls === undefined || impl.calls(chunk))) return this.invokeCalled(low, chunk, impl, test);
    return this.invokeTranslated(low, chunk, impl, test, undefined);
  }

  /** A state function that may act by itself (impl.call); when it returns nothing, its translation applies. */
  private async invokeCalled(low: Chunk, chunk: Chunk, impl: StateImpl, test: boolean): Promise<Ret> {
    const callCtx = { host: this.o.ctx.host, translate: this.o.translate, test, invoke: async (sub: Chunk) => (await this.invoke(sub, test)) as unknown as SaltRet };
    const ret = await (impl.call as NonNullable<StateImpl['call']>)(chunk, callCtx).catch((e: unknown) => ({ result: false, comment: messageOf(e), changes: {} }));
    return this.invokeTranslated(low, chunk, impl, test, ret);
  }

  /** The state through its shared kind (check, then apply unless testing), or the return it already has. */
  private invokeTranslated(low: Chunk, chunk: Chunk, impl: StateImpl, test: boolean, called: SaltRet | undefined): Ret | Promise<Ret> {
    let ret: SaltRet | undefined = called;
    const t: Translation = ret || !impl.translate ? { fail: '' } : impl.translate(chunk, this.o.translate);
    const kind = 'fail' in t ? undefined : this.o.kinds.get(t.type);
    if (ret) {
      // The state function returned by itself.
    } else if ('fail' in t) {
      ret = { result: false, comment: t.fail, changes: {} };
      if (t.arg !== undefined) this.o.translate.warn?.(low, t.arg, t.fail);
    }
    else if (!kind) ret = { result: false, comment: `no resource kind ${t.type}`, changes: {} };
    else {
      const node: GraphNode = { id: `${low.state}_|-${low.__id__}_|-${pyStr(low.name)}_|-${low.fun}`, type: t.type, name: pyStr(low.name), params: t.params };
      try {
        const problems = kind.validate(t.params, node);
        if (problems.length > 0) ret = { result: false, comment: problems.map((d) => d.message).join('\n'), changes: {} };
        else {
          // A state already in its state is settled at once where the kind can tell (no check's promises).
          const now = checkAtOnce(kind, this.o.ctx, t.params, node);
          if (now === undefined) return this.checkThenApply(low, chunk, impl, test, kind, t.params, node);
          ret = this.fromCheck(now);
        }
      } catch (e) {
        ret = { result: false, comment: messageOf(e), changes: {} };
      }
    }
    return this.finishInvoke(chunk, impl, ret, called !== undefined, false, low, test);
  }

  /** A check's outcome in sync, or under test=True (nothing is applied). */
  private fromCheck(check: CheckOutcome): SaltRet {
    if (check.inSync) return { result: true, comment: check.comment ?? '', changes: {} };
    return { result: null, comment: check.comment ?? '', changes: (check.changes ?? {}) as Record<string, unknown> };
  }

  private async checkThenApply(low: Chunk, chunk: Chunk, impl: StateImpl, test: boolean, kind: Kind, params: Record<string, unknown>, node: GraphNode): Promise<Ret> {
    let ret: SaltRet;
    let skipWatch = false;
    try {
      const check: CheckOutcome = await kind.check(this.o.ctx, params, node);
      if (check.inSync || test) ret = this.fromCheck(check);
      else {
        const applied: ApplyOutcome = await kind.apply(this.o.ctx, params, check, node);
        skipWatch = applied.outputs?.skip_watch === true;
        const changes = (applied.changes ?? check.changes ?? {}) as Record<string, unknown>;
        ret = applied.ok ? { result: true, comment: applied.comment ?? check.comment ?? '', changes } : { result: false, comment: applied.comment ?? 'apply failed', changes };
      }
    } catch (e) {
      ret = { result: false, comment: messageOf(e), changes: {} };
    }
    return this.finishInvoke(chunk, impl, ret, false, skipWatch, low, test);
  }

  private finishInvoke(chunk: Chunk, impl: StateImpl, given: SaltRet, called: boolean, skipWatch: boolean, low: Chunk, test: boolean): Ret {
    // A state function that returned by itself has its final wording (its inner calls had theirs).
    const ret = impl.finish && !called ? impl.finish(chunk, given, { test }) : given;
    // Each function builds its return dict in its own key order (Salt's JSON keeps it).
    const out = retDict(impl.retOrder ?? NCRC, low.name, ret);
    if (skipWatch && ret.result === false) out.skip_watch = true;
    return out as Ret;
  }

  /** `state.mod_watch`: what a fired watch does, with the watched chunks that changed. */
  async modWatch(low: Chunk, test: boolean, changedWatches: string[]): Promise<Ret> {
    const sfun = String(low.sfun);
    if (low.state === 'test') {
      return {
        name: low.name,
        result: 'result' in low ? (low.result as boolean) : true,
        comment: 'comment' in low ? low.comment : 'Watch statement fired.',
        changes: 'changes' in low ? low.changes : { 'Requisites with changes': changedWatches },
      };
    }
    if (low.state === 'cmd') {
      if (['wait', 'run', 'watch', 'script', 'wait_script'].includes(sfun)) return this.invoke({ ...low, fun: sfun === 'wait' || sfun === 'watch' ? 'run' : sfun === 'wait_script' ? 'script' : sfun }, test);
      return { name: low.name, changes: {}, comment: `cmd.${sfun} does not work with the watch requisite, please use cmd.wait or cmd.wait_script`, result: false };
    }
    // Other states: the shared kind's watch action (a service restart, …).
    const impl = stateImpl(low.state, sfun);
    if (!impl) return { name: low.name, result: false, changes: {}, comment: `State '${low.state}.mod_watch' was not found` };
    if (!impl.translate) return this.invoke({ ...low, fun: sfun }, test);
    const t = impl.translate({ ...low, fun: sfun }, { ...this.o.translate });
    if ('fail' in t) return { name: low.name, result: false, changes: {}, comment: t.fail };
    const kind = this.o.kinds.get(t.type);
    if (!kind?.watch) return this.invoke({ ...low, fun: sfun }, test);
    const node: GraphNode = { id: `${low.state}_|-${low.__id__}_|-${pyStr(low.name)}_|-${sfun}`, type: t.type, name: pyStr(low.name), params: t.params };
    if (low.state === 'service') {
      // service.mod_watch says in test mode what it would do; it runs even on an unchanged service.
      const w = await serviceWatch(this.o.ctx, t.params, test).catch((e: unknown) => ({ result: false, comment: messageOf(e), changes: {} }));
      return { name: low.name, changes: w.changes ?? {}, result: w.result, comment: w.comment ?? '' };
    }
    if (test) return this.invoke({ ...low, fun: sfun }, test);
    try {
      const w = await kind.watch(this.o.ctx, t.params, node);
      return { name: low.name, result: w.ok, comment: w.comment ?? '', changes: w.changes ?? {} };
    } catch (e) {
      return { name: low.name, result: false, comment: messageOf(e), changes: {} };
    }
  }
}
