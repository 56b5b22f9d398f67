/** Namespaces (one per .cf file) and the lexical scopes of gradual execution. */
import type { Span } from '../../core/diag.js';
import type { Stmt } from './ast.js';
import { InmantaError } from './errors.js';
import type { Instance } from './instance.js';
import type { EntityType, ImplementationDef, Typedef } from './types.js';
import { ResultVar, type VarHost } from './vars.js';

export class Namespace {
  readonly types = new Map<string, EntityType | Typedef>();
  readonly implementations = new Map<string, ImplementationDef>();
  /** alias or full name → full namespace name. */
  readonly imports = new Map<string, string>();
  scope!: Scope;
  constructor(
    readonly name: string,
    readonly file: string,
    readonly stmts: readonly Stmt[],
  ) {}
  get module(): string {
    return this.name.split('::')[0] ?? this.name;
  }
}

/** Names a block assigns with `name = …`: they belong to that block's scope wherever the statement sits in it. */
export function declaredNames(stmts: readonly Stmt[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < stmts.length; i++) {
    const s = stmts[i] as Stmt;
    if (s.kind === 'assign' && s.target.length === 1 && s.op === '=' && s.target[0]) out.push(s.target[0]);
  }
  return out;
}

export class Scope {
  private readonly vars = new Map<string, ResultVar>();
  constructor(
    host: VarHost,
    readonly ns: Namespace,
    readonly parent: Scope | undefined,
    names: readonly string[],
    /** In an implementation: the instance, whose attributes are visible by name. */
    readonly self?: Instance,
  ) {
    for (const n of names) if (!this.vars.has(n)) this.vars.set(n, new ResultVar(host, n));
    if (self) {
      const v = new ResultVar(host, 'self');
      v.set(self, self.span);
      this.vars.set('self', v);
    }
  }

  own(name: string): ResultVar | undefined {
    return this.vars.get(name);
  }

  /** The variable a name refers to here when that is a variable (not an attribute of `self`), as `lookup` finds it. */
  variable(name: string): ResultVar | undefined {
    for (let s: Scope | undefined = this; s; s = s.parent) {
      const v = s.vars.get(name);
      if (v) return v;
      if (s.self?.slots.has(name)) return undefined;
    }
    return undefined;
  }

  /** The variable a name refers to here: local blocks, then `self`'s attributes, then the namespace. */
  lookup(name: string, span: Span): { var?: ResultVar; attrOf?: Instance } {
    for (let s: Scope | undefined = this; s; s = s.parent) {
      const v = s.vars.get(name);
      if (v) return { var: v };
      if (s.self?.slots.has(name)) return { attrOf: s.self };
    }
    throw new InmantaError('NotFoundException', `variable ${name} not found`, span);
  }

  get selfInstance(): Instance | undefined {
    for (let s: Scope | undefined = this; s; s = s.parent) if (s.self) return s.self;
    return undefined;
  }

  /** Every variable visible here, nearest first (for templates). */
  visible(): Map<string, ResultVar | Instance> {
    const out = new Map<string, ResultVar | Instance>();
    for (let s: Scope | undefined = this; s; s = s.parent) {
      for (const [k, v] of s.vars) if (!out.has(k)) out.set(k, v);
      if (s.self) for (const k of s.self.slots.keys()) if (!out.has(k)) out.set(k, s.self);
    }
    return out;
  }
}
