/**
 * The OtterScript executer: runs statements in order, keeps the execution status (Normal, Warning,
 * Error), halts on a raised error unless a `try` catches it, and scopes variables block by block.
 */
import { posix } from 'node:path';
import type { Span } from '../../core/diag.js';
import type { Block, ContextType, Expr, LogLevel, ModuleDecl, Script, Statement, VarTarget } from './ast.js';
import { runAction } from './action.js';
import { runAwait, runWith } from './directives.js';
import type { EngineOptions, Frame, Shared, Status } from './engine-types.js';
import { at, ControlSignal, OtterError } from './errors.js';
import { type EvalEnv, evaluate, test } from './evaluate.js';
import { ExecutionLog } from './log.js';
import { parseRuntimeTemplate } from './parse-expr.js';
import { Scope } from './scope.js';
import { isMap, isVector, mapGet, mapWith, sigilOf, toText, typeName, type Value } from './values.js';

const LEVEL_RANK: Readonly<Record<LogLevel, number>> = { DEBUG: 0, INFO: 1, WARN: 2, ERROR: 3 };

export interface Child {
  readonly token: string | undefined;
  readonly engine: Engine;
  done: Promise<void>;
  error?: OtterError | ControlSignal;
}

const NO_OP = (): void => {};

/** `$ServersInRole(role)`: the servers that have the role (the inventory's, or only the one in context without one). */
function serversInRole(o: EngineOptions, frame: Frame, role: string): string[] {
  const has = (roles: readonly string[]): boolean => roles.some((r) => r.toLowerCase() === role.toLowerCase());
  if (!o.servers) return has(frame.server.roles) ? [frame.server.name] : [];
  const dir = o.servers;
  return dir.names.filter((n) => has(dir.rolesOf(n)));
}

/** Nested module calls allowed before a call is refused (a module that calls itself without end). */
export const MAX_CALL_DEPTH = 200;

export class Engine {
  status: Status = 'normal';
  readonly log = new ExecutionLog();
  readonly children: Child[] = [];

  /** True for the engine of a `with async` block (its own async blocks do not take a `--jobs` slot). */
  nested = false;

  constructor(readonly shared: Shared) {}

  write(level: LogLevel, text: string): void {
    if (level === 'ERROR') this.status = 'error';
    else if (level === 'WARN' && this.status === 'normal') this.status = 'warning';
    const from = this.shared.options.keepLogFrom;
    if (from !== undefined && LEVEL_RANK[level] < LEVEL_RANK[from]) return;
    this.log.write(level, this.shared.secrets.mask(text));
  }

  /** Opens a log scope when there is a description. */
  scope(description: string | undefined): () => void {
    return description === undefined ? NO_OP : this.log.open(this.shared.secrets.mask(description));
  }

  rootFrame(): Frame {
    const o = this.shared.options;
    return { scope: this.shared.global, blockId: '', instance: '', cwd: o.root, role: '', server: { name: o.serverName, host: o.host, roles: o.roles }, policyAlways: false, locked: false, inLoop: false, cancels: [], depth: 0 };
  }

  env(frame: Frame): EvalEnv {
    const o = this.shared.options;
    const env: EvalEnv = {
      scope: frame.scope,
      config: this.shared.config,
      host: frame.server.host,
      cwd: frame.cwd,
      simulation: o.simulation,
      serverName: frame.server.name,
      allServers: o.servers?.names ?? [frame.server.name],
      serversInRole: (role) => serversInRole(o, frame, role),
      roleName: frame.role,
      environmentName: o.environmentName,
      executionState: () => this.status,
      evalText: async (text: string, span: Span) => toText(await evaluate(parseRuntimeTemplate(text, span, '$Eval text'), env)),
      isDefined: (name, sigil) =>
        (sigil ? [sigil] : (['$', '@', '%'] as const)).some((s) => frame.scope.get(s, name) !== undefined || (s === '$' && this.shared.config.has(name.toLowerCase()))),
    };
    return env;
  }

  eval(expr: Expr, frame: Frame): Promise<Value> {
    return evaluate(expr, this.env(frame));
  }

