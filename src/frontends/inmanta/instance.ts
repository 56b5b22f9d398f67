/** An entity instance: one variable per attribute and relation end, with bidirectional relation upkeep. */
import type { Span } from '../../core/diag.js';
import { InmantaError, where } from './errors.js';
import type { EntityType, RelationDef, ValueType } from './types.js';
import { isInstance, toPlain, type Value } from './values.js';
import { makeLayout, type SlotLayout, Slots, type SlotSource } from './slots.js';
import { ListVar, OptionVar, ResultVar, type Var, type VarHost } from './vars.js';
import { validateValue } from './types.js';

let nextId = 0;

/** An attribute without a value yet (in an instance's plain values, see `Instance`). */
const UNSET: unique symbol = Symbol('unset');

/** One slot of a type: an attribute (with its type) or a relation end. */
type SlotSpec = { readonly kind: 'attribute'; readonly name: string; readonly type: ValueType } | { readonly kind: 'relation'; readonly name: string; readonly rel: RelationDef };

const layouts = new WeakMap<EntityType, SlotLayout<SlotSpec>>();

/**
 * The slots of a type: attributes, then relation ends (a relation end named like an attribute takes its place).
 * Optional and multi-valued relation ends grow until they are frozen.
 */
function layoutOf(entity: EntityType): SlotLayout<SlotSpec> {
  const known = layouts.get(entity);
  if (known) return known;
  const specs: SlotSpec[] = [];
  for (const [name, a] of entity.attributes()) specs.push({ kind: 'attribute', name, type: a.type });
  for (const [name, rel] of entity.relations()) specs.push({ kind: 'relation', name, rel });
  const layout = makeLayout(specs, grows);
  layouts.set(entity, layout);
  return layout;
}

/**
 * What a new instance starts from: its plain values (copied, not built, per instance), and how many of
 * its attributes and [1] relation ends have none yet.
 */
export interface InstanceStart {
  readonly cells: readonly unknown[];
  readonly unset: number;
}

/** Whether a slot is an optional or multi-valued relation end: it grows until it is frozen. */
function grows(s: SlotSpec): s is Extract<SlotSpec, { kind: 'relation' }> {
  return s.kind === 'relation' && !(s.rel.upper === 1 && s.rel.lower === 1);
}

/** The elements of a multi-valued relation end whose variable was not made yet: none (never added to). */
const NO_ELEMENTS: readonly Value[] = Object.freeze([]);

/**
 * What numbers the variables that may be frozen (the scheduler): an instance has its growing relation
 * ends numbered when it is made, in layout order, and each variable tracked under its number when it is
 * made, if ever.
 */
export interface GrowingTracker {
  /** Numbers `n` variables, to be tracked later; the first of their numbers. */
  reserve(n: number): number;
  /** Tracks `v` under the number reserved for it. */
  trackReserved(v: Var, seq: number): void;
  /** How many times everything that could still be frozen was frozen. */
  readonly freezeAllRounds: number;
}
const blanks = new WeakMap<EntityType, InstanceStart>();

function blankOf(entity: EntityType): InstanceStart {
  const known = blanks.get(entity);
  if (known) return known;
  const specs = layoutOf(entity).specs;
  const cells: unknown[] = [];
  for (let i = 0; i < specs.length; i++) cells.push(UNSET, undefined);
  const blank = { cells, unset: specs.filter((s) => !grows(s)).length };
  blanks.set(entity, blank);
  return blank;
}

/** A type whose check is the same for a value whatever runs before it: a primitive, or a list or optional one. */
function plainType(t: ValueType): boolean {
  return t.kind === 'base' || ((t.kind === 'list' || t.kind === 'nullable') && plainType(t.of));
}

/**
 * The plain values a new instance of `entity` starts with when a constructor leaves the attributes of
 * `slots` to their constant defaults `values` (set where `spans` say): its type's blank ones with those set,
 * as setting each in turn would. Undefined when that is not sure to be the same: a slot that is not an
 * attribute of a primitive type (a typedef's check may call a plugin), or a value its type refuses (setting
 * it reports that).
 */
export function prefilledStart(entity: EntityType, slots: readonly number[], values: readonly Value[], spans: readonly Span[]): InstanceStart | undefined {
  const specs = layoutOf(entity).specs;
  const blank = blankOf(entity);
  const cells = blank.cells.slice();
  for (let k = 0; k < slots.length; k++) {
    const i = slots[k] as number;
    const spec = specs[i] as SlotSpec;
    if (spec.kind !== 'attribute' || !plainType(spec.type) || cells[2 * i] !== UNSET) return undefined;
    if (validateValue(spec.type, values[k] as Value) !== undefined) return undefined;
    cells[2 * i] = values[k];
    cells[2 * i + 1] = spans[k];
  }
  return { cells, unset: blank.unset - slots.length };
}

