/** Walks a TemplateAst and writes output, with Jinja2's scoping (for/with/macro bodies are new scopes). */

import type { CallArgs, Expr, MacroParam, Stmt, Target, TemplateAst } from './ast.js';
import { maxIterations, PyError, typeError, valueError } from './errors.js';
import { evalExpr, type ExprHost } from './eval-expr.js';
import { BREAK, CONTINUE } from './parser.js';
import { LoopContext, Macro, Namespace, TemplateModule } from './runtime-objects.js';
import { PyCallable, PyDict, PyObject, PyTuple, pyIter, pyStr, truthy, Undefined, type PyValue } from './pyvalue.js';
import type { FilterFn } from './filters.js';
import type { TestFn } from './tests.js';

export class Scope {
  readonly vars = new Map<string, PyValue>();
  constructor(readonly parent: Scope | null) {}
  lookup(name: string): PyValue | undefined {
    for (let s: Scope | null = this; s; s = s.parent) {
      const v = s.vars.get(name);
      if (v !== undefined) return v;
    }
    return undefined;
  }
}

/** What the interpreter needs from its environment. */
export interface RuntimeEnv {
  readonly filters: ReadonlyMap<string, FilterFn>;
  readonly tests: ReadonlyMap<string, TestFn>;
  readonly globals: ReadonlyMap<string, PyValue>;
  readonly strict: boolean;
  /** Loads and parses a template by name; undefined when not found. */
  load(name: string): TemplateAst | undefined;
}

class LoopSignal {
  constructor(readonly kind: typeof BREAK | typeof CONTINUE) {}
}

const usesCache = new WeakMap<object, Set<string>>();

/** Names a macro body refers to (for varargs / kwargs / caller). */
function referencedNames(body: readonly Stmt[]): Set<string> {
  const cached = usesCache.get(body);
  if (cached) return cached;
  const names = new Set<string>();
  const walk = (n: unknown): void => {
    if (Array.isArray(n)) n.forEach(walk);
    else if (n && typeof n === 'object') {
      const o = n as { kind?: string; name?: string };
      if (o.kind === 'name' && typeof o.name === 'string') names.add(o.name);
      if (o.kind === 'macro') return;
      for (const v of Object.values(o)) if (v && typeof v === 'object') walk(v);
    }
  };
  walk(body);
  usesCache.set(body, names);
  return names;
}

export class Interpreter implements ExprHost {
  tpl: TemplateAst;
  pos = 0;
  private depth = 0;
  /** Loop-body runs so far in this render, against the budget. */
  private iterations = 0;
  private readonly maxIterations = maxIterations();
  private readonly moduleCache = new Map<string, TemplateModule>();

  constructor(readonly env: RuntimeEnv, root: TemplateAst, readonly context: ReadonlyMap<string, PyValue>) {
    this.tpl = root;
  }

  get strict(): boolean {
    return this.env.strict;
  }

  undef(message: string): Undefined {
    return new Undefined(message, this.env.strict);
  }

  lookup(scope: Scope, name: string): PyValue {
    const v = scope.lookup(name);
    if (v !== undefined) return v;
    if (!this.ctxOverride && this.context.has(name)) return this.context.get(name);
    if (this.env.globals.has(name)) return this.env.globals.get(name);
    return this.undef(`'${name}' is undefined`);
  }

  renderRoot(scope: Scope): string {
    const out: string[] = [];
    const blocks = new Map<string, { tpl: TemplateAst; body: readonly Stmt[] }>();
    let tpl = this.tpl;
    for (;;) {
      const ext = tpl.body.find((s) => s.kind === 'extends');
      collectBlocks(tpl, blocks);
      if (ext?.kind !== 'extends') break;
      this.tpl = tpl;
      this.pos = ext.at;
      const parentName = pyStr(evalExpr(this, ext.template, scope));
      const parent = this.loadOrFail(parentName);
      // The child's top-level sets still run (they may define names the blocks use).
      this.execBody(tpl.body.filter((s) => s.kind === 'set' || s.kind === 'import' || s.kind === 'fromimport' || s.kind === 'macro'), scope, []);
      tpl = parent;
    }
    this.tpl = tpl;
    this.blocks = blocks;
    this.execBody(tpl.body, scope, out);
    return out.join('');
  }

  private blocks = new Map<string, { tpl: TemplateAst; body: readonly Stmt[] }>();