  /** Runs the whole script; errors end up in the log and the status, never thrown. */
  async runScript(script: Script): Promise<void> {
    const frame = this.rootFrame();
    try {
      for (const g of script.globals) {
        const value = g.value ? await this.eval(g.value, frame) : g.target.sigil === '$' ? '' : g.target.sigil === '@' ? [] : new Map();
        this.assign(g.target, value, frame, 'global');
      }
      // The script's own block is a scope below the global one: only `global` declarations are shared with async blocks.
      await this.block(script.body, frame);
    } catch (e) {
      this.settle(e);
    } finally {
      // The end of a script awaits every asynchronous block still running.
      try {
        await runAwait(this, undefined, undefined, true);
      } catch (e) {
        this.settle(e);
      }
    }
  }

  /** What ends an execution early: a raised error was already logged; `return` is a normal end. */
  private settle(e: unknown): void {
    if (e instanceof ControlSignal) {
      if (e.kind === 'fail') this.status = 'error';
      return;
    }
    if (e instanceof OtterError) {
      if (!e.logged) this.write('ERROR', `${at(e.span)}${e.message}`);
      this.status = 'error';
      return;
    }
    throw e;
  }

  async block(block: Block, frame: Frame, scope: Scope = new Scope(frame.scope)): Promise<void> {
    for (const m of block.modules) scope.modules.set(m.name.toLowerCase(), m);
    const inner: Frame = { ...frame, scope, blockId: `${block.id}${frame.instance}` };
    for (const s of block.body) {
      const running = this.statement(s, inner);
      if (running instanceof Promise) await running;
    }
  }

  /** Runs a statement: an operation call that settles at once (most of them) without a promise. */
  statement(stmt: Statement, frame: Frame): void | Promise<void> {
    // Once a timeout has expired no statement of its block starts; the `with` block reports the timeout.
    const expired = frame.cancels.length === 0 ? undefined : frame.cancels.find((c) => c.reason !== undefined);
    if (expired) throw Object.assign(new OtterError(expired.reason ?? 'timed out', stmt.span), { logged: true });
    const before = this.status;
    try {
      // An operation call (most statements) is run directly, not through dispatch's promise.
      const running = stmt.kind === 'action' ? runAction(this, stmt, frame) : this.dispatch(stmt, frame);
      if (running instanceof Promise) return running.catch((e: unknown) => this.raised(e, before));
    } catch (e) {
      this.raised(e, before);
    }
  }

  /** What a statement raised, logged once (with the status before the statement), raised again. */
  private raised(e: unknown, before: Status): never {
    if (e instanceof OtterError) {
      const r = e as OtterError & { statusBefore?: Status };
      r.statusBefore ??= before;
      if (!e.logged) this.write('ERROR', `${at(e.span)}${e.message}`);
      e.logged = true;
    }
    throw e;
  }

  private async dispatch(stmt: Statement, frame: Frame): Promise<void> {
    switch (stmt.kind) {
      case 'action':
        return runAction(this, stmt, frame);
      case 'log':
        this.write(stmt.level, toText(await this.eval(stmt.message, frame)));
        return;
      case 'set':
        this.assign(stmt.target, await this.eval(stmt.value, frame), frame, stmt.modifier);
        return;
      case 'global':
        throw new OtterError('global declarations must come before every other statement of the script', stmt.span, true);
      case 'anonymous': {
        const close = this.scope(stmt.description);
        try {
          return await this.block(stmt.body, frame);
        } finally {
          close();
        }
      }
      case 'if': {
        const close = this.scope(stmt.description);
        try {
          if (await test(stmt.predicate, this.env(frame))) await this.block(stmt.then, frame);
          else if (stmt.else) await this.block(stmt.else, frame);
        } finally {
          close();
        }
        return;
      }
      case 'foreach':
        return this.foreach(stmt, frame);
      case 'context': {
        const close = this.scope(stmt.description);
        try {
          const inner = await this.enterContext(stmt.contextType, toText(await this.eval(stmt.value, frame)), frame, stmt.span);
          if (inner) await this.block(stmt.body, inner);
        } finally {
          close();
        }
        return;
      }
      case 'with':
        return runWith(this, stmt, frame);
      case 'await':
        return runAwait(this, stmt.token, stmt.span, false);
      case 'try':
        return this.tryStatement(stmt.body, stmt.handler, stmt.description, frame);
      case 'call':
        return this.call(stmt, frame);
      case 'throw':
        // Seed: a message is written as an error; without one, only the status changes.
        if (stmt.message) this.write('ERROR', toText(await this.eval(stmt.message, frame)));
        else this.status = 'error';
        throw Object.assign(new OtterError('error thrown', stmt.span), { logged: true });
      case 'error':
        this.status = 'error';
        return;
      case 'fail':
        this.status = 'error';
        throw new ControlSignal('fail');
      case 'warn':
        if (this.status !== 'error') this.status = 'warning';
        return;
      case 'force-warn':
        this.status = 'warning';
        return;
      case 'force-normal':
        this.status = 'normal';
        return;
      case 'break':
      case 'continue':
        if (!frame.inLoop) {
          this.write('WARN', `${stmt.kind} outside of a loop has no effect.`);
          return;
        }
        throw new ControlSignal(stmt.kind);
      case 'return':
        throw new ControlSignal('return');
    }
  }

