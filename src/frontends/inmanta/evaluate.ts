/** Expression evaluation. A missing input throws `Wait`; the unit reruns later with its side effects memoised. */
import type { Span } from '../../core/diag.js';
import { formatSpec, PyFloat } from '../../lang/jinja/index.js';
import type { Expr, KwArg, StrPart } from './ast.js';
import { pyTypeName, readAttribute } from './attributes.js';
import type { Ctx, Staged } from './context.js';
import { InmantaError } from './errors.js';
import type { Instance } from './instance.js';
import { Scope } from './namespace.js';
import { callPlugin } from './plugins.js';
import type { EntityType } from './types.js';
import { Float, interpolatedText, isDict, isFloat, isInstance, num, pyEquals, pyRepr, pyStr, truthy, typeName, type Value } from './values.js';
import { KnownVar, ProxyVar, ResultVar, type Var } from './vars.js';

/**
 * `Type(...)` is built by the statement executor (execute.ts), which registers it here when it loads:
 * evaluating and constructing call each other, and the registration keeps the imports one-way.
 */
type Constructor = (ctx: Ctx, e: Extract<Expr, { kind: 'new' }>, expected: EntityType | undefined) => Instance;
let constructInstance: Constructor | undefined;
export function provideConstructor(fn: Constructor): void {
  constructInstance = fn;
}

/** Memoises a side effect for the whole statement (all its steps), or for the unit when it was not split. */
export function remember<T>(ctx: Ctx, node: object, key: string, make: () => T): T {
  const staged = ctx.staged;
  return staged ? staged.remember(node, key, make) : ctx.unit.remember(node, key, make);
}

/** Runs `body` as a step of its own once `requires` are known; an error is kept for the reading statement. */
function step(ctx: Ctx, node: object, span: Span, requires: readonly Var[], body: (inner: Ctx) => void): void {
  const staged = ctx.staged as Staged;
  ctx.c.sched.add(
    span,
    (unit) => {
      try {
        body({ ...ctx, unit });
      } catch (err) {
        if (!InmantaError.is(err)) throw err;
        staged.fail(node, err);
        const v = staged.varOf(node);
        if (v instanceof ProxyVar && !v.target) v.connect(new KnownVar(ctx.c.sched, 'failed'));
        else if (v instanceof ResultVar && !v.isSet) v.set(null, span);
      }
    },
    requires,
  );
}

/** The variable a plain name refers to, if it can be found now. */
function refVar(ctx: Ctx, name: string, span: Span): Var | undefined {
  try {
    const cut = name.lastIndexOf('::');
    if (cut >= 0) return ctx.c.namespaceFor(name.slice(0, cut), ctx.scope.ns, span).scope.own(name.slice(cut + 2));
    const v = ctx.scope.variable(name);
    if (v) return v;
    const found = ctx.scope.lookup(name, span);
    return found.var ?? found.attrOf?.slots.get(name);
  } catch {
    return undefined;
  }
}

/**
 * Splits an expression into the steps the real compiler's scheduler runs separately, and collects into `out`
 * the variables the expression itself waits on. `ctx.staged` receives each step's result variable.
 */