  loadOrFail(name: string): TemplateAst {
    const t = this.env.load(name);
    if (!t) throw new PyError('TemplateNotFound', name);
    return t;
  }

  execBody(body: readonly Stmt[], scope: Scope, out: string[]): void {
    for (const s of body) this.exec(s, scope, out);
  }

  private exec(s: Stmt, scope: Scope, out: string[]): void {
    if (s.kind === 'output') {
      out.push(s.text);
      return;
    }
    try {
      this.pos = s.at;
      this.execStmt(s, scope, out);
    } catch (e) {
      if (e instanceof PyError && e.offset === undefined) {
        e.offset = this.pos;
        e.file = this.tpl.file;
        e.source = this.tpl.source;
      }
      throw e;
    }
  }

  private execStmt(s: Stmt, scope: Scope, out: string[]): void {
    switch (s.kind) {
      case 'output':
        out.push(s.text);
        return;
      case 'print':
        out.push(pyStr(evalExpr(this, s.expr, scope)));
        return;
      case 'if':
        this.execBody(truthy(evalExpr(this, s.test, scope)) ? s.body : s.otherwise, scope, out);
        return;
      case 'for':
        this.execFor(s, scope, out);
        return;
      case 'set':
        this.assign(s.target, evalExpr(this, s.value, scope), scope);
        return;
      case 'setblock': {
        const inner: string[] = [];
        this.execBody(s.body, scope, inner);
        let v: PyValue = inner.join('');
        for (const f of s.filters) v = this.applyFilterChain(f, v, scope);
        this.assign(s.target, v, scope);
        return;
      }
      case 'macro':
        scope.vars.set(s.name, this.makeMacro(s.name, s.params, s.body, scope, false));
        return;
      case 'callblock':
        this.execCallBlock(s, scope, out);
        return;
      case 'import': {
        const mod = this.importModule(s.template, scope, s.withContext);
        scope.vars.set(s.alias, mod);
        return;
      }
      case 'fromimport': {
        const mod = this.importModule(s.template, scope, s.withContext);
        const line = this.tpl.source.slice(0, s.at).split('\n').length;
        for (const [name, alias] of s.names) {
          const v = mod.exports.get(name);
          scope.vars.set(alias, v !== undefined ? v : this.undef(`the template '${mod.name}' (imported on line ${line}) does not export the requested name '${name}'`));
        }
        return;
      }
      case 'include':
        this.execInclude(s, scope, out);
        return;
      case 'with': {
        const inner = new Scope(scope);
        const values = s.assigns.map(([, e]) => evalExpr(this, e, scope));
        s.assigns.forEach(([t], i) => {
          this.assign(t, values[i], inner);
        });
        this.execBody(s.body, inner, out);
        return;
      }
      case 'do': {
        const e = s.expr;
        if (e.kind === 'const' && (e.value === BREAK || e.value === CONTINUE)) throw new LoopSignal(e.value);
        evalExpr(this, e, scope);
        return;
      }
      case 'filterblock': {
        const inner: string[] = [];
        this.execBody(s.body, scope, inner);
        let v: PyValue = inner.join('');
        for (const f of s.filters) v = this.applyFilterChain(f, v, scope);
        out.push(pyStr(v));
        return;
      }
      case 'block': {
        const b = this.blocks.get(s.name) ?? { tpl: this.tpl, body: s.body };
        const saved = this.tpl;
        this.tpl = b.tpl;
        try {
          this.execBody(b.body, new Scope(scope), out);
        } finally {
          this.tpl = saved;
        }
        return;
      }
      case 'extends':
        return;
    }
  }

  private execFor(s: Extract<Stmt, { kind: 'for' }>, scope: Scope, out: string[]): void {
    const iterable = evalExpr(this, s.iter, scope);
    let items = iterable instanceof PyObject || iterable instanceof PyCallable ? [] : pyIter(iterable);
    if (iterable instanceof PyObject || iterable instanceof PyCallable) throw typeError(`'${iterable instanceof PyObject ? iterable.typeName : 'function'}' object is not iterable`);
    if (s.filter) {
      const f = s.filter;
      items = items.filter((item) => {
        const tmp = new Scope(scope);
        this.assign(s.target, item, tmp);
        return truthy(evalExpr(this, f, tmp));
      });
    } else if (!Array.isArray(iterable)) items = [...items];
    // Jinja marks the loop as iterated only when a body run completes (break/continue skip that).
    let iterated = false;
    const loop = new LoopContext(items, (m) => this.undef(m));
    for (let i = 0; i < items.length; i++) {
      if (++this.iterations > this.maxIterations) throw new PyError('RuntimeError', `loops ran more than ${this.maxIterations} times in one render`);
      loop.index0 = i;
      const iter = new Scope(scope);
      iter.vars.set('loop', loop);
      this.assign(s.target, items[i], iter);
      try {
        this.execBody(s.body, iter, out);
        iterated = true;
      } catch (e) {
        if (e instanceof LoopSignal) {
          if (e.kind === BREAK) break;
          continue;
        }
        throw e;
      }
    }
    if (!iterated) this.execBody(s.otherwise, scope, out);
  }

