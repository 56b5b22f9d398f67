/** Runtime variables and modules, scope by scope (every block is a scope). */
import type { ModuleDecl, Sigil } from './ast.js';
import type { Value } from './values.js';

export function varKey(sigil: Sigil, name: string): string {
  return `${sigil}${name.toLowerCase()}`;
}

export class Scope {
  readonly vars = new Map<string, Value>();
  readonly modules = new Map<string, ModuleDecl>();

  constructor(readonly parent?: Scope) {}

  /** The nearest scope holding the variable. */
  holder(sigil: Sigil, name: string): Scope | undefined {
    const key = varKey(sigil, name);
    for (let s: Scope | undefined = this; s; s = s.parent) if (s.vars.has(key)) return s;
    return undefined;
  }

  get(sigil: Sigil, name: string): Value | undefined {
    return this.holder(sigil, name)?.vars.get(varKey(sigil, name));
  }

  set(sigil: Sigil, name: string, value: Value): void {
    this.vars.set(varKey(sigil, name), value);
  }

  module(name: string): ModuleDecl | undefined {
    const key = name.toLowerCase();
    for (let s: Scope | undefined = this; s; s = s.parent) {
      const m = s.modules.get(key);
      if (m) return m;
    }
    return undefined;
  }

  /**
   * For an asynchronous block: a copy of every scope's variables down to, but not including, `shared`
   * (the global scope), which the child keeps using so that global variables stay assignable.
   */
  fork(shared: Scope): Scope {
    if (this === shared) return this;
    const copy = new Scope(this.parent ? this.parent.fork(shared) : undefined);
    for (const [k, v] of this.vars) copy.vars.set(k, v);
    for (const [k, m] of this.modules) copy.modules.set(k, m);
    return copy;
  }
}
