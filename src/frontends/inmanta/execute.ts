/** Statements become scheduler units; constructors create instances and select their implementations. */
import type { Span } from '../../core/diag.js';
import type { Expr, KwArg, Stmt } from './ast.js';
import type { Compilation } from './compilation.js';
import { InmantaError } from './errors.js';
import { readAttribute } from './attributes.js';
import { type Ctx, newStaged } from './context.js';
import { comprehension, evaluate, iterable, kwValues, prepare, provideConstructor } from './evaluate.js';
import { type ConstructorPlan, type DefaultOf, defaultsOf, literalValue, planFor, source, startOf } from './constructor-plan.js';
import type { IndexKey, KeyPart } from './compilation.js';
import { Instance, type InstanceStart, slotIndex } from './instance.js';
import { declaredNames, Scope } from './namespace.js';
import type { EntityType, ImplementationDef, ImplementDef } from './types.js';
import { isDict, isFloat, isInstance, pyStr, truthy, type Value } from './values.js';
import { NOT_REMEMBERED, Unit } from './scheduler.js';
import { ListVar, type Var } from './vars.js';

/**
 * Whether preparing the expression splits steps off it (an attribute read, `and`/`or`, a conditional, a
 * comprehension, a plugin call, an index lookup: see `prepare`). Errs on the side of yes: only literals,
 * names and what is built of them (constructors, lists, dicts, operators, plain interpolation) say no.
 */
function hasSteps(e: Expr): boolean {
  switch (e.kind) {
    case 'lit':
    case 'undef':
    case 'ref':
      return false;
    case 'new':
      for (let i = 0; i < e.kwargs.length; i++) if (hasSteps((e.kwargs[i] as KwArg).value)) return true;
      for (let i = 0; i < e.starstar.length; i++) if (hasSteps(e.starstar[i] as Expr)) return true;
      return false;
    case 'list':
      return e.items.some(hasSteps);
    case 'dict':
      return e.entries.some(([, x]) => hasSteps(x));
    case 'not':
    case 'neg':
      return hasSteps(e.operand);
    case 'bin':
      return e.op === 'and' || e.op === 'or' || hasSteps(e.left) || hasSteps(e.right);
    case 'mapget':
      return hasSteps(e.obj) || hasSteps(e.key);
    case 'fmt':
      return e.parts.some((p) => typeof p !== 'string' && (p.path.length !== 1 || p.spec.length > 0));
    default:
      return true;
  }
}

/** Whether a statement is an assignment or expression that `prepare` splits no step off (most of a large model). */
function stepless(s: Stmt): boolean {
  return (s.kind === 'expr' && !hasSteps(s.expr)) || (s.kind === 'assign' && !hasSteps(s.value));
}

/**
 * A statement with no steps of its own: it runs in a context made when it runs and remembers what it
 * constructs in its unit, where a statement with steps keeps both from when it was prepared.
 */
class StatementUnit extends Unit {
  constructor(
    readonly c: Compilation,
    readonly scope: Scope,
    readonly creator: Instance | undefined,
    readonly stmt: Stmt,
  ) {
    super(c.sched, stmt.span, runStatementUnit);
  }
}

function runStatementUnit(u: Unit): void {
  const su = u as StatementUnit;
  runStatement({ c: su.c, unit: su, scope: su.scope, key: '', creator: su.creator }, su.stmt);
}

/** Schedules every statement of a block in `scope`; definitions were handled before execution started. */
export function emitBlock(c: Compilation, stmts: readonly Stmt[], scope: Scope, creator: Instance | undefined): void {
  // A statement without steps only collects what it waits on: one context and one list serve them all
  // (neither is kept: no step is made, and a unit parks itself on each variable rather than keeping the list).
  // Each statement's inputs are added after the ones before, and the list is emptied only once it is long:
  // emptied per statement, V8 let its storage go and grew it again for every statement.
  let stepCtx: Ctx | undefined;
  let stepRequires: Var[] | undefined;
  for (let i = 0; i < stmts.length; i++) {
    const s = stmts[i] as Stmt;
    if ((s.kind === 'expr' || s.kind === 'assign') && stepless(s)) {
      const requires = (stepRequires ??= []);
      if (requires.length > 1024) requires.length = 0;
      const from = requires.length;
      prepareStatement((stepCtx ??= { c, unit: c.sched.placeholder, scope, key: '', creator }), s, requires);
      c.sched.addUnit(new StatementUnit(c, scope, creator, s), requires, from);
      continue;
    }
    if (s.kind === 'assign' || s.kind === 'expr' || s.kind === 'for' || s.kind === 'if') {
      // As the real compiler does, the statement's own steps are scheduled first, then the statement waits on them.
      const staged = newStaged();
      const requires: Var[] = [];
      const pre: Ctx = { c, unit: c.sched.placeholder, scope, key: '', creator, staged };
      prepareStatement(pre, s, requires);
      // The statement's results are remembered in `staged` (a context's unit is read only without one), so
      // the statement runs in the context its steps were prepared in.
      c.sched.add(s.span, () => runStatement(pre, s), requires);
    }
  }
}