/** Per type: whether it has a growing relation end that needs elements (the final check looks at those). */
const needsElements = new WeakMap<EntityType, boolean>();
function growingNeedsElements(entity: EntityType): boolean {
  let known = needsElements.get(entity);
  if (known === undefined) {
    known = layoutOf(entity).specs.some((s) => grows(s) && s.rel.lower > 0);
    needsElements.set(entity, known);
  }
  return known;
}

/** Where the slot of each attribute and relation end is in the layout of `entity`'s instances. */
export function slotIndex(entity: EntityType): ReadonlyMap<string, number> {
  return layoutOf(entity).index;
}

/** Where the slot of `name` is in the layout of `entity`'s instances, if it has one. */
export function slotOf(entity: EntityType, name: string): number | undefined {
  return layoutOf(entity).index.get(name);
}

/**
 * An instance of an entity. The variable of an attribute or of a [1] relation end is made only when
 * something asks for it (a read, a wait, a message, a second value); until then its value and where it was
 * set are kept as plain values in `cells` (two entries per slot), which is all most of them ever need: a
 * constructor sets them and the exporter reads them. Optional and multi-valued relation ends (which may
 * be frozen) have their variable from the start.
 */
export class Instance implements SlotSource<Var> {
  // Fields are set in the constructor (no class field initializers): V8 builds the object with plain stores.
  declare readonly isInstance: true;
  declare readonly id: number;
  declare readonly entity: EntityType;
  declare readonly span: Span;
  declare readonly slots: Slots<Var>;
  /** The instance whose implementation constructed this one, for `requires` on abstract entities. */
  declare readonly creator: Instance | undefined;
  /** Every later constructor call that produced this instance (an index hit adds its own), as the compiler lists them. */
  private declare sites: Span[] | undefined;
  private declare readonly layout: SlotLayout<SlotSpec>;
  private declare readonly host: VarHost;
  /** Per slot: the value of an attribute whose variable was not made yet (UNSET while it has none), then where it was set. */
  private declare readonly cells: unknown[];
  /** How many attributes and [1] relation ends have no plain value (see `incomplete`). */
  private declare unset: number;
  /** What tracks its growing relation ends, the number reserved for the first, and how many freeze-alls there were before it. */
  private declare tracker: GrowingTracker | undefined;
  private declare growSeq: number;
  private declare growRound: number;

  /** `start`: what to start from (see `prefilledStart`), else the type's blank start. */
  constructor(host: VarHost, entity: EntityType, span: Span, creator: Instance | undefined, start?: InstanceStart) {
    this.isInstance = true;
    this.id = nextId++;
    this.entity = entity;
    this.span = span;
    this.sites = undefined;
    this.creator = creator;
    this.host = host;
    const layout = layoutOf(entity);
    this.layout = layout;
    const blank = blankOf(entity);
    const from = start ?? blank;
    this.cells = from.cells.slice();
    this.unset = from.unset;
    this.slots = new Slots<Var>(layout, this);
    this.tracker = undefined;
    this.growSeq = 0;
    this.growRound = 0;
  }

  /**
   * The variable of the `i`th slot (Slots asks for it once): an attribute's or a [1] relation end's holds
   * the value set so far; a growing relation end's is made as it would be had it been made with the
   * instance, and tracked under the number it got then (or frozen, when everything left was frozen since).
   */
  materialize(i: number): Var {
    const s = this.layout.specs[i] as SlotSpec;
    if (grows(s)) {
      const g = s.rel.upper === 1 ? new OptionVar(this.host, s.name, this) : new ListVar(this.host, s.name, s.rel.upper, this);
      const t = this.tracker;
      if (t !== undefined) {
        // Nothing waits on it yet: frozen, it wakes nobody.
        if (t.freezeAllRounds > this.growRound) g.freeze();
        else t.trackReserved(g, this.growSeq + this.layout.growing.indexOf(i));
      }
      return g;
    }
    const v = new ResultVar(this.host, s.name, this);
    if (s.kind === 'attribute') v.type = s.type;
    const value = this.cells[2 * i];
    if (value !== UNSET) {
      v.value = value as Value;
      v.isSet = true;
      v.setAt = this.cells[2 * i + 1] as Span | undefined;
    }
    return v;
  }

  /**
   * Has `tracker` number the variables that can be frozen while the instance is new (its optional and
   * multi-valued relation ends), in layout order; each is made when something asks for it (most never are).
   */
  trackGrowing(tracker: GrowingTracker): void {
    const n = this.layout.growing.length;
    if (n === 0) return;
    this.tracker = tracker;
    this.growSeq = tracker.reserve(n);
    this.growRound = tracker.freezeAllRounds;
  }