export function prepare(ctx: Ctx, e: Expr, out: Var[]): void {
  const staged = ctx.staged as Staged;
  const sched = ctx.c.sched;
  switch (e.kind) {
    case 'lit':
    case 'undef':
      return;
    case 'fmt':
      for (let i = 0; i < e.parts.length; i++) preparePart(ctx, e.parts[i] as StrPart, e.span, out);
      return;
    case 'ref': {
      const v = refVar(ctx, e.name, e.span);
      if (v) out.push(v);
      return;
    }
    case 'attr': {
      const sub: Var[] = [];
      prepare(ctx, e.obj, sub);
      const proxy = new ProxyVar(sched, e.name);
      staged.setVar(e, proxy);
      step(ctx, e, e.span, sub, (inner) => {
        const obj = evaluate(inner, e.obj);
        const slot = isInstance(obj) ? obj.slots.get(e.name) : undefined;
        proxy.connect(slot ?? new KnownVar(sched, e.name));
      });
      out.push(proxy);
      return;
    }
    case 'mapget':
      prepare(ctx, e.obj, out);
      prepare(ctx, e.key, out);
      return;
    case 'list':
      for (let i = 0; i < e.items.length; i++) prepare(ctx, e.items[i] as Expr, out);
      return;
    case 'dict':
      for (const [, x] of e.entries) prepare(ctx, x, out);
      return;
    case 'not':
    case 'neg':
      prepare(ctx, e.operand, out);
      return;
    case 'bin': {
      if (e.op !== 'and' && e.op !== 'or') {
        prepare(ctx, e.left, out);
        prepare(ctx, e.right, out);
        return;
      }
      // Lazy: a step waits for the left side; only when that does not decide is the right side scheduled.
      const sub: Var[] = [];
      prepare(ctx, e.left, sub);
      const rv = new ResultVar(sched, 'boolean expression');
      staged.setVar(e, rv);
      step(ctx, e, e.span, sub, (inner) => {
        if (booleanOperand(evaluate(inner, e.left), 'left', e.op, e.span) === (e.op === 'or')) {
          rv.set(true, e.span);
          return;
        }
        const branch: Var[] = [];
        prepare(ctx, e.right, branch);
        step(ctx, e, e.span, branch, () => rv.set(true, e.span));
      });
      out.push(rv);
      return;
    }
    case 'cond': {
      // The condition is a step; the chosen branch's inputs another; only then is the result there.
      const sub: Var[] = [];
      prepare(ctx, e.test, sub);
      const rv = new ResultVar(sched, 'conditional expression');
      staged.setVar(e, rv);
      step(ctx, e, e.span, sub, (inner) => {
        const chosen = truthy(evaluate(inner, e.test)) ? e.then : e.else;
        const branch: Var[] = [];
        prepare(ctx, chosen, branch);
        step(ctx, e, e.span, branch, () => rv.set(true, e.span));
      });
      out.push(rv);
      return;
    }
    case 'defined':
      // Waits for the attribute as a read of it does (the real compiler hooks both on the attribute).
      if (e.obj) prepare(ctx, { kind: 'attr', obj: e.obj, name: e.name, span: e.span }, out);
      return;
    case 'comp': {
      // The iterable first; then per element the guard (two steps) and the value; then the collecting step.
      const f = e.fors[0];
      const sub: Var[] = [];
      if (f) prepare(ctx, f.iter, sub);
      const rv = new ResultVar(sched, 'list comprehension');
      staged.setVar(e, rv);
      step(ctx, e, e.span, sub, (inner) => {
        const items = f ? evaluate(inner, f.iter) : [];
        const n = Array.isArray(items) ? items.length : 0;
        const elements: Var[] = [];
        for (let i = 0; i < n; i++) {
          const el = new ResultVar(sched, 'element');
          elements.push(el);
          if (e.guards.length > 0) {
            const guard = new ResultVar(sched, 'guard');
            const chosen = new ResultVar(sched, 'guarded');
            sched.add(e.span, () => sched.add(e.span, () => chosen.set(true, e.span)));
            sched.add(e.span, () => guard.set(true, e.span), [chosen]);
            sched.add(e.span, () => el.set(true, e.span), [guard]);
          } else {
            sched.add(e.span, () => el.set(true, e.span));
          }
        }
        sched.add(e.span, () => rv.set(true, e.span), elements);
      });
      out.push(rv);
      return;
    }
    case 'call': {
      const sub: Var[] = [];
      for (let i = 0; i < e.args.length; i++) prepare(ctx, e.args[i] as Expr, sub);
      for (let i = 0; i < e.kwargs.length; i++) prepare(ctx, (e.kwargs[i] as KwArg).value, sub);
      for (let i = 0; i < e.starstar.length; i++) prepare(ctx, e.starstar[i] as Expr, sub);
      const rv = new ResultVar(sched, `call ${e.name}`);
      staged.setVar(e, rv);
      // A plugin call that fails stops the compile there, as the compiler's function unit raises at once.
      ctx.c.sched.add(e.span, (unit) => rv.set(invoke({ ...ctx, unit }, e), e.span), sub);
      out.push(rv);
      return;
    }
    case 'new':
      // Indexed loops: a large model prepares thousands of constructors before V8 optimizes this.
      for (let i = 0; i < e.kwargs.length; i++) prepare(ctx, (e.kwargs[i] as KwArg).value, out);
      for (let i = 0; i < e.starstar.length; i++) prepare(ctx, e.starstar[i] as Expr, out);
      return;
    case 'query':
    case 'selector': {
      const sub: Var[] = [];
      if (e.kind === 'selector') prepare(ctx, e.obj, sub);
      for (const k of e.args) prepare(ctx, k.value, sub);
      const proxy = new ProxyVar(sched, 'index lookup');
      staged.setVar(e, proxy);
      step(ctx, e, e.span, sub, (inner) => proxy.connect(lookup(inner, e)));
      out.push(proxy);
      return;
    }
  }
}