function prepareStatement(ctx: Ctx, s: Stmt, out: Var[]): void {
  switch (s.kind) {
    case 'assign': {
      const [first, ...rest] = s.target;
      if (rest.length > 0) prepare(ctx, { kind: 'ref', name: first as string, span: s.span }, out);
      prepare(ctx, s.value, out);
      return;
    }
    case 'expr':
      prepare(ctx, s.expr, out);
      return;
    case 'if':
      // An elif is an if of its own inside the else branch.
      prepare(ctx, (s.branches[0] as (typeof s.branches)[number]).test, out);
      return;
    case 'for':
      // A for over a relation runs per element, so it waits only for the instance holding the relation.
      if (s.iter.kind === 'attr') prepare(ctx, s.iter.obj, out);
      else if (s.iter.kind !== 'ref') prepare(ctx, s.iter, out);
      return;
    default:
      return;
  }
}

function runStatement(ctx: Ctx, s: Stmt): void {
  switch (s.kind) {
    case 'assign':
      return assign(ctx, s);
    case 'expr':
      evaluate(ctx, s.expr);
      return;
    case 'for': {
      const iteration = (item: Value): void => {
        const body = new Scope(ctx.c.sched, ctx.scope.ns, ctx.scope, [s.name, ...declaredNames(s.body)]);
        body.own(s.name)?.set(item, s.span);
        emitBlock(ctx.c, s.body, body, ctx.creator);
      };
      // Over a relation the body runs for each element as it arrives, before the relation is frozen.
      const rel = relationOf(ctx, s.iter);
      if (rel) {
        rel.subscribe(iteration);
        return;
      }
      for (const item of iterable(evaluate(ctx, s.iter), s.iter.span, s.iter)) iteration(item);
      return;
    }
    case 'if': {
      const [head, ...more] = s.branches;
      if (head && more.length > 0 && !truthy(evaluate(ctx, head.test))) {
        // `elif` is an if statement inside the else branch: it is scheduled as a statement of its own.
        const rest: Stmt = { ...s, branches: more };
        emitBlock(ctx.c, [rest], new Scope(ctx.c.sched, ctx.scope.ns, ctx.scope, []), ctx.creator);
        return;
      }
      let chosen = s.orelse;
      for (const b of s.branches) {
        if (truthy(evaluate(ctx, b.test))) {
          chosen = b.body;
          break;
        }
      }
      emitBlock(ctx.c, chosen, new Scope(ctx.c.sched, ctx.scope.ns, ctx.scope, declaredNames(chosen)), ctx.creator);
      return;
    }
    default:
      return;
  }
}

/** The relation an expression reads (`x.rel`, or `rel` on `self` in an implementation), if it is a multi-valued one. */
function relationOf(ctx: Ctx, e: Expr): ListVar | undefined {
  let slot;
  if (e.kind === 'attr') {
    const obj = evaluate(ctx, e.obj);
    if (!isInstance(obj)) return undefined;
    slot = obj.slots.get(e.name);
  } else if (e.kind === 'ref' && !e.name.includes('::')) {
    const found = ctx.scope.lookup(e.name, e.span);
    slot = found.attrOf?.slots.get(e.name);
  }
  return slot instanceof ListVar ? slot : undefined;
}