  /** A later constructor call with the same index key returned this instance. */
  constructedAgainAt(span: Span): void {
    (this.sites ??= []).push(span);
  }

  toString(): string {
    return `${this.entity.fullName} (instantiated at ${[this.span, ...(this.sites ?? [])].map(where).join(',')})`;
  }

  slot(name: string, span: Span | undefined): Var {
    const v = this.slots.get(name);
    if (!v) throw new InmantaError('NotFoundException', `could not find attribute with name: ${name} in type ${this.entity.fullName}`, span);
    return v;
  }

  /** Assigns an attribute or adds to a relation; every failure is reported as the real compiler's AttributeException. */
  set(name: string, value: Value, span: Span | undefined): void {
    const i = this.slots.indexOf(name);
    if (i === undefined) throw new InmantaError('NotFoundException', `cannot set attribute with name ${name} on type ${this.entity.fullName}`, span);
    this.setAt(i, value, span);
  }

  /** `set` of the `i`th slot of the type's layout (the place of a name is the same in every instance of the type). */
  setAt(i: number, value: Value, span: Span | undefined): void {
    const spec = this.layout.specs[i] as SlotSpec;
    try {
      // A relation end named like an attribute takes its place in the layout, as it does in relations().
      if (spec.kind === 'attribute') {
        // A first value of an attribute nobody asked for yet is checked as its variable would and kept
        // plainly; anything else goes through the variable (a second value, a waiting reader).
        if (this.slots.made(i) === undefined && this.cells[2 * i] === UNSET) {
          const why = validateValue(spec.type, value);
          if (why) throw new InmantaError('RuntimeException', why, span);
          this.cells[2 * i] = value;
          this.cells[2 * i + 1] = span;
          this.unset--;
        } else (this.slots.at(i) as ResultVar).set(value, span);
      } else this.setRelation(i, spec.rel, value, span);
    } catch (e) {
      const name = spec.name;
      if (!InmantaError.is(e) || e.kind === 'AttributeException') throw e;
      throw new InmantaError('AttributeException', `Could not set attribute \`${name}\` on instance \`${this}\``, e.frozen ? this.span : span, [e]);
    }
  }

  private setRelation(at: number, rel: RelationDef, value: Value, span: Span | undefined): void {
    if (!Array.isArray(value)) {
      this.setRelationOne(at, rel, value, span);
      return;
    }
    for (let i = 0; i < value.length; i++) this.setRelationOne(at, rel, value[i] as Value, span);
  }

  /** Adds one value (an instance, or null) to a relation end. */
  private setRelationOne(at: number, rel: RelationDef, v: Value, span: Span | undefined): void {
    if (v === null) {
      const slot = this.slots.at(at);
      if (slot instanceof OptionVar) slot.set(null, span);
      else if (rel.lower > 0 || !(slot instanceof ListVar)) throw new InmantaError('RuntimeException', `Invalid value None for relation ${rel.owner.fullName}.${rel.name}`, span);
      return;
    }
    if (!isInstance(v) || !v.entity.isA(rel.target)) {
      throw new InmantaError('RuntimeException', `Invalid class type for ${String(v)}, should be ${rel.target.fullName}`, span);
    }
    if (!this.addOneAt(at, v, span)) return;
    if (rel.reverse) {
      const back = v.slots.get(rel.reverse.name);
      if (back) v.addOneWrapped(rel.reverse.name, back, this, span);
    }
  }

  /** `addOne` to the `at`th slot: the first value of a [1] relation end nobody asked for yet is kept plainly. */
  private addOneAt(at: number, v: Instance, span: Span | undefined): boolean {
    if (this.slots.made(at) === undefined && this.cells[2 * at] === UNSET && !grows(this.layout.specs[at] as SlotSpec)) {
      this.cells[2 * at] = v;
      this.cells[2 * at + 1] = span;
      this.unset--;
      return true;
    }
    return this.addOne(this.slots.at(at), v, span);
  }

  private addOne(slot: Var, v: Instance, span: Span | undefined): boolean {
    if (slot instanceof ListVar) return slot.add(v, span);
    const r = slot as ResultVar;
    if (r.isSet && r.value === v) return false;
    r.set(v, span);
    return true;
  }

  private addOneWrapped(name: string, slot: Var, v: Instance, span: Span | undefined): void {
    try {
      this.addOne(slot, v, span);
    } catch (e) {
      if (!InmantaError.is(e)) throw e;
      throw new InmantaError('AttributeException', `Could not set attribute \`${name}\` on instance \`${this}\``, e.frozen ? this.span : span, [e]);
    }
  }

