/** Expression evaluation. A missing input throws `Wait`; the unit reruns later with its side effects memoised. */
import type { Span } from '../../core/diag.js';
import { formatSpec, PyFloat } from '../../lang/jinja/index.js';
import type { Expr, KwArg, StrPart } from './ast.js';
import type { Compilation } from './compilation.js';
import { InmantaError } from './errors.js';
import { construct } from './execute.js';
import type { Instance } from './instance.js';
import { Scope } from './namespace.js';
import { callPlugin } from './plugins.js';
import type { Unit } from './scheduler.js';
import type { EntityType } from './types.js';
import { Float, isDict, isFloat, isInstance, num, pyEquals, pyRepr, pyStr, truthy, typeName, type Value } from './values.js';
import { ListVar, ResultVar } from './vars.js';

export interface Ctx {
  readonly c: Compilation;
  readonly unit: Unit;
  readonly scope: Scope;
  /** Distinguishes memoised results of one expression evaluated per element (comprehensions). */
  readonly key: string;
  /** The instance whose implementation is running, if any. */
  readonly creator: Instance | undefined;
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
      return readAttribute(evaluate(ctx, e.obj), e.name, e.span);
    case 'mapget':
      return mapGet(evaluate(ctx, e.obj), evaluate(ctx, e.key), e.span);
    case 'list':
      return e.items.map((x) => evaluate(ctx, x, expected));
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
      return truthy(evaluate(ctx, e.test)) ? evaluate(ctx, e.then, expected) : evaluate(ctx, e.else, expected);
    case 'defined':
      return isDefined(ctx, e.obj, e.name, e.span);
    case 'comp': {
      // Evaluated in a step of its own that runs after what is already queued; the reader waits for its result.
      const result = ctx.unit.remember(e, ctx.key, () => {
        const rv = new ResultVar(ctx.c.sched, 'list comprehension');
        ctx.c.sched.add(e.span, (unit) => rv.set(comprehension({ ...ctx, unit }, e, expected), e.span));
        return rv;
      });
      return result.get();
    }
    case 'call':
      return ctx.unit.remember(e, ctx.key, () => {
        const args = e.args.map((a) => pluginArg(ctx, a));
        const kwargs = kwValues(ctx, e.kwargs, e.starstar, undefined);
        return callPlugin(ctx, e.name, args, kwargs, e.span);
      });
    case 'new':
      return construct(ctx, e, expected);
    case 'query': {
      const type = ctx.c.lookupEntity(e.type, ctx.scope.ns, e.span);
      return ctx.c.query(type, kwValues(ctx, e.args, [], undefined), e.span).get();
    }
    case 'selector': {
      const obj = evaluate(ctx, e.obj);
      if (!isInstance(obj)) throw new InmantaError('RuntimeException', `can not look up ${e.rel} on ${pyRepr(obj)}`, e.span);
      const rel = obj.entity.relations().get(e.rel);
      if (!rel?.reverse) throw new InmantaError('NotFoundException', `relation ${e.rel} of ${obj.entity.fullName} has no reverse end to look up by`, e.span);
      const values = kwValues(ctx, e.args, [], undefined);
      values.set(rel.reverse.name, obj);
      return ctx.c.query(rel.target, values, e.span).get();
    }
  }
}

/** A plugin argument; an empty optional read here is reported without a location, as the real compiler does. */
function pluginArg(ctx: Ctx, a: Expr): Value {
  try {
    return evaluate(ctx, a);
  } catch (err) {
    if (InmantaError.is(err) && err.kind === 'OptionalValueException') err.span = undefined;
    throw err;
  }
}

export function kwValues(ctx: Ctx, kwargs: readonly KwArg[], starstar: readonly Expr[], type: EntityType | undefined): Map<string, Value> {
  const out = new Map<string, Value>();
  for (const k of kwargs) out.set(k.name, evaluate(ctx, k.value, type?.relations().get(k.name)?.target));
  for (const s of starstar) {
    const d = evaluate(ctx, s);
    if (!isDict(d)) throw new InmantaError('TypingException', `The ** operator can only be applied to dictionaries, got ${typeName(d)}`, s.span);
    for (const [k, v] of d) out.set(k, v);
  }
  return out;
}