function preparePart(ctx: Ctx, p: StrPart, span: Span, out: Var[]): void {
  if (typeof p === 'string') return;
  // `{a.b.c}` reads `a`, then each attribute in a step of its own.
  let expr: Expr = { kind: 'ref', name: p.path[0] as string, span };
  for (const name of p.path.slice(1)) expr = { kind: 'attr', obj: expr, name, span };
  if (p.path.length === 1) prepare(ctx, expr, out);
  else {
    const sub: Var[] = [];
    prepare(ctx, expr, sub);
    out.push(...sub);
  }
  for (const x of p.spec) preparePart(ctx, x, span, out);
}

function lookup(ctx: Ctx, e: Extract<Expr, { kind: 'query' | 'selector' }>): ResultVar {
  if (e.kind === 'query') {
    const type = ctx.c.lookupEntity(e.type, ctx.scope.ns, e.span);
    return ctx.c.query(type, kwValues(ctx, e.args, [], undefined), e.span);
  }
  const obj = evaluate(ctx, e.obj);
  if (!isInstance(obj)) throw new InmantaError('RuntimeException', `can not look up ${e.rel} on ${pyRepr(obj)}`, e.span);
  const rel = obj.entity.relations().get(e.rel);
  if (!rel?.reverse) throw new InmantaError('NotFoundException', `relation ${e.rel} of ${obj.entity.fullName} has no reverse end to look up by`, e.span);
  const values = kwValues(ctx, e.args, [], undefined);
  values.set(rel.reverse.name, obj);
  return ctx.c.query(rel.target, values, e.span);
}

/** The result of a step prepared for this node, or undefined when the node was not split off. */
function stagedResult(ctx: Ctx, e: object): { v: Value } | undefined {
  const st = ctx.staged;
  if (!st) return undefined;
  const err = st.failed(e);
  if (err) throw err;
  const v = st.varOf(e);
  if (!(v instanceof ResultVar)) return undefined;
  return { v: v.get() };
}

