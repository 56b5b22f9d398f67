/**
 * What a constructor call does with its arguments, worked out once per call site and type: the slot of
 * each argument, the defaults it leaves in place, and where each index attribute's value comes from. A
 * large model constructs thousands of instances from a few call sites (or from many of the same shape).
 */
import type { Expr, KwArg } from './ast.js';
import { type InstanceStart, prefilledStart, slotIndex, slotOf } from './instance.js';
import type { Namespace } from './namespace.js';
import type { EntityType, IndexDef } from './types.js';
import type { Value } from './values.js';

/** A default of a type's attribute: a plain literal is kept as its value, anything else is evaluated per instance. */
export interface DefaultOf {
  readonly name: string;
  readonly expr: Expr;
  readonly ns: Namespace;
  readonly literal: boolean;
  /** Where its slot is in the type's layout. */
  readonly slot: number;
}

/** The attributes of a type that have a default, in declaration order; worked out once per type. */
export function defaultsOf(type: EntityType): readonly DefaultOf[] {
  const known = defaultsCache.get(type);
  if (known) return known;
  const out: DefaultOf[] = [];
  for (const [name, a] of type.attributes()) {
    if (a.default === undefined || a.default === 'undef') continue;
    const { expr, ns } = a.default;
    // A default is a constant: a plain literal is its own value; only lists, dicts and floats are built anew.
    out.push({ name, expr, ns, literal: expr.kind === 'lit' && (expr.value === null || typeof expr.value !== 'object'), slot: slotOf(type, name) as number });
  }
  defaultsCache.set(type, out);
  return out;
}
const defaultsCache = new WeakMap<EntityType, readonly DefaultOf[]>();

/** The value of a plain literal default (see `DefaultOf.literal`). */
export function literalValue(d: DefaultOf): Value {
  return (d.expr as Extract<Expr, { kind: 'lit' }>).value as Value;
}

/**
 * A call `Type(a=..., b=...)` with keyword arguments only, each named once, each an attribute or relation
 * end of the type, that gives or defaults every index attribute: the calls that cannot fail before the
 * index lookup.
 */
export interface ConstructorPlan {
  readonly type: EntityType;
  /** The slot of each keyword argument, in the order written. */
  readonly slots: readonly number[];
  /** The type a relation end argument expects (for type inference), else undefined. */
  readonly targets: readonly (EntityType | undefined)[];
  /** The defaults the call leaves in place, in declaration order. */
  readonly used: readonly DefaultOf[];
  /** Per index of the type: its attributes in sorted order and where each value comes from (`source`). */
  readonly indexes: readonly { readonly ix: IndexDef; readonly sources: readonly number[] }[];
  /** What a new instance starts from (see `startOf`), once worked out; null when it starts blank. */
  start?: PlanStart | null;
}

/** The constant defaults a call leaves in place, and what a new instance starts from with them set. */
export interface PlanStart {
  readonly defaults: readonly Value[];
  readonly instance: InstanceStart;
}

/**
 * When every default the call leaves in place is a plain literal that its attribute takes: their values,
 * the same for every call, and a new instance's plain values with them already set (as setting them one by
 * one would). Worked out once per plan.
 */
export function startOf(plan: ConstructorPlan): PlanStart | undefined {
  if (plan.start === undefined) {
    const used = plan.used;
    let start: PlanStart | null = null;
    if (used.every((d) => d.literal)) {
      const defaults = used.map(literalValue);
      const instance = prefilledStart(
        plan.type,
        used.map((d) => d.slot),
        defaults,
        used.map((d) => d.expr.span),
      );
      if (instance) start = { defaults, instance };
    }
    plan.start = start;
  }
  return plan.start ?? undefined;
}

/** Where an index attribute's value comes from: the argument at `k` (k >= 0), or the used default at `-k - 1`. */
export function source(args: readonly Value[], defaults: readonly Value[], k: number): Value | undefined {
  return k >= 0 ? args[k] : defaults[-k - 1];
}

/**
 * The plan of a call for `type`, or undefined when the call has to go the general way (`**`, a repeated or
 * unknown name, a missing index attribute). Plans are kept per type by the names the call gives, in order:
 * calls written alike share one (the parser keeps one string per name, so the names compare at once).
 */
export function planFor(e: Extract<Expr, { kind: 'new' }>, type: EntityType): ConstructorPlan | undefined {
  if (e.starstar.length > 0) return undefined;
  let shapes = plans.get(type);
  if (!shapes) {
    shapes = [];
    plans.set(type, shapes);
  }
  const kwargs = e.kwargs;
  for (let s = 0; s < shapes.length; s++) {
    const shape = shapes[s] as Shape;
    const names = shape.names;
    if (names.length !== kwargs.length) continue;
    let same = true;
    for (let i = 0; same && i < names.length; i++) same = names[i] === (kwargs[i] as KwArg).name;
    if (same) return shape.plan;
  }
  const plan = makePlan(e, type);
  // A model with many shapes of call for one type keeps the first ones; the others are worked out each time.
  if (shapes.length < MAX_SHAPES) shapes.push({ names: kwargs.map((k) => k.name), plan });
  return plan;
}
interface Shape {
  readonly names: readonly string[];
  readonly plan: ConstructorPlan | undefined;
}
const MAX_SHAPES = 32;
const plans = new WeakMap<EntityType, Shape[]>();

function makePlan(e: Extract<Expr, { kind: 'new' }>, type: EntityType): ConstructorPlan | undefined {
  const layout = slotIndex(type);
  const names = e.kwargs.map((k: KwArg) => k.name);
  const slots: number[] = [];
  for (const name of names) {
    const at = layout.get(name);
    if (at === undefined || names.indexOf(name) !== slots.length) return undefined;
    slots.push(at);
  }
  const targets = names.map((name) => type.relations().get(name)?.target);
  const used = defaultsOf(type).filter((d) => !names.includes(d.name));
  const indexes: { ix: IndexDef; sources: number[] }[] = [];
  for (const ix of type.allIndexes()) {
    const sources: number[] = [];
    for (const a of ix.sorted) {
      const arg = names.indexOf(a);
      const dflt = used.findIndex((d) => d.name === a);
      if (arg < 0 && dflt < 0) return undefined;
      sources.push(arg >= 0 ? arg : -dflt - 1);
    }
    indexes.push({ ix, sources });
  }
  return { type, slots, targets, used, indexes, start: undefined };
}