  private async tryStatement(body: Block, handler: Block, description: string | undefined, frame: Frame): Promise<void> {
    const close = this.scope(description);
    try {
      await this.block(body, frame);
    } catch (e) {
      if (!(e instanceof OtterError) || e.fatal) throw e;
      // Seed: the handler runs "instead of reporting an error and changing the execution state".
      const before = (e as OtterError & { statusBefore?: Status }).statusBefore;
      if (before !== undefined) this.status = before;
      await this.block(handler, frame);
    } finally {
      close();
    }
  }

  private async foreach(stmt: Extract<Statement, { kind: 'foreach' }>, frame: Frame): Promise<void> {
    const close = this.scope(stmt.description);
    try {
      const source = await this.eval(stmt.source, frame);
      if (!isVector(source)) throw new OtterError(`foreach needs a vector to iterate, got a ${typeName(sigilOf(source))}`, stmt.source.span);
      for (const [index, item] of source.entries()) {
        const scope = new Scope(frame.scope);
        let inner: Frame | undefined = { ...frame, scope, inLoop: true, instance: `${frame.instance}#${index}` };
        if (stmt.variable) scope.set(sigilOf(item), stmt.variable.name, item);
        else if (stmt.contextType) inner = await this.enterContext(stmt.contextType, toText(item), inner, stmt.span);
        if (!inner) continue;
        const closeItem = this.scope(stmt.description === undefined ? undefined : toText(item));
        try {
          await this.block(stmt.body, inner, new Scope(scope));
        } catch (e) {
          if (e instanceof ControlSignal && e.kind === 'break') break;
          if (e instanceof ControlSignal && e.kind === 'continue') continue;
          throw e;
        } finally {
          closeItem();
        }
      }
    } finally {
      close();
    }
  }

  /** A new context for `for`/context iteration; undefined when the block is skipped (a role the server lacks). */
  private async enterContext(type: ContextType, value: string, frame: Frame, span: Span): Promise<Frame | undefined> {
    const o = this.shared.options;
    switch (type) {
      case 'directory':
        return { ...frame, cwd: posix.resolve(frame.cwd, value) };
      case 'role':
        // Seed: the whole block is skipped when the server in context does not have the role.
        if (!frame.server.roles.some((r) => r.toLowerCase() === value.toLowerCase())) return undefined;
        return { ...frame, role: value };
      case 'server': {
        if (value.toLowerCase() === frame.server.name.toLowerCase() || value.toLowerCase() === 'localhost') return frame;
        // Seed: "if the execution allows it": an execution over an inventory may switch to any of its servers.
        if (!o.servers) throw new OtterError(`cannot switch to server ${value}: this execution runs on its own server only (localhost, or its host name)`, span);
        const server = o.servers.server(value);
        if (!server) throw new OtterError(`cannot switch to server ${value}: it is not in the inventory (it has ${o.servers.names.join(', ')})`, span);
        return { ...frame, server };
      }
    }
  }

  /** `set`: the nearest existing variable, else a new one in the current scope (seed), or as the modifier says. */
  assign(target: VarTarget, value: Value, frame: Frame, modifier?: 'local' | 'global'): void {
    const scope =
      modifier === 'local'
        ? frame.scope
        : modifier === 'global'
          ? this.shared.global
          : (frame.scope.holder(target.sigil, target.name) ?? (target.accessors.length > 0 ? undefined : frame.scope));
    if (target.accessors.length === 0) {
      if (sigilOf(value) !== target.sigil) {
        throw new OtterError(`cannot assign a ${typeName(sigilOf(value))} to the ${typeName(target.sigil)} variable ${target.sigil}${target.name}`, target.span);
      }
      scope?.set(target.sigil, target.name, value);
      return;
    }
    const current = scope?.get(target.sigil, target.name);
    if (!scope || current === undefined) throw new OtterError(`variable ${target.sigil}${target.name} is not defined`, target.span);
    scope.set(target.sigil, target.name, this.setPath(current, target, 0, value));
  }

