/** Evaluates expressions: expansion of texts, vectors, maps, references, indexing and function calls. */
import type { Span } from '../../core/diag.js';
import type { Accessor, Expr, Predicate, RefExpr, Sigil } from './ast.js';
import { OtterError } from './errors.js';
import { type FunctionContext, lookupFunction } from './functions.js';
import type { Scope } from './scope.js';
import { isMap, isVector, mapGet, sigilOf, toText, typeName, type Value } from './values.js';

export interface EvalEnv extends FunctionContext {
  readonly scope: Scope;
  /** Configuration variables (`--var name=value`), by lower-case name. */
  readonly config: ReadonlyMap<string, Value>;
}

export async function evaluate(expr: Expr, env: EvalEnv): Promise<Value> {
  switch (expr.kind) {
    case 'text': {
      let out = '';
      for (const part of expr.parts) {
        if (typeof part === 'string') out += part;
        else if (part.kind === 'ref') out += toText(await resolveRef(part, env));
        else out += toText(await evaluate(part.expr, env));
      }
      return out;
    }
    case 'vector': {
      const items: Value[] = [];
      for (const item of expr.items) items.push(await evaluate(item, env));
      return items;
    }
    case 'map': {
      const m = new Map<string, Value>();
      for (const e of expr.entries) m.set(e.key, await evaluate(e.value, env));
      return m;
    }
    case 'ref':
      return resolveRef(expr, env);
  }
}

/** The value of a text without references or subexpressions (what `evaluate` gives it), read at once; else undefined. */
export function constantText(expr: Expr): string | undefined {
  if (expr.kind !== 'text') return undefined;
  const parts = expr.parts;
  let out = '';
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (typeof part !== 'string') return undefined;
    out += part;
  }
  return out;
}

export async function evaluateScalar(expr: Expr, env: EvalEnv, what: string): Promise<string> {
  const v = await evaluate(expr, env);
  if (typeof v !== 'string') throw new OtterError(`${what} must be a scalar, but got a ${typeName(sigilOf(v))}`, expr.span);
  return v;
}

/** Runtime variable, then configuration variable, then a function without arguments (seed/notes order). */
function lookupVariable(ref: RefExpr, env: EvalEnv): Value | undefined {
  const runtime = env.scope.get(ref.sigil, ref.name);
  if (runtime !== undefined) return runtime;
  const config = env.config.get(ref.name.toLowerCase());
  if (config !== undefined && sigilOf(config) === ref.sigil) return config;
  return undefined;
}

export async function resolveRef(ref: RefExpr, env: EvalEnv): Promise<Value> {
  let value: Value | undefined;
  if (ref.args === undefined) value = lookupVariable(ref, env);
  if (value === undefined) {
    const fn = lookupFunction(ref.name);
    if (!fn) {
      if (ref.args !== undefined) throw new OtterError(`unknown function ${ref.sigil}${ref.name}`, ref.span);
      throw new OtterError(`variable ${ref.sigil}${ref.name} is not defined`, ref.span);
    }
    const args: Value[] = [];
    for (const a of ref.args ?? []) args.push(await evaluate(a, env));
    value = await fn.call(args, env, ref.span);
    value = coerce(value, ref.sigil, ref.span, `${ref.sigil}${ref.name}`);
  }
  for (const acc of ref.accessors) value = await access(value, acc, env, ref.span);
  return value;
}

/** A function result in the type its sigil asks for; a scalar function is readable as a one-item vector. */
function coerce(v: Value, sigil: Sigil, span: Span, what: string): Value {
  const got = sigilOf(v);
  if (got === sigil) return v;
  if (sigil === '$' && got !== '$') return toText(v);
  throw new OtterError(`${what} returns a ${typeName(got)}, not a ${typeName(sigil)}`, span);
}

async function access(value: Value, acc: Accessor, env: EvalEnv, span: Span): Promise<Value> {
  const key = acc.kind === 'prop' ? acc.name : toText(await evaluate(acc.expr, env));
  if (isVector(value)) {
    const i = Number(key);
    if (!Number.isInteger(i) || i < 0 || i >= value.length) throw new OtterError(`index ${key} is outside the vector of ${value.length} items`, span);
    return value[i] as Value;
  }
  if (isMap(value)) {
    const v = mapGet(value, key);
    if (v === undefined) throw new OtterError(`the map has no key "${key}"`, span);
    return v;
  }
  throw new OtterError(`cannot index a scalar with "${key}"`, span);
}

export async function test(pred: Predicate, env: EvalEnv): Promise<boolean> {
  switch (pred.kind) {
    case 'and':
      for (const p of pred.items) if (!(await test(p, env))) return false;
      return true;
    case 'or':
      for (const p of pred.items) if (await test(p, env)) return true;
      return false;
    case 'not':
      return !(await test(pred.pred, env));
    case 'eq':
    case 'ne': {
      // Case-sensitive comparison of the texts (seed: Equality/Inequality predicates).
      const same = toText(await evaluate(pred.left, env)) === toText(await evaluate(pred.right, env));
      return pred.kind === 'eq' ? same : !same;
    }
    case 'true':
      return toText(await evaluate(pred.expr, env)).trim().toLowerCase() === 'true';
  }
}
