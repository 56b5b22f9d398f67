/**
 * Assign-once variables of gradual execution. A reader that finds a value missing throws `Wait`; the
 * scheduler parks its unit on the variable and runs it again when the value arrives or the variable freezes.
 */
import type { Span } from '../../core/diag.js';
import { InmantaError, where } from './errors.js';
import { type ValueType, validateValue } from './types.js';
import { pyEquals, pyStr, type Value } from './values.js';

export interface Parked {
  wake(): void;
}

export class Wait {
  constructor(readonly on: Var) {}
}

export interface VarHost {
  /** Called when a variable that can be frozen gets a waiter (its count of waiters changed). */
  freezable(v: Var): void;
}

/** What an attribute variable belongs to: its label is only spelled out when a message needs it. */
export interface SlotOwner {
  toString(): string;
  readonly entity: { readonly fullName: string };
}

const NO_WAITERS: Parked[] = [];

// The variables made per instance set their fields in their constructors (no class field initializers):
// V8 builds such an object with plain stores instead of a call that defines each field.
export abstract class Var {
  declare waiters: Parked[];
  /** The number the scheduler gave it among the variables that may still be frozen; 0 while it is not one. */
  declare trackSeq: number;
  private declare readonly name: string;
  /** The instance whose attribute or relation end this is, if any. */
  declare readonly owner: SlotOwner | undefined;
  constructor(_host: VarHost, name: string, owner?: SlotOwner) {
    this.waiters = NO_WAITERS;
    this.trackSeq = 0;
    this.name = name;
    this.owner = owner;
  }
  /** Where a variable that can be frozen reports its waiters; only those keep it. */
  protected freezeHost(): VarHost | undefined {
    return undefined;
  }
  /** `instance.attribute` for a slot, else the name it was given. */
  get label(): string {
    return this.owner ? `${this.owner}.${this.name}` : this.name;
  }
  get slotName(): string {
    return this.name;
  }
  park(p: Parked): void {
    if (this.waiters === NO_WAITERS) this.waiters = [];
    this.waiters.push(p);
    if (this.canFreeze()) this.freezeHost()?.freezable(this);
  }
  protected wakeAll(): void {
    const w = this.waiters;
    if (w.length === 0) return;
    this.waiters = NO_WAITERS;
    for (const p of w) p.wake();
  }
  canFreeze(): boolean {
    return false;
  }
  freeze(): void {}
  abstract get known(): boolean;
  /** True when the variable holds a value other than null or an empty list (`is defined`). */
  abstract isDefined(): boolean;
}

/** A variable, an attribute or a `[1]` relation end. */
export class ResultVar extends Var {
  declare value: Value;
  declare isSet: boolean;
  declare setAt: Span | undefined;
  /** The declared type a value is checked against before it is stored (an attribute's). */
  declare type: ValueType | undefined;
  constructor(host: VarHost, name: string, owner?: SlotOwner) {
    super(host, name, owner);
    this.value = null;
    this.isSet = false;
    this.setAt = undefined;
    this.type = undefined;
  }

  get known(): boolean {
    return this.isSet;
  }
  set(v: Value, span: Span | undefined): void {
    if (this.isSet) {
      if (pyEquals(this.value, v)) return;
      throw new InmantaError(
        'DoubleSetException',
        `value set twice:\n\told value: ${pyStr(this.value)}\n\t\tset at ${where(this.setAt)}\n\tnew value: ${pyStr(v)}\n\t\tset at ${where(span)}\n`,
        span,
      );
    }
    const why = this.type ? validateValue(this.type, v) : undefined;
    if (why) throw new InmantaError('RuntimeException', why, span);
    this.value = v;
    this.isSet = true;
    this.setAt = span;
    this.wakeAll();
  }
  get(): Value {
    if (!this.isSet) throw new Wait(this);
    return this.value;
  }
  isDefined(): boolean {
    if (!this.isSet) throw new Wait(this);
    // As the seed says, an empty list counts as unset.
    return this.value !== null && !(Array.isArray(this.value) && this.value.length === 0);
  }
}

/** A `[0:1]` relation end: unset at freeze time means null. */
export class OptionVar extends ResultVar {
  declare frozen: boolean;
  private declare readonly host: VarHost;
  constructor(host: VarHost, name: string, owner?: SlotOwner) {
    super(host, name, owner);
    this.frozen = false;
    this.host = host;
  }
  protected override freezeHost(): VarHost {
    return this.host;
  }
  /** Raised when an empty option is read. */
  onEmpty(): InmantaError {
    const o = this.owner;
    const what = o ? `attribute \`${o.entity.fullName}.${this.slotName}\` of \`${o}\`` : this.label;
    return new InmantaError('OptionalValueException', `Optional variable accessed that has no value (${what})`);
  }