  private setPath(container: Value, target: VarTarget, i: number, value: Value): Value {
    const acc = target.accessors[i];
    if (!acc) return value;
    if (acc.kind === 'index' && acc.expr.kind !== 'text') throw new OtterError('an index in an assignment must be a text', target.span);
    const key = acc.kind === 'prop' ? acc.name : acc.expr.kind === 'text' ? acc.expr.parts.map((p) => (typeof p === 'string' ? p : '')).join('') : '';
    if (isVector(container)) {
      const idx = Number(key);
      if (!Number.isInteger(idx) || idx < 0 || idx >= container.length) throw new OtterError(`index ${key} is outside the vector`, target.span);
      const copy = [...container];
      copy[idx] = this.setPath(container[idx] as Value, target, i + 1, value);
      return copy;
    }
    if (isMap(container)) return mapWith(container, key, this.setPath(mapGet(container, key) ?? new Map(), target, i + 1, value));
    throw new OtterError(`cannot index the scalar ${target.sigil}${target.name}`, target.span);
  }

  private async call(stmt: Extract<Statement, { kind: 'call' }>, frame: Frame): Promise<void> {
    // Seed: without a raft name, the scopes first, then the current raft; with one, that raft only.
    const raft = this.shared.raft;
    if (stmt.raft !== undefined && raft.raftDir(stmt.raft) === undefined) throw new OtterError(`raft ${stmt.raft} was not found (name it with --raft ${stmt.raft}=DIR)`, stmt.span);
    const found: ModuleDecl | undefined = (stmt.raft === undefined ? frame.scope.module(stmt.name) : undefined) ?? (await raft.find(stmt.name, stmt.raft));
    if (!found) throw new OtterError(`module ${stmt.raft ? `${stmt.raft}::` : ''}${stmt.name} was not found`, stmt.span);
    if (frame.depth >= MAX_CALL_DEPTH) throw new OtterError(`module ${found.name} is called more than ${MAX_CALL_DEPTH} levels deep; a module that calls itself needs a condition that ends the recursion`, stmt.span);
    const scope = new Scope(frame.scope);
    const given = new Map(stmt.args.map((a) => [a.name.toLowerCase(), a]));
    for (const p of found.params) {
      const arg = given.get(p.name.toLowerCase());
      given.delete(p.name.toLowerCase());
      let value: Value;
      if (arg) value = await this.eval(arg.value, frame);
      else if (p.default) value = await this.eval(p.default, { ...frame, scope });
      else if (p.out || stmt.outputs.some((o) => o.name.toLowerCase() === p.name.toLowerCase())) value = p.sigil === '$' ? '' : p.sigil === '@' ? [] : new Map();
      else throw new OtterError(`module ${found.name} needs the argument ${p.name}`, stmt.span);
      if (sigilOf(value) !== p.sigil) throw new OtterError(`argument ${p.name} of ${found.name} must be a ${typeName(p.sigil)}`, arg?.span ?? stmt.span);
      scope.set(p.sigil, p.name, value);
    }
    const extra = [...given.values()][0];
    if (extra) throw new OtterError(`module ${found.name} has no parameter ${extra.name}`, extra.span);
    const close = this.scope(stmt.description);
    try {
      await this.block(found.body, { ...frame, scope, inLoop: false, depth: frame.depth + 1, instance: `${frame.instance}@${stmt.span.file}:${stmt.span.line}:${stmt.span.col}` });
    } catch (e) {
      if (!(e instanceof ControlSignal && e.kind === 'return')) throw e;
    } finally {
      close();
    }
    for (const o of stmt.outputs) {
      const p = found.params.find((x) => x.name.toLowerCase() === o.name.toLowerCase());
      if (!p) throw new OtterError(`module ${found.name} has no parameter ${o.name}`, o.span);
      this.assign(o.target, scope.get(p.sigil, p.name) ?? '', frame);
    }
  }
}