function assign(ctx: Ctx, s: Extract<Stmt, { kind: 'assign' }>): void {
  const [first, ...rest] = s.target;
  if (rest.length === 0) {
    if (s.op === '+=') throw new InmantaError('RuntimeException', `The += operator can only be used on relations, ${first} is a variable`, s.span);
    const v = ctx.scope.own(first as string);
    if (!v) throw new InmantaError('RuntimeException', `variable ${first} can not be assigned here`, s.span);
    if (s.value.kind === 'comp' && !ctx.staged) {
      // A comprehension fills the variable from its own step, as the real compiler's collector does.
      const comp = s.value;
      ctx.c.sched.add(comp.span, (unit) => v.set(comprehension({ ...ctx, unit }, comp), s.span));
      return;
    }
    v.set(evaluate(ctx, s.value), s.span);
    return;
  }
  let obj: Value = evaluate(ctx, { kind: 'ref', name: first as string, span: s.span });
  for (const name of rest.slice(0, -1)) obj = readAttribute(obj, name, s.span);
  const attr = rest.at(-1) as string;
  if (!isInstance(obj)) {
    const where = [first, ...rest.slice(0, -1)].join('.');
    throw new InmantaError('TypingException', `The object at ${where} is not an Entity but a <class '${pyClassName(obj)}'> with value ${pyStr(obj)}`, s.span);
  }
  const rel = obj.entity.relations().get(attr);
  // The compiler sees an attribute as a relation end of multiplicity 1 here.
  if (s.op === '+=' && (!rel || rel.upper === 1)) throw new InmantaError('TypingException', 'Can not use += on relations with multiplicity 1', s.span);
  const value = evaluate(ctx, s.value, rel?.target);
  obj.set(attr, value, s.span);
}

/**
 * The keyword arguments of a constructor call, evaluated, as two lists: the names in the order first
 * given and their values (a name given again keeps its place and takes the later value, as a map would).
 */
function constructorArgs(ctx: Ctx, e: Extract<Expr, { kind: 'new' }>, type: EntityType): { names: string[]; values: Value[] } {
  if (e.starstar.length > 0) {
    const m = kwValues(ctx, e.kwargs, e.starstar, type);
    return { names: [...m.keys()], values: [...m.values()] };
  }
  const names: string[] = [];
  const values: Value[] = [];
  const kwargs = e.kwargs;
  for (let i = 0; i < kwargs.length; i++) {
    const k = kwargs[i] as KwArg;
    const v = evaluate(ctx, k.value, type.relations().get(k.name)?.target);
    const at = names.indexOf(k.name);
    if (at < 0) {
      names.push(k.name);
      values.push(v);
    } else values[at] = v;
  }
  return { names, values };
}

/** `Type(k=v, **d)`: an index hit returns the existing instance (and re-assigns the given values to it). */
export function construct(ctx: Ctx, e: Extract<Expr, { kind: 'new' }>, expected: EntityType | undefined): Instance {
  // As `remember`, without a closure per call (a large model constructs thousands of instances).
  const memo = ctx.staged ?? ctx.unit;
  const known = memo.recall(e, ctx.key);
  if (known !== NOT_REMEMBERED) return known as Instance;
  const inst = constructNow(ctx, e, expected);
  memo.keep(e, ctx.key, inst);
  return inst;
}

function constructNow(ctx: Ctx, e: Extract<Expr, { kind: 'new' }>, expected: EntityType | undefined): Instance {
  const type = ctx.c.constructorType(e.type, ctx.scope.ns, e.span, expected);
  const plan = planFor(e, type);
  if (!plan) return constructAnyCall(ctx, e, type);
  // As the general way below, for a call that cannot fail before the index lookup, with what the call
  // site always does worked out once.
  const kwargs = e.kwargs;
  const values: Value[] = new Array(kwargs.length);
  for (let i = 0; i < kwargs.length; i++) values[i] = evaluate(ctx, (kwargs[i] as KwArg).value, plan.targets[i]);
  const used = plan.used;
  // Constant defaults are the same for every call; a new instance then starts with them set.
  const start = startOf(plan);
  let defaults: readonly Value[];
  if (start) defaults = start.defaults;
  else {
    const made: Value[] = new Array(used.length);
    for (let i = 0; i < used.length; i++) made[i] = defaultValue(ctx, used[i] as DefaultOf);
    defaults = made;
  }
  const c = ctx.c;
  const keys: IndexKey[] = new Array(plan.indexes.length);
  for (let x = 0; x < plan.indexes.length; x++) {
    const { sources } = plan.indexes[x] as ConstructorPlan['indexes'][number];
    const key: KeyPart[] = new Array(sources.length);
    for (let j = 0; j < sources.length; j++) key[j] = c.keyPart(source(values, defaults, sources[j] as number) ?? null);
    keys[x] = key;
  }
  return place(ctx, e, type, plan.slots, values, used, defaults, keys, start?.instance);
}