  assign(t: Target, value: PyValue, scope: Scope): void {
    switch (t.kind) {
      case 'name':
        scope.vars.set(t.name, value);
        return;
      case 'nsattr': {
        const ns = this.lookup(scope, t.name);
        if (!(ns instanceof Namespace)) throw new PyError('TemplateRuntimeError', 'cannot assign attribute on non-namespace object');
        ns.setAttr(t.attr, value);
        return;
      }
      case 'tuple': {
        const items = pyIter(value);
        if (items.length > t.items.length) throw valueError(`too many values to unpack (expected ${t.items.length})`);
        if (items.length < t.items.length) throw valueError(`not enough values to unpack (expected ${t.items.length}, got ${items.length})`);
        t.items.forEach((sub, i) => {
          this.assign(sub, items[i], scope);
        });
        return;
      }
    }
  }

  applyFilterChain(f: Expr, input: PyValue, scope: Scope): PyValue {
    if (f.kind !== 'filter') return input;
    const base = f.value === null ? input : this.applyFilterChain(f.value, input, scope);
    return this.callFilter(f.name, base, f.args, scope);
  }

  callFilter(name: string, value: PyValue, argsAst: CallArgs, scope: Scope): PyValue {
    const f = this.env.filters.get(name);
    // Unknown names outside a soft frame fail at compile time (check-names.ts); here only the deferred ones.
    if (!f) throw new PyError('TemplateRuntimeError', `No filter named '${name}' found.`);
    const { args, kwargs } = this.evalArgs(argsAst, scope);
    return f(this, value, args, kwargs);
  }

  evalArgs(a: CallArgs, scope: Scope): { args: PyValue[]; kwargs: Map<string, PyValue> } {
    const args = a.args.map((e) => evalExpr(this, e, scope));
    if (a.star) args.push(...pyIter(evalExpr(this, a.star, scope)));
    const kwargs = new Map<string, PyValue>();
    for (const [k, e] of a.kwargs) kwargs.set(k, evalExpr(this, e, scope));
    if (a.dstar) {
      const d = evalExpr(this, a.dstar, scope);
      if (!(d instanceof PyDict)) throw typeError('argument after ** must be a mapping');
      for (const [k, v] of d.entries()) kwargs.set(String(k), v);
    }
    return { args, kwargs };
  }

  makeMacro(name: string, params: readonly MacroParam[], body: readonly Stmt[], defScope: Scope, isCaller: boolean): Macro {
    const refs = referencedNames(body);
    const catchVarargs = refs.has('varargs');
    const catchKwargs = refs.has('kwargs');
    const usesCaller = refs.has('caller');
    const tpl = this.tpl;
    const noContext = this.ctxOverride;
    const names = params.map((p) => p.name);
    return new Macro(name, names, catchVarargs, catchKwargs, usesCaller, (args, kwargs) => {
      const local = new Scope(defScope);
      const kw = new Map(kwargs);
      if (args.length > params.length && !catchVarargs) {
        throw typeError(`macro '${name}' takes not more than ${params.length} argument(s)`);
      }
      const saved = this.tpl;
      const savedPos = this.pos;
      const savedCtx = this.ctxOverride;
      this.tpl = tpl;
      this.ctxOverride = noContext;
      if (++this.depth > 500) throw new PyError('RecursionError', 'maximum recursion depth exceeded');
      try {
        params.forEach((p, i) => {
          let v: PyValue;
          if (i < args.length) {
            if (kw.has(p.name)) throw typeError(`macro '${name}' got multiple values for argument '${p.name}'`);
            v = args[i];
          } else if (kw.has(p.name)) {
            v = kw.get(p.name);
            kw.delete(p.name);
          } else if (p.default) v = evalExpr(this, p.default, local);
          else v = this.undef(`parameter '${p.name}' was not provided`);
          local.vars.set(p.name, v);
        });
        if (usesCaller && !isCaller) {
          const c = kw.get('caller');
          kw.delete('caller');
          local.vars.set('caller', c ?? this.undef("No caller defined"));
        }
        if (catchVarargs) local.vars.set('varargs', new PyTuple(args.slice(params.length)));
        if (catchKwargs) local.vars.set('kwargs', new PyDict(kw));
        else if (kw.size > 0) {
          throw typeError(`macro '${name}' takes no keyword argument '${[...kw.keys()][0]}'`);
        }
        const out: string[] = [];
        this.execBody(body, local, out);
        return out.join('');
      } finally {
        this.depth--;
        this.ctxOverride = savedCtx;
        this.tpl = saved;
        this.pos = savedPos;
      }
    });
  }