export function evaluate(ctx: Ctx, e: Expr, expected?: EntityType): Value {
  switch (e.kind) {
    case 'lit':
      return e.value !== null && typeof e.value === 'object' ? new Float(e.value.float) : e.value;
    case 'undef':
      throw new InmantaError('RuntimeException', 'undef can only be used as a default value', e.span);
    case 'fmt':
      return e.parts.map((p) => formatPart(ctx, p, e.span)).join('');
    case 'ref':
      return readName(ctx, e.name, e.span);
    case 'attr':
      stagedResult(ctx, e);
      return readAttribute(evaluate(ctx, e.obj), e.name, e.span, referenceText(e.obj));
    case 'mapget':
      return mapGet(evaluate(ctx, e.obj), evaluate(ctx, e.key), e.span);
    case 'list':
      // A list inside a list literal is spliced in, as the compiler builds lists ([[1, 2], 3] is [1, 2, 3]).
      return e.items.flatMap((x) => {
        const v = evaluate(ctx, x, expected);
        return Array.isArray(v) ? v : [v];
      });
    case 'dict':
      return new Map(e.entries.map(([k, x]) => [k, evaluate(ctx, x)]));
    case 'not':
      return !truthy(evaluate(ctx, e.operand));
    case 'neg': {
      const v = evaluate(ctx, e.operand);
      if (typeof v === 'number') return -v;
      if (isFloat(v)) return new Float(-v.v);
      throw new InmantaError('RuntimeException', `bad operand type for unary -: '${typeName(v)}'`, e.span);
    }
    case 'bin':
      return binary(ctx, e.op, e.left, e.right, e.span);
    case 'cond':
      stagedResult(ctx, e);
      return truthy(evaluate(ctx, e.test)) ? evaluate(ctx, e.then, expected) : evaluate(ctx, e.else, expected);
    case 'defined':
      return isDefined(ctx, e.obj, e.name, e.span);
    case 'comp': {
      if (stagedResult(ctx, e)) return comprehension(ctx, e, expected);
      // Evaluated in a step of its own that runs after what is already queued; the reader waits for its result.
      const result = remember(ctx, e, ctx.key, () => {
        const rv = new ResultVar(ctx.c.sched, 'list comprehension');
        ctx.c.sched.add(e.span, (unit) => rv.set(comprehension({ ...ctx, unit }, e, expected), e.span));
        return rv;
      });
      return result.get();
    }
    case 'call': {
      const done = stagedResult(ctx, e);
      if (done) return done.v;
      return invoke(ctx, e);
    }
    case 'new':
      if (!constructInstance) throw new Error('the statement executor did not register the constructor');
      return constructInstance(ctx, e, expected);
    case 'query':
    case 'selector':
      stagedResult(ctx, e);
      return lookup(ctx, e).get();
  }
}

function invoke(ctx: Ctx, e: Extract<Expr, { kind: 'call' }>): Value {
  return remember(ctx, e, ctx.key, () => {
    const args = e.args.map((a) => pluginArg(ctx, a));
    const kwargs = kwValues(ctx, e.kwargs, e.starstar, undefined);
    return callPlugin(ctx, e.name, args, kwargs, e.span);
  });
}

/** A plugin argument; an empty optional read here is reported without a location, as the real compiler does. */
function pluginArg(ctx: Ctx, a: Expr): Value {
  try {
    return evaluate(ctx, a);
  } catch (err) {
    if (InmantaError.is(err) && err.kind === 'OptionalValueException') {
      err.showAt(err.span ?? a.span);
      err.span = undefined;
    }
    throw err;
  }
}

export function kwValues(ctx: Ctx, kwargs: readonly KwArg[], starstar: readonly Expr[], type: EntityType | undefined): Map<string, Value> {
  const out = new Map<string, Value>();
  for (const k of kwargs) out.set(k.name, evaluate(ctx, k.value, type?.relations().get(k.name)?.target));
  for (const s of starstar) {
    const d = evaluate(ctx, s);
    if (!isDict(d)) throw new InmantaError('TypingException', `The ** operator can only be applied to dictionaries, got ${typeName(d)}`, s.span);
    for (const [k, v] of d) {
      if (type && out.has(k)) throw new InmantaError('RuntimeException', `The attribute ${k} is set twice in the constructor call of ${type.name}.`, s.span);
      out.set(k, v);
    }
  }
  return out;
}

function readName(ctx: Ctx, name: string, span: Span): Value {
  const cut = name.lastIndexOf('::');
  if (cut >= 0) {
    const ns = ctx.c.namespaceFor(name.slice(0, cut), ctx.scope.ns, span);
    const v = ns.scope.own(name.slice(cut + 2));
    if (!v) throw new InmantaError('NotFoundException', `variable ${name.slice(cut + 2)} not found`, span);
    return v.get();
  }
  const v = ctx.scope.variable(name);
  if (v) return v.get();
  const found = ctx.scope.lookup(name, span);
  if (found.var) return found.var.get();
  return readAttribute(found.attrOf as Instance, name, span);
}