/** The value of a default the call left in place. */
function defaultValue(ctx: Ctx, d: DefaultOf): Value {
  return d.literal ? literalValue(d) : evaluate({ ...ctx, scope: d.ns.scope, key: `${ctx.key}/default` }, d.expr);
}

/** Any constructor call: `**` arguments, a name given twice, unknown names and missing index attributes are found here. */
function constructAnyCall(ctx: Ctx, e: Extract<Expr, { kind: 'new' }>, type: EntityType): Instance {
  const { names, values } = constructorArgs(ctx, e, type);
  const n = names.length;
  // Every name given is an attribute or a relation end: each has a slot in the type's layout.
  const layout = slotIndex(type);
  const slots: number[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const at = layout.get(names[i] as string);
    if (at === undefined) throw new InmantaError('TypingException', `no attribute ${names[i]} on type ${type.fullName}`, e.span);
    slots[i] = at;
  }
  // The defaults the call did not override, and their values (in declaration order).
  const used: DefaultOf[] = [];
  const defaults: Value[] = [];
  const all = defaultsOf(type);
  for (let i = 0; i < all.length; i++) {
    const d = all[i] as DefaultOf;
    if (names.includes(d.name)) continue;
    defaults.push(defaultValue(ctx, d));
    used.push(d);
  }
  const defaultOf = (a: string): number => used.findIndex((d) => d.name === a);
  const identity = (a: string): Value | undefined => {
    const at = names.indexOf(a);
    return at >= 0 ? values[at] : defaults[defaultOf(a)];
  };
  const missing: string[] = [];
  for (const ix of type.allIndexes()) for (const a of ix.attrs) if (!names.includes(a) && defaultOf(a) < 0 && !missing.includes(a)) missing.push(a);
  if (missing.length > 0) {
    const rels = type.relations();
    const lines = missing.map((a) => {
      const what = rels.has(a) ? 'relation' : 'attribute';
      return `\n\t* Missing ${what} '${a}'. The ${what} ${type.fullName}.${a} is part of an index.`;
    });
    throw new InmantaError('IndexAttributeMissingInConstructorException', `Invalid Constructor call:${lines.join('')}`, e.span);
  }
  return place(ctx, e, type, slots, values, used, defaults, ctx.c.indexKeys(type, identity));
}

/**
 * The instance a constructor call with these values gives: the existing one with the same index key (given
 * the values again), or a new one, registered under `keys` and with its implementations scheduled.
 */
function place(
  ctx: Ctx,
  e: Extract<Expr, { kind: 'new' }>,
  type: EntityType,
  slots: readonly number[],
  values: readonly Value[],
  used: readonly DefaultOf[],
  defaults: readonly Value[],
  keys: readonly IndexKey[],
  start?: InstanceStart,
): Instance {
  const c = ctx.c;
  const existing = c.findExisting(type, keys);
  if (existing) {
    if (existing.entity !== type) {
      throw new InmantaError('DuplicateException', `${existing} and a new ${type.fullName} have the same index key`, e.span);
    }
    existing.constructedAgainAt(e.span);
    // The constructor assigns its defaults again too: a default that differs is a double set.
    for (let i = 0; i < used.length; i++) existing.setAt((used[i] as DefaultOf).slot, defaults[i] as Value, e.span);
    for (let i = 0; i < slots.length; i++) existing.setAt(slots[i] as number, values[i] as Value, e.span);
    return existing;
  }
  if (++c.instanceCount > c.maxInstances) {
    const by = ctx.creator ? `, here by the implementation of ${ctx.creator}` : '';
    throw new InmantaError(
      'RuntimeException',
      `The model constructs more than ${c.maxInstances} instances: an implementation that keeps constructing its own entity never ends (${type.fullName} constructed again${by}). Set CAIRN_INMANTA_MAX_INSTANCES for a model that really is this large`,
      e.span,
    );
  }
  // `start`: the instance starts with its defaults set (see startOf).
  const inst = new Instance(c.sched, type, e.span, ctx.creator, start);
  inst.trackGrowing(c.sched);
  // A default counts as set where it is declared, as the real compiler reports it.
  if (!start) for (let i = 0; i < used.length; i++) inst.setAt((used[i] as DefaultOf).slot, defaults[i] as Value, (used[i] as DefaultOf).expr.span);
  for (let i = 0; i < slots.length; i++) inst.setAt(slots[i] as number, values[i] as Value, e.span);
  c.instances.push(inst);
  c.register(inst, type, keys);
  scheduleImplementations(c, inst);
  return inst;
}

