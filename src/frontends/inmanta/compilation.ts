/** The state of one compile: namespaces, types, the scheduler, indexes and what std::print printed. */
import type { Span } from '../../core/diag.js';
import { InmantaError } from './errors.js';
import type { Instance } from './instance.js';
import type { Namespace } from './namespace.js';
import { Scheduler } from './scheduler.js';
import { BASE_TYPES, type BaseName, EntityType, type IndexDef, type Typedef, type ValueType } from './types.js';
import { isInstance, pyRepr, type Value } from './values.js';
import { ResultVar } from './vars.js';

export interface ModuleDirs {
  /** module name → module directory (holding model/, templates/, files/). */
  readonly modules: ReadonlyMap<string, string>;
  /** The project directory (its files/ and templates/ serve paths that start with `/`). */
  readonly project?: string;
}

/**
 * One attribute's part of an index key: a string, number, boolean or None stands for itself, an instance
 * for itself (one per id), anything else (a float, a list, a dict) for the one `KeyBox` of its repr.
 */
export type KeyPart = unknown;
/** An identity under one index: a part per attribute, in the index's sorted order. */
export type IndexKey = readonly KeyPart[];

/** The stand-in, one per repr, of a value that is not a key part of its own. */
class KeyBox {
  constructor(readonly repr: string) {}
}

/** How a key part is written where an index key is shown (a query's name, a pending query's key). */
function partText(p: KeyPart): string {
  if (p instanceof KeyBox) return p.repr;
  return isInstance(p) ? `#${p.id}` : pyRepr(p as Value);
}