/** How the compiler names the expression an attribute is read from: `a`, `a.b`. */
function referenceText(e: Expr): string | undefined {
  if (e.kind === 'ref') return e.name;
  if (e.kind === 'attr') {
    const base = referenceText(e.obj);
    return base === undefined ? undefined : `${base}.${e.name}`;
  }
  return undefined;
}

/** `obj.name`; `source` is the expression `obj` came from, for the compiler's error text. */

function isDefined(ctx: Ctx, objExpr: Expr | undefined, name: string, span: Span): boolean {
  let obj: Instance;
  if (objExpr) {
    const v = evaluate(ctx, objExpr);
    if (!isInstance(v)) throw new InmantaError('RuntimeException', `is defined needs an entity, got ${typeName(v)}`, span);
    obj = v;
  } else {
    const found = ctx.scope.lookup(name, span);
    if (found.var) return found.var.isDefined();
    obj = found.attrOf as Instance;
  }
  return obj.slot(name, span).isDefined();
}

/** `m[k]`: only dicts can be looked up, only with string keys (lists have no indexing in the language). */
function mapGet(obj: Value, key: Value, span: Span): Value {
  if (!isDict(obj)) throw new InmantaError('TypingException', `dict lookup is only possible on dicts, ${pyStr(obj)} is not an object`, span);
  if (typeof key !== 'string') throw new InmantaError('TypingException', `dict keys must be string, ${pyStr(key)} is not a string`, span);
  if (!obj.has(key)) throw new InmantaError('KeyException', `key ${key} not found in dict, options are [${[...obj.keys()].join(',')}]`, span);
  return obj.get(key) as Value;
}

/** What a for loop runs over; `from` is the loop's expression, named in the compiler's hint when it is a plain name. */
export function iterable(v: Value, span: Span, from?: Expr): readonly Value[] {
  if (Array.isArray(v)) return v;
  const hint = from?.kind === 'ref' ? `'${from.name}' resolves to '${pyStr(v)}'.` : `'${pyStr(v)}' is not a list.`;
  throw new InmantaError('TypingException', `A for loop can only be applied to lists and relations. Hint: ${hint}`, span);
}

export function comprehension(ctx: Ctx, e: Extract<Expr, { kind: 'comp' }>, expected?: EntityType): Value[] {
  const out: Value[] = [];
  const loop = (depth: number, scope: Scope, key: string): void => {
    const f = e.fors[depth];
    if (!f) {
      const inner: Ctx = { ...ctx, scope, key };
      if (e.guards.every((g) => truthy(evaluate(inner, g)))) out.push(evaluate(inner, e.value, expected));
      return;
    }
    const items = iterable(evaluate({ ...ctx, scope, key }, f.iter), f.iter.span, f.iter);
    items.forEach((item, i) => {
      const s = new Scope(ctx.c.sched, scope.ns, scope, [f.name]);
      s.own(f.name)?.set(item, f.iter.span);
      loop(depth + 1, s, `${key}/${i}`);
    });
  };
  loop(0, ctx.scope, ctx.key);
  return out;
}

function formatPart(ctx: Ctx, p: StrPart, span: Span): string {
  if (typeof p === 'string') return p;
  let v: Value = readName(ctx, p.path[0] as string, span);
  for (const name of p.path.slice(1)) v = readAttribute(v, name, span);
  if (p.conv === 'r') v = pyRepr(v);
  const spec = p.spec.map((x) => formatPart(ctx, x, span)).join('');
  if (spec === '') return interpolatedText(v);
  try {
    return formatSpec(isFloat(v) ? new PyFloat(v.v) : (v as never), spec);
  } catch (err) {
    throw new InmantaError('RuntimeException', `invalid format spec ${JSON.stringify(spec)} for ${pyRepr(v)}: ${(err as Error).message}`, span);
  }
}

