/** The type system: primitive types, typedefs, entities with attributes and relation ends. */
import type { Span } from '../../core/diag.js';
import type { Expr, Stmt } from './ast.js';
import type { Namespace } from './namespace.js';
import { Float, isDict, isInstance, pyStr, type Value } from './values.js';

export type BaseName = 'string' | 'int' | 'float' | 'number' | 'bool' | 'dict' | 'list' | 'any';
export const BASE_TYPES = new Set<string>(['string', 'int', 'float', 'number', 'bool', 'dict', 'list', 'any']);

export interface Typedef {
  readonly kind: 'typedef';
  readonly fullName: string;
  readonly base: ValueType;
  /** Why a value does not fit the constraint, or undefined when it does. */
  readonly check: (v: Value) => string | undefined;
  readonly span: Span;
}

/** A value type as an attribute declares it. */
export type ValueType =
  | { readonly kind: 'base'; readonly name: BaseName }
  | Typedef
  | { readonly kind: 'list'; readonly of: ValueType }
  | { readonly kind: 'nullable'; readonly of: ValueType }
  | { readonly kind: 'entity'; readonly entity: EntityType };

export function typeToString(t: ValueType): string {
  switch (t.kind) {
    case 'base':
      return t.name;
    case 'typedef':
      return t.fullName;
    case 'list':
      return `${typeToString(t.of)}[]`;
    case 'nullable':
      return `${typeToString(t.of)}?`;
    case 'entity':
      return t.entity.fullName;
  }
}

function bad(t: ValueType, v: Value): string {
  return `Invalid value '${pyStr(v)}', expected ${typeToString(t)}`;
}

/** Why `v` does not fit `t`, or undefined. */
export function validateValue(t: ValueType, v: Value): string | undefined {
  switch (t.kind) {
    case 'nullable':
      return v === null ? undefined : validateValue(t.of, v);
    case 'list':
      if (!Array.isArray(v)) return bad(t, v);
      for (const x of v) {
        const why = validateValue(t.of, x);
        if (why) return why;
      }
      return undefined;
    case 'typedef': {
      const why = validateValue(t.base, v);
      return why ?? t.check(v);
    }
    case 'entity':
      if (isInstance(v)) return v.entity.isA(t.entity) ? undefined : `Invalid class type for ${pyStr(v)}, should be ${t.entity.fullName}`;
      return `Invalid type for value '${pyStr(v)}', should be type ${t.entity.fullName}`;
    case 'base':
      switch (t.name) {
        case 'any':
          return undefined;
        case 'string':
          return typeof v === 'string' ? undefined : bad(t, v);
        case 'int':
          return typeof v === 'number' ? undefined : bad(t, v);
        case 'float':
          // An int is not a float: `1` is refused, `1.0` or float(1) fits.
          return v instanceof Float ? undefined : bad(t, v);
        case 'number':
          return v instanceof Float || typeof v === 'number' ? undefined : bad(t, v);
        case 'bool':
          return typeof v === 'boolean' ? undefined : bad(t, v);
        case 'dict':
          return isDict(v) ? undefined : bad(t, v);
        case 'list':
          return Array.isArray(v) ? undefined : bad(t, v);
      }
  }
}

export interface AttributeDef {
  readonly name: string;
  readonly type: ValueType;
  readonly owner: EntityType;
  /** The default expression and the namespace it is evaluated in; `undef` removes an inherited default. */
  readonly default?: { readonly expr: Expr; readonly ns: Namespace } | 'undef';
  readonly span: Span;
}

export interface RelationDef {
  readonly name: string;
  readonly owner: EntityType;
  readonly target: EntityType;
  readonly lower: number;
  readonly upper: number | undefined;
  reverse?: RelationDef;
  readonly span: Span;
}

export interface ImplementationDef {
  readonly name: string;
  readonly fullName: string;
  readonly entity: EntityType;
  readonly body: readonly Stmt[];
  readonly ns: Namespace;
  readonly span: Span;
}

export interface ImplementDef {
  readonly entity: EntityType;
  readonly impls: readonly ImplementationDef[];
  readonly usesParents: boolean;
  readonly when?: Expr;
  readonly ns: Namespace;
  readonly span: Span;
}

/** An index as lookups use it: its attributes as declared and sorted, and a name unique to the index. */
export interface IndexDef {
  readonly owner: EntityType;
  readonly attrs: readonly string[];
  readonly sorted: readonly string[];
  readonly id: string;
}

export class EntityType {
  readonly kind = 'entity';
  readonly parents: EntityType[] = [];
  readonly ownAttributes = new Map<string, AttributeDef>();
  readonly ownRelations = new Map<string, RelationDef>();
  readonly implements: ImplementDef[] = [];
  /** Index definitions, own and inherited, as attribute-name lists. */
  readonly indexes: string[][] = [];
  private attrCache?: Map<string, AttributeDef>;
  private relCache?: Map<string, RelationDef>;
  private lineageCache?: EntityType[];
  private indexCache?: IndexDef[];

  constructor(
    readonly fullName: string,
    readonly ns: Namespace,
    readonly span: Span,
  ) {}

  get name(): string {
    return this.fullName.slice(this.fullName.lastIndexOf('::') + 2);
  }

  /** This type and all its ancestors, nearest first, left parent before right (kept once the types are defined). */
  lineage(): readonly EntityType[] {
    if (this.lineageCache) return this.lineageCache;
    const out: EntityType[] = [];
    const walk = (t: EntityType) => {
      if (out.includes(t)) return;
      out.push(t);
      for (const p of t.parents) walk(p);
    };
    walk(this);
    this.lineageCache = out;
    return out;
  }

  isA(other: EntityType): boolean {
    return this === other || this.parents.some((p) => p.isA(other));
  }

  /** Attributes with the nearest declaration's default winning. */
  attributes(): Map<string, AttributeDef> {
    if (this.attrCache) return this.attrCache;
    const out = new Map<string, AttributeDef>();
    for (const t of this.lineage()) {
      for (const [n, a] of t.ownAttributes) {
        if (!out.has(n)) out.set(n, a);
      }
    }
    this.attrCache = out;
    return out;
  }

  relations(): Map<string, RelationDef> {
    if (this.relCache) return this.relCache;
    const out = new Map<string, RelationDef>();
    for (const t of [...this.lineage()].reverse()) for (const [n, r] of t.ownRelations) out.set(n, r);
    this.relCache = out;
    return out;
  }

  /** Indexes of this type and its ancestors (kept once the compile runs: every index is defined before). */
  allIndexes(): readonly IndexDef[] {
    if (this.indexCache) return this.indexCache;
    const out = this.lineage().flatMap((t) =>
      t.indexes.map((attrs) => {
        const sorted = [...attrs].sort();
        return { owner: t, attrs, sorted, id: `${t.fullName}(${sorted.join(',')})` };
      }),
    );
    this.indexCache = out;
    return out;
  }

  toString(): string {
    return this.fullName;
  }
}
