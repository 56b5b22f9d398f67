/**
 * The variables of an instance, one per attribute and relation end. Every instance of a type has the same
 * names in the same order, so the type keeps the names once and each instance only an array of variables.
 */
import type { EntityType, RelationDef, ValueType } from './types.js';
import type { Var } from './vars.js';

/** One slot of a type: an attribute (with its type) or a relation end. */
export type SlotSpec = { readonly kind: 'attribute'; readonly name: string; readonly type: ValueType } | { readonly kind: 'relation'; readonly name: string; readonly rel: RelationDef };

export interface SlotLayout {
  readonly specs: readonly SlotSpec[];
  readonly names: readonly string[];
  readonly index: ReadonlyMap<string, number>;
  /** The slots that grow until frozen (optional and multi-valued relation ends), in order. */
  readonly growing: readonly number[];
}

const layouts = new WeakMap<EntityType, SlotLayout>();

/** The slots of a type, attributes first, then relation ends (a later one of the same name takes the place). */
export function layoutOf(entity: EntityType): SlotLayout {
  const known = layouts.get(entity);
  if (known) return known;
  const specs: SlotSpec[] = [];
  const index = new Map<string, number>();
  const put = (s: SlotSpec): void => {
    const at = index.get(s.name);
    if (at === undefined) {
      index.set(s.name, specs.length);
      specs.push(s);
    } else specs[at] = s;
  };
  for (const [name, a] of entity.attributes()) put({ kind: 'attribute', name, type: a.type });
  for (const [name, rel] of entity.relations()) put({ kind: 'relation', name, rel });
  const growing = specs.flatMap((s, i) => (s.kind === 'relation' && !(s.rel.upper === 1 && s.rel.lower === 1) ? [i] : []));
  const layout = { specs, names: specs.map((s) => s.name), index, growing };
  layouts.set(entity, layout);
  return layout;
}

/** An instance's variables by name: the read side of a map. */
export class Slots {
  constructor(
    private readonly layout: SlotLayout,
    private readonly vars: readonly Var[],
  ) {}
  get size(): number {
    return this.vars.length;
  }
  get(name: string): Var | undefined {
    const i = this.layout.index.get(name);
    return i === undefined ? undefined : this.vars[i];
  }
  has(name: string): boolean {
    return this.layout.index.has(name);
  }
  keys(): IterableIterator<string> {
    return this.layout.names[Symbol.iterator]();
  }
  /** The variables that grow until frozen: every one that can be frozen when the instance is new. */
  growing(): Var[] {
    return this.layout.growing.map((i) => this.vars[i] as Var);
  }
  values(): IterableIterator<Var> {
    return this.vars[Symbol.iterator]();
  }
  *[Symbol.iterator](): IterableIterator<[string, Var]> {
    for (let i = 0; i < this.vars.length; i++) yield [this.layout.names[i] as string, this.vars[i] as Var];
  }
}