/** A limit from the environment (a positive integer), else the default. */
function budget(name: string, fallback: number): number {
  const n = Number(process.env[name]);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

export class Compilation {
  readonly sched = new Scheduler();
  readonly namespaces = new Map<string, Namespace>();
  readonly entities: EntityType[] = [];
  /** Every instance, in the order they were made (which is the order of their ids). */
  readonly instances: Instance[] = [];
  readonly printed: string[] = [];
  /** Values read from a secret source (std::password): never printed, exported or stored. */
  readonly secrets = new Set<string>();
  /** Instances created so far, against `maxInstances`: a model that constructs without end stops with an error. */
  instanceCount = 0;
  readonly maxInstances = budget('CAIRN_INMANTA_MAX_INSTANCES', 250_000);
  /** Entity types found by name from each namespace, once the definitions are complete. */
  private readonly typeCache = new Map<Namespace, Map<string, EntityType>>();
  /** owner type + index attributes → first key part → ... → last key part → instance. */
  private readonly index = new Map<string, Map<KeyPart, unknown>>();
  /** The stand-ins of floats, lists and dicts in index keys, by repr. */
  private readonly boxes = new Map<string, KeyBox>();
  /** Queries waiting for an instance to appear under a key. */
  readonly pendingQueries = new Map<string, { var: ResultVar; type: EntityType; desc: string; span: Span }>();

  /** Whether the model calls a plugin that reads the environment of the machine the compile is for. */
  readsEnvironment = false;

  constructor(
    readonly dirs: ModuleDirs,
    /** The environment of the machine the compile is for (`std::get_env`); set before execution starts. */
    public env: Readonly<Record<string, string>> = {},
  ) {}

  // ---- names ----

  /** The namespace a `prefix::` refers to from `ns`: an alias, an imported name, or `std`. */
  namespaceFor(prefix: string, ns: Namespace, span: Span): Namespace {
    const full = ns.imports.get(prefix) ?? (prefix === 'std' || prefix === ns.name ? prefix : undefined);
    const target = full !== undefined ? this.namespaces.get(full) : undefined;
    if (!target) throw new InmantaError('TypeNotFoundException', `could not find namespace ${prefix} in namespace ${ns.name}`, span);
    return target;
  }

  /** The namespace a qualified type or plugin name points into: it must be imported (std always is). */
  qualifiedTarget(name: string, ns: Namespace, span: Span): Namespace {
    const prefix = name.slice(0, name.lastIndexOf('::'));
    const full = ns.imports.get(prefix) ?? (prefix === 'std' || prefix === ns.name ? prefix : undefined);
    const target = full !== undefined ? this.namespaces.get(full) : undefined;
    if (!target) {
      throw new InmantaError('MissingImportException', `could not find type ${name} in namespace ${ns.name}.\nTry importing the module with \`import ${prefix}\` in ${ns.file}`, span);
    }
    return target;
  }

  /** Looks a type up as the real compiler does: qualified via imports, else this namespace and its parents (not std). */
  lookupType(name: string, ns: Namespace, span: Span): EntityType | Typedef {
    const cut = name.lastIndexOf('::');
    if (cut >= 0) {
      const target = this.qualifiedTarget(name, ns, span);
      const found = target.types.get(name.slice(cut + 2));
      if (found) return found;
      throw new InmantaError('TypeNotFoundException', `could not find type ${name} in namespace ${target.name}`, span);
    } else {
      const chain = ns.name.split('::');
      for (let i = chain.length; i > 0; i--) {
        const found = this.namespaces.get(chain.slice(0, i).join('::'))?.types.get(name);
        if (found) return found;
      }
    }
    throw new InmantaError('TypeNotFoundException', `could not find type ${name} in namespace ${ns.name}`, span);
  }

  lookupEntity(name: string, ns: Namespace, span: Span): EntityType {
    const t = this.lookupType(name, ns, span);
    if (!(t instanceof EntityType)) throw new InmantaError('TypingException', `${name} is not an entity`, span);
    return t;
  }

  /** A constructor type, inferring an unqualified name from the relation it is assigned to (seed: type inference). */
  constructorType(name: string, ns: Namespace, span: Span, expected: EntityType | undefined): EntityType {
    // A name found in a namespace is found there again: only the inference below depends on the call.
    let known = this.typeCache.get(ns);
    if (!known) {
      known = new Map();
      this.typeCache.set(ns, known);
    }
    const hit = known.get(name);
    if (hit) return hit;
    try {
      const t = this.lookupEntity(name, ns, span);
      known.set(name, t);
      return t;
    } catch (e) {
      if (!expected || name.includes('::') || !InmantaError.is(e) || e.kind !== 'TypeNotFoundException') throw e;
      const matches = this.entities.filter((t) => t.name === name && t.isA(expected));
      if (matches.length === 1 && matches[0]) return matches[0];
      if (matches.length > 1) {
        const names = matches.map((t) => t.fullName).sort();
        throw new InmantaError(
          'AmbiguousTypeException',
          `Could not determine namespace for type ${name}. ${names.length} possible candidates exists: [${names.join(', ')}]. To resolve this, use the fully qualified name instead of the short name.`,
          span,
        );
      }
      throw e;
    }
  }

  valueType(ref: { name: string; list: boolean; nullable: boolean }, ns: Namespace, span: Span): ValueType {
    let t: ValueType;
    if (BASE_TYPES.has(ref.name)) t = { kind: 'base', name: ref.name as BaseName };
    else {
      const found = this.lookupType(ref.name, ns, span);
      if (found instanceof EntityType) throw new InmantaError('TypingException', `Attributes can only be a primitive type, ${found.fullName} is an entity`, span);
      t = found;
    }
    if (ref.list) t = { kind: 'list', of: t };
    if (ref.nullable) t = { kind: 'nullable', of: t };
    return t;
  }

  // ---- indexes ----

  /** The part of an index key that stands for `v` (values with the same repr give the same part). */
  keyPart(v: Value): KeyPart {
    if (v === null || typeof v !== 'object' || isInstance(v)) return v;
    const repr = pyRepr(v);
    let box = this.boxes.get(repr);
    if (!box) {
      box = new KeyBox(repr);
      this.boxes.set(repr, box);
    }
    return box;
  }

  /** The key of an identity under each index of `type` (`identity` gives an attribute's value, if it has one). */
  indexKeys(type: EntityType, identity: (attr: string) => Value | undefined): IndexKey[] {
    return type.allIndexes().map((ix) => ix.sorted.map((a) => this.keyPart(identity(a) ?? null)));
  }

  /** An index key as text: `attr=repr` for each attribute, in sorted order. */
  private keyText(ix: IndexDef, key: IndexKey): string {
    let text = '';
    for (let i = 0; i < ix.sorted.length; i++) text += `${i > 0 ? ',' : ''}${ix.sorted[i] as string}=${partText(key[i])}`;
    return text;
  }

  /** The instance registered under `key` in the index `id`, if any. */
  private lookup(id: string, key: IndexKey): Instance | undefined {
    let m = this.index.get(id);
    const last = key.length - 1;
    for (let i = 0; i < last && m !== undefined; i++) m = m.get(key[i]) as Map<KeyPart, unknown> | undefined;
    return m?.get(key[last]) as Instance | undefined;
  }

  /** The existing instance with the same identity under any index of `type`, if any (`keys` from `indexKeys`). */
  findExisting(type: EntityType, keys: readonly IndexKey[]): Instance | undefined {
    const indexes = type.allIndexes();
    for (let i = 0; i < indexes.length; i++) {
      const hit = this.lookup((indexes[i] as IndexDef).id, keys[i] as IndexKey);
      if (hit) return hit;
    }
    return undefined;
  }

  register(inst: Instance, type: EntityType, keys: readonly IndexKey[]): void {
    const indexes = type.allIndexes();
    for (let i = 0; i < indexes.length; i++) {
      const ix = indexes[i] as IndexDef;
      const key = keys[i] as IndexKey;
      let m = this.index.get(ix.id);
      if (!m) {
        m = new Map();
        this.index.set(ix.id, m);
      }
      const last = key.length - 1;
      for (let j = 0; j < last; j++) {
        let next = m.get(key[j]) as Map<KeyPart, unknown> | undefined;
        if (!next) {
          next = new Map();
          m.set(key[j], next);
        }
        m = next;
      }
      m.set(key[last], inst);
      if (this.pendingQueries.size > 0) this.pendingQueries.get(`${ix.id}|${this.keyText(ix, key)}`)?.var.set(inst, inst.span);
    }
  }

  /** An index query; waits (via the returned variable) until a matching instance is constructed. */
  query(type: EntityType, values: ReadonlyMap<string, Value>, span: Span): ResultVar {
    const names = [...values.keys()].sort().join(',');
    const ix = type.allIndexes().find((i) => i.sorted.join(',') === names);
    if (!ix) throw new InmantaError('NotFoundException', `No index defined on ${type.fullName} for this lookup: ${[...values.keys()].join(', ')}`, span);
    const id = ix.id;
    const parts = ix.sorted.map((a) => this.keyPart(values.get(a) ?? null));
    const key = this.keyText(ix, parts);
    const pk = `${id}|${key}`;
    let q = this.pendingQueries.get(pk);
    if (!q) {
      const v = new ResultVar(this.sched, `${type.fullName}[${key}]`);
      const hit = this.lookup(id, parts);
      if (hit) v.set(hit, hit.span);
      const desc = [...values].map(([k, x]) => `${k}=${isInstance(x) ? String(x) : pyRepr(x)}`).join(', ');
      q = { var: v, type, desc, span };
      this.pendingQueries.set(pk, q);
    }
    return q.var;
  }
}