function readName(ctx: Ctx, name: string, span: Span): Value {
  const cut = name.lastIndexOf('::');
  if (cut >= 0) {
    const ns = ctx.c.namespaceFor(name.slice(0, cut), ctx.scope.ns, span);
    const v = ns.scope.own(name.slice(cut + 2));
    if (!v) throw new InmantaError('NotFoundException', `variable ${name} not found`, span);
    return v.get();
  }
  const found = ctx.scope.lookup(name, span);
  if (found.var) return found.var.get();
  return readAttribute(found.attrOf as Instance, name, span);
}

export function readAttribute(obj: Value, name: string, span: Span): Value {
  if (!isInstance(obj)) {
    throw new InmantaError('RuntimeException', `can not get attribute ${name} of ${pyRepr(obj)} of type ${typeName(obj)}: it is not an entity`, span);
  }
  const slot = obj.slot(name, span);
  try {
    if (slot instanceof ListVar) return [...slot.get()];
    return (slot as ResultVar).get();
  } catch (e) {
    if (InmantaError.is(e)) e.at(span);
    throw e;
  }
}

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

function mapGet(obj: Value, key: Value, span: Span): Value {
  if (isDict(obj)) {
    if (typeof key !== 'string' || !obj.has(key)) throw new InmantaError('KeyException', `key ${pyStr(key)} not found in dict, options are [${[...obj.keys()].join(',')}]`, span);
    return obj.get(key) as Value;
  }
  if (Array.isArray(obj) && typeof key === 'number') {
    const v = obj[key < 0 ? obj.length + key : key];
    if (v === undefined) throw new InmantaError('RuntimeException', `list index ${key} out of range`, span);
    return v;
  }
  throw new InmantaError('RuntimeException', `can not index ${typeName(obj)} with ${typeName(key)}`, span);
}

function iterable(v: Value, span: Span): readonly Value[] {
  if (Array.isArray(v)) return v;
  throw new InmantaError('TypingException', `A for loop can only be applied to lists and relations, got ${typeName(v)}`, span);
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
    const items = iterable(evaluate({ ...ctx, scope, key }, f.iter), f.iter.span);
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
  if (spec === '') return pyStr(v);
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
  let c: number;
  if (na !== undefined && nb !== undefined) c = na - nb;
  else if (typeof a === 'string' && typeof b === 'string') c = a < b ? -1 : a > b ? 1 : 0;
  else throw new InmantaError('RuntimeException', `'${op}' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`, span);
  return op === '<' ? c < 0 : op === '>' ? c > 0 : op === '<=' ? c <= 0 : c >= 0;
}

function contains(hay: Value, needle: Value, span: Span): boolean {
  if (Array.isArray(hay)) return hay.some((x) => pyEquals(x, needle));
  if (isDict(hay)) return typeof needle === 'string' && hay.has(needle);
  if (typeof hay === 'string' && typeof needle === 'string') return hay.includes(needle);
  throw new InmantaError('RuntimeException', `in can not be applied to ${typeName(hay)}`, span);
}

function arithmetic(op: string, a: Value, b: Value, span: Span): Value {
  if (op === '+' && typeof a === 'string' && typeof b === 'string') return a + b;
  if (op === '+' && Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
  const na = typeof a === 'boolean' ? undefined : num(a);
  const nb = typeof b === 'boolean' ? undefined : num(b);
  if (na === undefined || nb === undefined) {
    throw new InmantaError('RuntimeException', `unsupported operand type(s) for ${op}: '${typeName(a)}' and '${typeName(b)}'`, span);
  }
  const ints = typeof a === 'number' && typeof b === 'number';
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

function binary(ctx: Ctx, op: string, l: Expr, r: Expr, span: Span): Value {
  if (op === 'and') return truthy(evaluate(ctx, l)) && truthy(evaluate(ctx, r));
  if (op === 'or') return truthy(evaluate(ctx, l)) || truthy(evaluate(ctx, r));
  const a = evaluate(ctx, l);
  const b = evaluate(ctx, r);
  if (op === 'in') return contains(b, a, span);
  if (op === 'not in') return !contains(b, a, span);
  if (['==', '!=', '<', '>', '<=', '>='].includes(op)) return compare(op, a, b, span);
  return arithmetic(op, a, b, span);
}