  /** What is missing once everything is frozen; one message per attribute. */
  incomplete(out: InmantaError[] = []): InmantaError[] {
    // Every attribute and [1] relation end holds a plain value (most instances): set, as isSetAt finds.
    if (this.unset === 0 && !growingNeedsElements(this.entity)) return out;
    for (let i = 0; i < this.slots.size; i++) {
      // Most slots are set: their names are looked up only for a message.
      if (this.isSetAt(i)) continue;
      const spec = this.layout.specs[i] as SlotSpec;
      // A growing relation end whose variable was not made has no elements (and an optional one no value):
      // complete unless it needs some.
      const unmade = this.slots.made(i) === undefined && grows(spec);
      if (unmade && (spec.rel.upper === 1 || spec.rel.lower === 0)) continue;
      const name = this.slots.nameAt(i);
      const slot = unmade ? undefined : this.slots.at(i);
      if (unmade || slot instanceof ListVar) {
        const count = slot instanceof ListVar ? slot.items.length : 0;
        const lower = this.entity.relations().get(name)?.lower ?? 0;
        if (count < lower) {
          out.push(new InmantaError('UnsetException', `The object ${this} is not complete: attribute ${name}${this.declaredAt(name)} requires ${lower} values but only ${count} are set`).showAt(this.span));
        }
      } else if (slot instanceof OptionVar) {
        continue;
      } else if (!(slot as ResultVar).isSet) {
        out.push(new InmantaError('UnsetException', `The object ${this} is not complete: attribute ${name}${this.declaredAt(name)} is not set`).showAt(this.span));
      }
    }
    return out;
  }

  /** ` (file:line:col)` where the attribute or relation end `name` is declared, for a message. */
  private declaredAt(name: string): string {
    const declared = this.entity.relations().get(name)?.span ?? this.entity.attributes().get(name)?.span;
    return declared ? ` (${declared.file}:${declared.line}:${declared.col})` : '';
  }

  /** The value of an attribute once known (for the exporter: after the compile everything is). */
  value(name: string): Value | undefined {
    const i = this.slots.indexOf(name);
    return i === undefined ? undefined : this.valueAt(i);
  }

  /** Whether the `i`th slot is an attribute or a [1] relation end that holds a value. */
  private isSetAt(i: number): boolean {
    // An attribute that got a value before its variable was made (most of them) is set: a variable made
    // since holds that value.
    if (this.cells[2 * i] !== UNSET) return true;
    const spec = this.layout.specs[i] as SlotSpec;
    if (spec.kind === 'relation' && !(spec.rel.upper === 1 && spec.rel.lower === 1)) return false;
    const made = this.slots.made(i);
    return made === undefined ? this.cells[2 * i] !== UNSET : (made as ResultVar).isSet;
  }

  /**
   * For the exporter: sets `into[names[k]]` to the plain value (`toPlain`) of the slot `slots[k]`, null for
   * one without a value, as `toPlain(valueAt(slot) ?? null)` gives it; a value that was never made a
   * variable is read from the plain values here, without a call per slot (a small model's exporter runs
   * unoptimized, where each call costs as much as several lines of its work).
   */
  plainValuesInto(into: Record<string, unknown>, names: readonly string[], slots: readonly number[]): void {
    const specs = this.layout.specs;
    const cells = this.cells;
    for (let k = 0; k < slots.length; k++) {
      const i = slots[k] as number;
      let v: Value | undefined;
      const spec = specs[i] as SlotSpec;
      if (this.slots.made(i) !== undefined || (spec.kind === 'relation' && !(spec.rel.upper === 1 && spec.rel.lower === 1))) v = this.valueAt(i);
      else {
        const value = cells[2 * i];
        v = value === UNSET ? undefined : (value as Value);
      }
      into[names[k] as string] = v === undefined || v === null ? null : typeof v !== 'object' ? v : toPlain(v);
    }
  }

  /** `value` of the `i`th slot of the type's layout. */
  valueAt(i: number): Value | undefined {
    if (this.slots.made(i) === undefined) {
      const spec = this.layout.specs[i] as SlotSpec;
      // A growing relation end whose variable was not made: as its variable would read.
      if (grows(spec)) return spec.rel.upper === 1 ? null : (NO_ELEMENTS as Value[]);
      const value = this.cells[2 * i];
      return value === UNSET ? undefined : (value as Value);
    }
    const s = this.slots.at(i);
    if (s instanceof ListVar) return s.items;
    const r = s as ResultVar;
    return r.isSet ? r.value : s instanceof OptionVar ? null : undefined;
  }
}