  private execCallBlock(s: Extract<Stmt, { kind: 'callblock' }>, scope: Scope, out: string[]): void {
    const call = s.call;
    if (call.kind !== 'call') return;
    const caller = this.makeMacro('caller', s.params, s.body, scope, true);
    const fn = evalExpr(this, call.fn, scope);
    const { args, kwargs } = this.evalArgs(call.args, scope);
    kwargs.set('caller', caller);
    this.pos = s.at;
    out.push(pyStr(this.callValue(fn, args, kwargs)));
  }

  callValue(fn: PyValue, args: PyValue[], kwargs: Map<string, PyValue>): PyValue {
    if (fn instanceof PyCallable) return fn.fn(args, kwargs);
    if (fn instanceof Undefined) fn.fail();
    throw typeError(`'${fn === null ? 'NoneType' : typeof fn === 'string' ? 'str' : typeof fn === 'number' ? 'int' : 'object'}' object is not callable`);
  }

  private importModule(nameExpr: Expr, scope: Scope, withContext: boolean): TemplateModule {
    const name = pyStr(evalExpr(this, nameExpr, scope));
    const cached = withContext ? undefined : this.moduleCache.get(name);
    if (cached) return cached;
    const t = this.loadOrFail(name);
    const modScope = new Scope(withContext ? scope : null);
    const out = this.runTemplate(t, modScope, withContext);
    const exports = new Map<string, PyValue>();
    for (const [k, v] of modScope.vars) if (!k.startsWith('_')) exports.set(k, v);
    const mod = new TemplateModule(name, exports, out);
    if (!withContext) this.moduleCache.set(name, mod);
    return mod;
  }

  private runTemplate(t: TemplateAst, scope: Scope, withContext: boolean): string {
    const saved = this.tpl;
    const savedCtx = this.ctxOverride;
    this.tpl = t;
    if (!withContext) this.ctxOverride = true;
    try {
      const out: string[] = [];
      this.execBody(t.body, scope, out);
      return out.join('');
    } finally {
      this.tpl = saved;
      this.ctxOverride = savedCtx;
    }
  }

  /** True while rendering an imported template without context: only globals are visible. */
  ctxOverride = false;

  private execInclude(s: Extract<Stmt, { kind: 'include' }>, scope: Scope, out: string[]): void {
    const v = evalExpr(this, s.template, scope);
    const names = Array.isArray(v) ? v.map(pyStr) : [pyStr(v)];
    let t: TemplateAst | undefined;
    for (const n of names) {
      t = this.env.load(n);
      if (t) break;
    }
    if (!t) {
      if (s.ignoreMissing) return;
      if (names.length > 1) throw new PyError('TemplatesNotFound', `none of the templates given were found: ${names.join(', ')}`);
      throw new PyError('TemplateNotFound', names[0] ?? '');
    }
    out.push(this.runTemplate(t, new Scope(s.withContext ? scope : null), s.withContext));
  }
}

function collectBlocks(tpl: TemplateAst, blocks: Map<string, { tpl: TemplateAst; body: readonly Stmt[] }>): void {
  const walk = (body: readonly Stmt[]): void => {
    for (const s of body) {
      if (s.kind === 'block') {
        if (!blocks.has(s.name)) blocks.set(s.name, { tpl, body: s.body });
        walk(s.body);
      } else if (s.kind === 'if' || s.kind === 'for') {
        walk(s.body);
        walk(s.otherwise);
      }
    }
  };
  walk(tpl.body);
}
