/**
 * Runs units of work until nothing can progress, then freezes the gradual variable with the most waiting
 * readers (the real compiler's progress-potential heuristic) and goes on; variables nobody reads freeze last.
 */
import type { Span } from '../../core/diag.js';
import { Wait, type Parked, type Var, type VarHost } from './vars.js';

export class Unit implements Parked {
  /** Results of constructors and plugin calls already made, so a rerun does not repeat their effects. */
  readonly memo = new Map<object, Map<string, unknown>>();
  done = false;
  waitingOn: Var | undefined;
  /** Inputs still missing, plus one while the unit is being set up; it is queued when this drops to zero. */
  waitcount = 1;
  constructor(
    private readonly sched: Scheduler,
    readonly span: Span,
    readonly body: (u: Unit) => void,
  ) {}
  /** Registers on every input that is not known yet, then queues the unit if nothing is missing. */
  await(requires: readonly Var[]): void {
    for (const v of requires) {
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
  remember<T>(node: object, key: string, make: () => T): T {
    let m = this.memo.get(node);
    if (!m) {
      m = new Map();
      this.memo.set(node, m);
    }
    if (m.has(key)) return m.get(key) as T;
    const v = make();
    m.set(key, v);
    return v;
  }
}

export class Scheduler implements VarHost {
  private queue: Unit[] = [];
  private head = 0;
  private readonly gradual = new Set<Var>();
  readonly units: Unit[] = [];
  /** Stands in for the unit while a statement is being split into steps, before its own unit exists. */
  readonly placeholder: Unit = new Unit(this, { file: '', line: 0, col: 0 }, () => {});

  /** A unit that is queued once every variable in `requires` is known, in the order those values arrive. */
  add(span: Span, body: (u: Unit) => void, requires: readonly Var[] = []): Unit {
    const u = new Unit(this, span, body);
    this.units.push(u);
    u.await(requires);
    return u;
  }

  enqueue(u: Unit): void {
    this.queue.push(u);
  }

  freezable(v: Var): void {
    this.gradual.add(v);
  }

  /** Also registers variables that nobody waits on yet, so they are frozen at the end. */
  track(v: Var): void {
    this.gradual.add(v);
  }

  run(): void {
    for (;;) {
      this.drain();
      let best: Var | undefined;
      for (const v of this.gradual) {
        if (!v.canFreeze()) {
          this.gradual.delete(v);
          continue;
        }
        if (v.waiters.length > 0 && (!best || v.waiters.length > best.waiters.length)) best = v;
      }
      if (best) {
        this.gradual.delete(best);
        best.freeze();
        continue;
      }
      if (this.gradual.size === 0) return;
      // Nobody waits on what is left: freeze it all, which may still wake readers registered meanwhile.
      const rest = [...this.gradual];
      this.gradual.clear();
      for (const v of rest) v.freeze();
      if (this.head >= this.queue.length) return;
    }
  }

  private drain(): void {
    while (this.head < this.queue.length) {
      const u = this.queue[this.head++] as Unit;
      if (this.head > 4096) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
      if (u.done || u.waitcount > 0) continue;
      try {
        u.body(u);
        u.done = true;
      } catch (e) {
        if (!(e instanceof Wait)) throw e;
        u.waitingOn = e.on;
        u.waitcount = 1;
        e.on.park(u);
      }
    }
  }

  stuck(): Unit[] {
    return this.units.filter((u) => !u.done);
  }
}