/** The implement statements that apply to a type: its own, and its parents' where it says `using parents`. */
function implementsOf(type: EntityType): readonly ImplementDef[] {
  const known = implementsCache.get(type);
  if (known) return known;
  const out: ImplementDef[] = [];
  for (const i of type.implements) {
    out.push(i);
    if (i.usesParents) for (const p of type.parents) out.push(...implementsOf(p));
  }
  implementsCache.set(type, out);
  return out;
}
/** Implement statements are all defined before anything runs, so each type's list is worked out once. */
const implementsCache = new WeakMap<EntityType, readonly ImplementDef[]>();

function checkImplementable(type: EntityType, span: Span): void {
  if (implementsOf(type).length === 0) {
    throw new InmantaError('RuntimeException', `Unable to select implementation for entity ${type.name}`, span);
  }
}

/**
 * Whether every implement statement of a type chooses, unconditionally, only empty implementations (such as
 * `implement File using std::none`): then an instance has nothing to schedule. Worked out once per type.
 */
function nothingToImplement(type: EntityType): boolean {
  let known = nothingCache.get(type);
  if (known === undefined) {
    const imps = implementsOf(type);
    known = imps.length > 0 && imps.every((imp) => !imp.when && imp.impls.every((impl) => impl.body.length === 0));
    nothingCache.set(type, known);
  }
  return known;
}
const nothingCache = new WeakMap<EntityType, boolean>();

/** Each implement statement that applies is a step of its own, run once its condition's inputs are known. */
function scheduleImplementations(c: Compilation, inst: Instance): void {
  if (nothingToImplement(inst.entity)) return;
  const imps = implementsOf(inst.entity);
  if (imps.length === 0) {
    c.sched.add(inst.span, () => checkImplementable(inst.entity, inst.span));
    return;
  }
  const chosen: ImplementationDef[] = [];
  const apply = (imp: ImplementDef): void => {
    for (const impl of imp.impls) {
      if (chosen.includes(impl)) continue;
      chosen.push(impl);
      // An empty implementation (std::none) has nothing to schedule.
      if (impl.body.length === 0) continue;
      const body = new Scope(c.sched, impl.ns, impl.ns.scope, declaredNames(impl.body), inst);
      emitBlock(c, impl.body, body, inst);
    }
  };
  for (const imp of imps) {
    const when = imp.when;
    if (!when) {
      // Choosing only empty implementations (std::none) unconditionally has nothing to run.
      if (imp.impls.some((impl) => impl.body.length > 0)) c.sched.add(inst.span, () => apply(imp));
      else for (const impl of imp.impls) if (!chosen.includes(impl)) chosen.push(impl);
      continue;
    }
    const whenScope = new Scope(c.sched, imp.ns, imp.ns.scope, [], inst);
    const pre: Ctx = { c, unit: c.sched.placeholder, scope: whenScope, key: '', creator: inst, staged: newStaged() };
    const requires: Var[] = [];
    prepare(pre, when, requires);
    c.sched.add(
      inst.span,
      (unit) => {
        if (truthy(evaluate({ ...pre, unit }, when))) apply(imp);
      },
      requires,
    );
  }
}

/** Python's class name for a value, as `<class '...'>` shows it. */
function pyClassName(v: Value): string {
  if (v === null) return 'NoneType';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'int';
  if (typeof v === 'string') return 'str';
  if (Array.isArray(v)) return 'list';
  if (isDict(v)) return 'dict';
  if (isFloat(v)) return 'float';
  return 'object';
}

provideConstructor(construct);