  override get known(): boolean {
    return this.isSet || this.frozen;
  }
  override canFreeze(): boolean {
    return !this.isSet && !this.frozen;
  }
  override freeze(): void {
    this.frozen = true;
    this.wakeAll();
  }
  override set(v: Value, span: Span | undefined): void {
    if (this.frozen && !this.isSet) throw new InmantaError('RuntimeException', `Attempting to modify ${this.label} after it was frozen`, span);
    super.set(v, span);
  }
  override get(): Value {
    if (this.isSet && this.value !== null) return this.value;
    if (this.isSet || this.frozen) throw this.onEmpty();
    throw new Wait(this);
  }
  override isDefined(): boolean {
    if (this.isSet) return this.value !== null;
    if (this.frozen) return false;
    throw new Wait(this);
  }
}

/** A relation end with more than one possible value: a set that grows until it is frozen. */
/** The elements of every relation end that has none yet (most of them, in a large model): one shared empty list. */
const NO_ITEMS: readonly Value[] = [];

export class ListVar extends Var {
  /** The elements, in the order they were added (a list of its own from the first one). */
  declare items: readonly Value[];
  /** Membership of `items` once it is long, so adding stays constant time on large relations. */
  private declare members: Set<Value> | undefined;
  /** Readers that take each element as it arrives (a `for` over a relation). */
  private declare listeners: ((v: Value) => void)[] | undefined;
  declare frozen: boolean;
  private declare readonly host: VarHost;
  declare readonly upper: number | undefined;
  constructor(host: VarHost, name: string, upper: number | undefined, owner?: SlotOwner) {
    super(host, name, owner);
    this.items = NO_ITEMS;
    this.members = undefined;
    this.listeners = undefined;
    this.frozen = false;
    this.host = host;
    this.upper = upper;
  }
  protected override freezeHost(): VarHost {
    return this.host;
  }
  private has(v: Value): boolean {
    if (this.members) return this.members.has(v);
    if (this.items.length < 16) return this.items.includes(v);
    this.members = new Set(this.items);
    return this.members.has(v);
  }
  get known(): boolean {
    return this.frozen;
  }
  override canFreeze(): boolean {
    return !this.frozen;
  }
  override freeze(): void {
    this.frozen = true;
    this.wakeAll();
  }
  /** False when the value was already there. */
  add(v: Value, span: Span | undefined): boolean {
    if (this.has(v)) return false;
    if (this.frozen) throw new InmantaError('RuntimeException', 'List modified after freeze', span).markFrozen();
    if (this.upper !== undefined && this.items.length >= this.upper) {
      throw new InmantaError('RuntimeException', `Exceeded relation arity on attribute '${this.slotName}' of instance '${this.owner ?? ''}'`, span);
    }
    if (this.items === NO_ITEMS) this.items = [v];
    else (this.items as Value[]).push(v);
    this.members?.add(v);
    if (this.listeners) for (const l of this.listeners) l(v);
    return true;
  }
  /** Calls `fn` for every element, those already there and those added later. */
  subscribe(fn: (v: Value) => void): void {
    for (const v of this.items) fn(v);
    (this.listeners ??= []).push(fn);
  }
  get(): readonly Value[] {
    if (!this.frozen) throw new Wait(this);
    return this.items;
  }
  isDefined(): boolean {
    if (!this.frozen) throw new Wait(this);
    return this.items.length > 0;
  }
}

/** Always known: stands in for an input whose failure the reading statement reports itself. */
export class KnownVar extends Var {
  get known(): boolean {
    return true;
  }
  isDefined(): boolean {
    return true;
  }
}

/**
 * Points at a variable that is only found once an earlier step ran (the attribute of an instance, the result of
 * an index query). Readers parked here move over to that variable when it is connected.
 */
export class ProxyVar extends Var {
  target: Var | undefined;
  get known(): boolean {
    return this.target !== undefined && this.target.known;
  }
  override park(p: Parked): void {
    if (!this.target) super.park(p);
    else if (this.target.known) p.wake();
    else this.target.park(p);
  }
  connect(target: Var): void {
    this.target = target;
    const w = this.waiters;
    this.waiters = NO_WAITERS;
    for (const p of w) {
      if (target.known) p.wake();
      else target.park(p);
    }
  }
  isDefined(): boolean {
    if (!this.target) throw new Wait(this);
    return this.target.isDefined();
  }
}
