/**
 * Runs units of work until nothing can progress, then freezes the gradual variable with the most waiting
 * readers (the real compiler's progress-potential heuristic) and goes on; variables nobody reads freeze last.
 */
import type { Span } from '../../core/diag.js';
import { Wait, type Parked, type Var, type VarHost } from './vars.js';

/** What `Memo.recall` answers when nothing was remembered. */
export const NOT_REMEMBERED: unique symbol = Symbol('not remembered');

/** Results remembered per syntax node (and per key, for one expression evaluated per element); made on first use. */
export class Memo {
  /** The first node remembered without a key (most statements remember one thing), then a map for more. */
  private firstNode: object | undefined;
  private firstValue: unknown;
  private plain: Map<object, unknown> | undefined;
  private keyed: Map<object, Map<string, unknown>> | undefined;
  remember<T>(node: object, key: string, make: () => T): T {
    const known = this.recall(node, key);
    if (known !== NOT_REMEMBERED) return known as T;
    const v = make();
    this.keep(node, key, v);
    return v;
  }
  /** What was remembered for `node` and `key`, or NOT_REMEMBERED. */
  recall(node: object, key: string): unknown {
    if (key === '') {
      if (this.firstNode === node) return this.firstValue;
      const plain = this.plain;
      return plain !== undefined && plain.has(node) ? plain.get(node) : NOT_REMEMBERED;
    }
    const m = this.keyed?.get(node);
    return m !== undefined && m.has(key) ? m.get(key) : NOT_REMEMBERED;
  }
  /** Remembers `v` for `node` and `key` (nothing was remembered for them yet). */
  keep(node: object, key: string, v: unknown): void {
    if (key === '') {
      if (this.firstNode === undefined) {
        this.firstNode = node;
        this.firstValue = v;
      } else (this.plain ??= new Map()).set(node, v);
      return;
    }
    const all = (this.keyed ??= new Map());
    let m = all.get(node);
    if (!m) {
      m = new Map();
      all.set(node, m);
    }
    m.set(key, v);
  }
}

/** A unit of work; as a memo it holds the results of constructors and plugin calls already made, so a rerun does not repeat their effects. */
export class Unit extends Memo implements Parked {
  done = false;
  waitingOn: Var | undefined;
  /** Inputs still missing, plus one while the unit is being set up; it is queued when this drops to zero. */
  waitcount = 1;
  constructor(
    private readonly sched: Scheduler,
    readonly span: Span,
    readonly body: (u: Unit) => void,
  ) {
    super();
  }
  /** Registers on every input (in `requires` from `from` on) that is not known yet, then queues the unit if nothing is missing. */
  await(requires: readonly Var[], from = 0): void {
    for (let i = from; i < requires.length; i++) {
      const v = requires[i] as Var;
      if (v.known) continue;
      this.waitcount++;
      this.waitingOn = v;
      v.park(this);
    }
    this.wake();
  }
  wake(): void {
    this.waitcount--;
    if (this.waitcount === 0) {
      this.waitingOn = undefined;
      this.sched.enqueue(this);
    }
  }
}

/** A candidate to freeze: a variable with its count of waiters when it was recorded, and the order it was first seen. */
interface Candidate {
  readonly v: Var;
  readonly waiters: number;
  readonly seq: number;
}

/** Whether `a` goes before `b`: more waiters first, then the one seen first. */
function before(a: Candidate, b: Candidate): boolean {
  return a.waiters !== b.waiters ? a.waiters > b.waiters : a.seq < b.seq;
}

/** A binary heap of candidates; an entry whose count is out of date is dropped when it comes up. */
class CandidateHeap {
  private readonly items: Candidate[] = [];
  get size(): number {
    return this.items.length;
  }
  push(c: Candidate): void {
    const a = this.items;
    let i = a.length;
    a.push(c);
    while (i > 0) {
      const up = (i - 1) >> 1;
      if (!before(c, a[up] as Candidate)) break;
      a[i] = a[up] as Candidate;
      i = up;
    }
    a[i] = c;
  }
  peek(): Candidate | undefined {
    return this.items[0];
  }
  pop(): void {
    const a = this.items;
    const last = a.pop() as Candidate;
    if (a.length === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= a.length) break;
      const r = l + 1;
      const child = r < a.length && before(a[r] as Candidate, a[l] as Candidate) ? r : l;
      if (!before(a[child] as Candidate, last)) break;
      a[i] = a[child] as Candidate;
      i = child;
    }
    a[i] = last;
  }
}

export class Scheduler implements VarHost {
  private queue: Unit[] = [];
  private head = 0;
  /**
   * Variables that may still be frozen, in the order they were first seen, each with the number it was given
   * then. A variable holds its number (`trackSeq`) while it is on the list; an entry whose variable no longer
   * holds that number has left it. (A map keyed by the variables costs more than the rest of their upkeep.)
   */
  private tracked: Var[] = [];
  private trackedSeq: number[] = [];
  private seq = 0;
  /** Whether a variable was tracked under a number reserved before the last one on the list (see `trackReserved`). */
  private unordered = false;
  /** How many times everything that could still be frozen was frozen (the last step of `run`). */
  freezeAllRounds = 0;
  /** Gradual variables whose count of waiters went up since the last choice. */
  private readonly changed = new Set<Var>();
  private readonly candidates = new CandidateHeap();
  /**
   * Units in the order they were made, those not yet done among them (what `stuck` reports); the done ones
   * are dropped once they are most of the list (cheaper than a set each unit is added to and removed from).
   */
  private pending: Unit[] = [];
  private pendingDone = 0;
  /** Stands in for the unit while a statement is being split into steps, before its own unit exists. */
  readonly placeholder: Unit = new Unit(this, { file: '', line: 0, col: 0 }, () => {});

