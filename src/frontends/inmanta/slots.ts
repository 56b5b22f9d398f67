/**
 * The variables of an instance, one per attribute and relation end. Every instance of a type has the same
 * names in the same order, so the type keeps the names once (a layout) and each instance only an array.
 */

export interface SlotLayout<S extends { readonly name: string }> {
  readonly specs: readonly S[];
  readonly names: readonly string[];
  readonly index: ReadonlyMap<string, number>;
  /** The slots that grow until frozen, in order. */
  readonly growing: readonly number[];
}

/** A layout of `specs` in order; a later spec of a name already there takes its place. */
export function makeLayout<S extends { readonly name: string }>(all: Iterable<S>, grows: (s: S) => boolean): SlotLayout<S> {
  const specs: S[] = [];
  const index = new Map<string, number>();
  for (const s of all) {
    const at = index.get(s.name);
    if (at === undefined) {
      index.set(s.name, specs.length);
      specs.push(s);
    } else specs[at] = s;
  }
  const growing = specs.flatMap((s, i) => (grows(s) ? [i] : []));
  return { specs, names: specs.map((s) => s.name), index, growing };
}

/** Makes the variable of a slot that has none yet (an attribute's variable is made when something asks for it). */
export interface SlotSource<V> {
  materialize(i: number): V;
}

/**
 * An instance's variables by name: the read side of a map. A slot whose variable was not made yet has
 * none in `vars`; asking for it makes it (from `source`). The list itself is made with the first variable
 * (most instances of a large model never make one).
 */
export class Slots<V> {
  private declare readonly layout: SlotLayout<{ readonly name: string }>;
  private declare vars: (V | undefined)[] | undefined;
  private declare readonly source: SlotSource<V>;
  // Fields set here, not as class fields: one made per instance, with plain stores.
  constructor(layout: SlotLayout<{ readonly name: string }>, source: SlotSource<V>) {
    this.layout = layout;
    this.vars = undefined;
    this.source = source;
  }
  get size(): number {
    return this.layout.names.length;
  }
  get(name: string): V | undefined {
    const i = this.layout.index.get(name);
    return i === undefined ? undefined : this.at(i);
  }
  has(name: string): boolean {
    return this.layout.index.has(name);
  }
  keys(): IterableIterator<string> {
    return this.layout.names[Symbol.iterator]();
  }
  values(): IterableIterator<V> {
    const all: V[] = [];
    for (let i = 0; i < this.size; i++) all.push(this.at(i));
    return all[Symbol.iterator]();
  }
  /** Where the variable of `name` is in the layout (the same for every instance of the type). */
  indexOf(name: string): number | undefined {
    return this.layout.index.get(name);
  }
  /** The name of the `i`th variable. */
  nameAt(i: number): string {
    return this.layout.names[i] as string;
  }
  /** The `i`th variable, in layout order (made now if it was not yet). */
  at(i: number): V {
    const v = this.vars?.[i];
    if (v !== undefined) return v;
    const made = this.source.materialize(i);
    (this.vars ??= new Array<V | undefined>(this.size).fill(undefined))[i] = made;
    return made;
  }
  /** The `i`th variable if it was made, else undefined. */
  made(i: number): V | undefined {
    const vars = this.vars;
    return vars === undefined ? undefined : vars[i];
  }
  *[Symbol.iterator](): IterableIterator<[string, V]> {
    for (let i = 0; i < this.size; i++) yield [this.layout.names[i] as string, this.at(i)];
  }
}