function compare(op: string, a: Value, b: Value, span: Span): boolean {
  if (op === '==') return pyEquals(a, b);
  if (op === '!=') return !pyEquals(a, b);
  const na = num(a);
  const nb = num(b);
  if (na === undefined || nb === undefined) throw new InmantaError('TypingException', 'Can only compare numbers.', span);
  return op === '<' ? na < nb : op === '>' ? na > nb : op === '<=' ? na <= nb : na >= nb;
}

/** `in`: a list (by equality) or a dict (its keys); not a string, as the compiler allows it. */
function contains(hay: Value, needle: Value, span: Span): boolean {
  if (Array.isArray(hay)) return hay.some((x) => pyEquals(x, needle));
  if (isDict(hay)) return typeof needle === 'string' && hay.has(needle);
  throw new InmantaError('TypingException', `Operand two of 'in' can only be a list or dict (${pyStr(hay)})`, span);
}

const OPERATOR_NAMES: Record<string, string> = { '+': 'plus', '-': 'minus', '*': 'multiplication', '/': 'division', '%': 'modulo', '**': 'exponentiation' };

/** Python's `type(x).__name__`, as the real compiler's operator errors print it. */

/** Numbers (booleans count as 0 and 1), and `+` on two strings; nothing else, as the real operators allow. */
function arithmetic(op: string, a: Value, b: Value, span: Span): Value {
  if (op === '+' && typeof a === 'string') {
    if (typeof b === 'string') return a + b;
    throw new InmantaError('TypingException', `Can only concatenate str (not '${pyTypeName(b)}' (${pyRepr(b)})) to str`, span);
  }
  const na = num(a);
  const nb = num(b);
  if (na === undefined || nb === undefined) {
    throw new InmantaError('TypingException', `Unsupported operand type(s) for ${OPERATOR_NAMES[op] ?? op}: '${pyTypeName(a)}' (${pyRepr(a)}) and '${pyTypeName(b)}' (${pyRepr(b)})`, span);
  }
  const ints = !(a instanceof Float) && !(b instanceof Float);
  const wrap = (x: number): Value => (ints ? x : new Float(x));
  switch (op) {
    case '+':
      return wrap(na + nb);
    case '-':
      return wrap(na - nb);
    case '*':
      return wrap(na * nb);
    case '/':
      if (nb === 0) throw new InmantaError('RuntimeException', 'division by zero', span);
      return new Float(na / nb);
    case '%':
      if (nb === 0) throw new InmantaError('RuntimeException', 'integer division or modulo by zero', span);
      return wrap(((na % nb) + nb) % nb);
    default: {
      const r = na ** nb;
      return ints && nb >= 0 ? r : new Float(r);
    }
  }
}

/** `and` / `or` take booleans only, as the real compiler checks each side. */
function booleanOperand(v: Value, side: 'left' | 'right', op: string, span: Span): boolean {
  if (typeof v === 'boolean') return v;
  // The right side lands in the result variable, whose bool type check words it differently.
  if (side === 'right') throw new InmantaError('RuntimeException', `Invalid value '${pyStr(v)}', expected bool`, span);
  throw new InmantaError('RuntimeException', `Invalid left hand value \`${pyStr(v)}\`: \`${op}\` expects a boolean`, span);
}

function binary(ctx: Ctx, op: string, l: Expr, r: Expr, span: Span): Value {
  if (op === 'and' || op === 'or') {
    const left = booleanOperand(evaluate(ctx, l), 'left', op, span);
    if (left === (op === 'or')) return left;
    return booleanOperand(evaluate(ctx, r), 'right', op, span);
  }
  const a = evaluate(ctx, l);
  const b = evaluate(ctx, r);
  if (op === 'in') return contains(b, a, span);
  if (op === 'not in') return !contains(b, a, span);
  if (['==', '!=', '<', '>', '<=', '>='].includes(op)) return compare(op, a, b, span);
  return arithmetic(op, a, b, span);
}