  /** A unit that is queued once every variable in `requires` is known, in the order those values arrive. */
  add(span: Span, body: (u: Unit) => void, requires: readonly Var[] = []): Unit {
    return this.addUnit(new Unit(this, span, body), requires);
  }

  /** `add` of a unit made by the caller (a subclass that runs its own body), waiting on `requires` from `from` on. */
  addUnit<U extends Unit>(u: U, requires: readonly Var[], from = 0): U {
    this.pending.push(u);
    u.await(requires, from);
    return u;
  }

  enqueue(u: Unit): void {
    this.queue.push(u);
  }

  freezable(v: Var): void {
    this.track(v);
    this.changed.add(v);
  }

  /** Also registers variables that nobody waits on yet, so they are frozen at the end. */
  track(v: Var): void {
    // A variable leaves this list only once it can no longer be frozen, so it never comes back.
    if (v.trackSeq !== 0) return;
    v.trackSeq = ++this.seq;
    this.tracked.push(v);
    this.trackedSeq.push(v.trackSeq);
  }

  /** Numbers `n` variables that are tracked later, if ever (an instance's growing relation ends); the first number. */
  reserve(n: number): number {
    const first = this.seq + 1;
    this.seq += n;
    return first;
  }

  /** Tracks `v` under a number `reserve` gave: it takes the place in the order that number has. */
  trackReserved(v: Var, seq: number): void {
    const last = this.trackedSeq.length;
    if (last > 0 && (this.trackedSeq[last - 1] as number) > seq) this.unordered = true;
    v.trackSeq = seq;
    this.tracked.push(v);
    this.trackedSeq.push(seq);
  }

  /** The variables still on the list, in the order of their numbers; the list is emptied. */
  private takeTracked(): Var[] {
    const out: Var[] = [];
    for (let i = 0; i < this.tracked.length; i++) {
      const v = this.tracked[i] as Var;
      if (v.trackSeq !== this.trackedSeq[i]) continue;
      out.push(v);
    }
    if (this.unordered) out.sort((a, b) => a.trackSeq - b.trackSeq);
    for (let i = 0; i < out.length; i++) (out[i] as Var).trackSeq = 0;
    this.tracked = [];
    this.trackedSeq = [];
    this.unordered = false;
    return out;
  }

  run(): void {
    for (;;) {
      this.drain();
      const best = this.mostAwaited();
      if (best) {
        best.trackSeq = 0;
        best.freeze();
        continue;
      }
      // Nobody waits on what is left: freeze it all, which may still wake readers registered meanwhile.
      // (A growing relation end whose variable is made later is made frozen: see Instance.materialize.)
      this.freezeAllRounds++;
      const rest = this.takeTracked().filter((v) => v.canFreeze());
      if (rest.length === 0) return;
      for (const v of rest) v.freeze();
      if (this.head >= this.queue.length) return;
    }
  }

  /** The freezable variable with the most waiters, the first seen among equals; none when nobody waits. */
  private mostAwaited(): Var | undefined {
    for (const v of this.changed) {
      const seq = v.trackSeq;
      if (v.waiters.length > 0 && seq !== 0) this.candidates.push({ v, waiters: v.waiters.length, seq });
    }
    this.changed.clear();
    for (let top = this.candidates.peek(); top; top = this.candidates.peek()) {
      const { v } = top;
      if (v.trackSeq !== 0 && v.canFreeze() && v.waiters.length === top.waiters) return v;
      // Out of date: frozen or set since, or its waiters were woken (a newer entry holds a higher count).
      this.candidates.pop();
      if (!v.canFreeze()) v.trackSeq = 0;
    }
    return undefined;
  }

  private drain(): void {
    while (this.head < this.queue.length) {
      const u = this.queue[this.head++] as Unit;
      // Drop what was run once it is most of the queue, so each unit is copied at most once on average.
      if (this.head > 4096 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
      if (u.done || u.waitcount > 0) continue;
      try {
        u.body(u);
        u.done = true;
        if (++this.pendingDone > 1024 && this.pendingDone * 2 > this.pending.length) {
          this.pending = this.pending.filter((p) => !p.done);
          this.pendingDone = 0;
        }
      } catch (e) {
        if (!(e instanceof Wait)) throw e;
        u.waitingOn = e.on;
        u.waitcount = 1;
        e.on.park(u);
      }
    }
    // Everything queued has run: the units (with what their statements kept) are let go.
    this.queue = [];
    this.head = 0;
  }

  stuck(): Unit[] {
    return this.pending.filter((u) => !u.done);
  }
}
