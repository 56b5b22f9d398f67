/** Evaluates definition statements before execution: types, typedefs, relations, implementations, indexes. */
import type { Span } from '../../core/diag.js';
import type { Expr, Stmt } from './ast.js';
import type { Compilation } from './compilation.js';
import { InmantaError } from './errors.js';
import { evaluate } from './evaluate.js';
import { declaredNames, type Namespace, Scope } from './namespace.js';
import { mentions } from './resolve.js';
import { Unit } from './scheduler.js';
import { EntityType, type ImplementationDef, type RelationDef, type Typedef, typeToString, type ValueType, validateValue } from './types.js';
import { Float, pyRepr, truthy, type Value } from './values.js';

type Of<K extends Stmt['kind']> = Extract<Stmt, { kind: K }>;

/**
 * The definitions of a namespace (the statements that are not assignments or expressions), found once: a
 * large model is mostly constructors, which the passes below would otherwise each go over.
 */
function definitionsOf(ns: Namespace): readonly Stmt[] {
  let defs = definitionCache.get(ns);
  if (!defs) {
    defs = [];
    const stmts = ns.stmts;
    for (let i = 0; i < stmts.length; i++) {
      const s = stmts[i] as Stmt;
      if (s.kind !== 'expr' && s.kind !== 'assign') defs.push(s);
    }
    definitionCache.set(ns, defs);
  }
  return defs;
}
const definitionCache = new WeakMap<Namespace, Stmt[]>();

function each<K extends Stmt['kind']>(c: Compilation, kind: K, fn: (s: Of<K>, ns: Namespace) => void): void {
  for (const ns of c.namespaces.values()) for (const s of definitionsOf(ns)) if (s.kind === kind) fn(s as Of<K>, ns);
}

function duplicate(what: string, name: string, span: Span): InmantaError {
  return new InmantaError('DuplicateException', `${what} ${name} is already defined`, span);
}

/** Python `re` syntax that JavaScript spells differently. */
function pythonRegex(src: string, span: Span): RegExp {
  try {
    return new RegExp(`^(?:${src.replace(/\(\?P</g, '(?<').replace(/\(\?P=(\w+)\)/g, '\\k<$1>')})`);
  } catch (e) {
    throw new InmantaError('ParserException', `invalid regex /${src}/: ${(e as Error).message}`, span);
  }
}

export function defineAll(c: Compilation): void {
  // Scopes first: typedef conditions and defaults evaluate in them.
  for (const ns of c.namespaces.values()) ns.scope = new Scope(c.sched, ns, undefined, declaredNames(ns.stmts));

  each(c, 'import', (s, ns) => {
    ns.imports.set(s.alias ?? s.name, s.name);
  });

  each(c, 'entity', (s, ns) => {
    const have = ns.types.get(s.name);
    if (have) throw duplicate('Entity', `${ns.name}::${s.name}`, s.span);
    const t = new EntityType(`${ns.name}::${s.name}`, ns, s.span);
    ns.types.set(s.name, t);
    c.entities.push(t);
  });

  each(c, 'typedef', (s, ns) => {
    const have = ns.types.get(s.name);
    if (have) throw duplicate('Type', `${ns.name}::${s.name}`, s.span);
    const base = c.valueType(s.base, ns, s.base.span);
    const fullName = `${ns.name}::${s.name}`;
    let check: (v: Value) => string | undefined;
    if (s.regex !== undefined) {
      const re = pythonRegex(s.regex, s.span);
      check = (v) => (typeof v === 'string' && re.test(v) ? undefined : `Invalid value ${pyRepr(v)}, does not match constraint \`${s.regex}\``);
    } else {
      const cond = s.cond as NonNullable<typeof s.cond>;
      if (!mentions(cond, 'self') && !mentions(cond, s.name)) throw new InmantaError('TypingException', 'typedef expressions should reference the self variable', s.span);
      check = (v) => {
        const scope = new Scope(c.sched, ns, ns.scope, ['self']);
        scope.own('self')?.set(v, s.span);
        const unit = new Unit(c.sched, s.span, () => {});
        return truthy(evaluate({ c, unit, scope, key: '', creator: undefined }, cond)) ? undefined : `Invalid value ${pyRepr(v)}, does not match constraint of ${fullName}`;
      };
    }
    const t: Typedef = { kind: 'typedef', fullName, base, check, span: s.span };
    ns.types.set(s.name, t);
  });

  const std = c.namespaces.get('std')?.types.get('Entity');
  each(c, 'entity', (s, ns) => {
    const t = ns.types.get(s.name) as EntityType;
    for (const p of s.parents) t.parents.push(c.lookupEntity(p, ns, s.span));
    if (t.parents.length === 0 && std instanceof EntityType && t !== std) t.parents.push(std);
    for (const a of s.attrs) {
      const first = t.ownAttributes.get(a.name);
      if (first) throw new InmantaError('DuplicateException', `attribute '${a.name}' already exists on entity '${t.name}'`, first.span);
      const type: ValueType = c.valueType(a.type, ns, a.type.span);
      const def = a.default === undefined ? undefined : a.default.kind === 'undef' ? ('undef' as const) : { expr: a.default, ns };
      // A default is a constant: literals, and lists and dicts of them (no interpolation, names or calls).
      const notConstant = a.default && a.default.kind !== 'undef' ? nonConstant(a.default) : undefined;
      if (notConstant !== undefined) throw new InmantaError('RuntimeException', `${notConstant} is not a constant`, a.span);
      // A literal default of the wrong type is reported where the attribute is declared, before anything runs.
      if (a.default?.kind === 'lit' && (type.kind === 'base' || (type.kind === 'nullable' && type.of.kind === 'base'))) {
        const lit = a.default.value;
        const why = validateValue(type, lit !== null && typeof lit === 'object' ? new Float(lit.float) : lit);
        if (why) throw new InmantaError('RuntimeException', why, a.span);
      }
      t.ownAttributes.set(a.name, def === undefined ? { name: a.name, type, owner: t, span: a.span } : { name: a.name, type, owner: t, default: def, span: a.span });
    }
  });
  for (const t of c.entities) {
    const seen = new Set<EntityType>();
    const visit = (x: EntityType, path: EntityType[]): void => {
      if (path.includes(x)) throw new InmantaError('TypingException', `Entity can not be its own parent ${[...path, x].map((p) => p.fullName).join(',')}`, t.span);
      if (seen.has(x)) return;
      seen.add(x);
      for (const p of x.parents) visit(p, [...path, x]);
    };
    visit(t, []);
  }
  // An inherited attribute may be declared again only with the same type (a new default is fine).
  for (const t of c.entities) {
    const have = new Map(t.ownAttributes);
    for (const p of t.lineage().slice(1)) {
      for (const [name, other] of p.ownAttributes) {
        const mine = have.get(name);
        if (!mine) have.set(name, other);
        else if (typeToString(mine.type) !== typeToString(other.type)) throw new InmantaError('DuplicateException', 'Incompatible attributes', mine.span);
      }
    }
  }

  each(c, 'relation', (s, ns) => {
    const left = c.lookupEntity(s.left.entity, ns, s.left.span);
    const right = c.lookupEntity(s.right.entity, ns, s.right.span);
    const add = (owner: EntityType, name: string, target: EntityType, lower: number, upper: number | undefined, span: Span) => {
      const attr = owner.attributes().get(name);
      if (attr) throw new InmantaError('DuplicateException', `attribute '${name}' already exists on entity '${owner.name}'`, attr.span);
      if (owner.ownRelations.has(name)) {
        throw new InmantaError('DuplicateException', `Attribute name ${name} is already defined in ${owner.fullName}`, span);
      }
      const r: RelationDef = { name, owner, target, lower, upper, span };
      owner.ownRelations.set(name, r);
      return r;
    };
    // `A.x [n] -- B.y [m]`: A gets attribute x (of B, multiplicity n), B gets y (of A, multiplicity m).
    const onLeft = add(left, s.left.name as string, right, s.left.lower ?? 0, s.left.upper, s.left.nameSpan ?? s.span);
    if (s.right.name) {
      const onRight = add(right, s.right.name, left, s.right.lower ?? 0, s.right.upper, s.right.nameSpan ?? s.span);
      onLeft.reverse = onRight;
      onRight.reverse = onLeft;
    }
  });

  each(c, 'implementation', (s, ns) => {
    const have = ns.implementations.get(s.name);
    if (have) throw duplicate('Implementation', `${ns.name}::${s.name} for type ${s.entity}`, s.span);
    const impl: ImplementationDef = { name: s.name, fullName: `${ns.name}::${s.name}`, entity: c.lookupEntity(s.entity, ns, s.span), body: s.body, ns, span: s.span };
    ns.implementations.set(s.name, impl);
  });

  each(c, 'implement', (s, ns) => {
    const entity = c.lookupEntity(s.entity, ns, s.span);
    const impls = s.impls.map((name) => lookupImplementation(c, name, ns, s.span));
    impls.forEach((i, n) => {
      if (!entity.isA(i.entity)) {
        throw new InmantaError('TypingException', `Type mismatch: cannot use ${s.impls[n]} as implementation for  ${entity.fullName} because its implementing type is ${i.entity.fullName}`, s.span);
      }
    });
    entity.implements.push(s.when ? { entity, impls, usesParents: s.parents, when: s.when, ns, span: s.span } : { entity, impls, usesParents: s.parents, ns, span: s.span });
  });

  each(c, 'index', (s, ns) => {
    const entity = c.lookupEntity(s.entity, ns, s.span);
    for (const a of s.attrs) {
      const rel = entity.relations().get(a);
      const attr = entity.attributes().get(a);
      if (!attr && !rel) throw new InmantaError('NotFoundException', `Attribute '${a}' referenced in index is not defined in entity ${entity.fullName}`, s.span);
      if (rel && rel.lower === 0) throw new InmantaError('IndexException', `Index can not contain optional relations, Relation ' ${a}.${entity.fullName}' is optional`, s.span);
      const isList = (t: ValueType): boolean => t.kind === 'list' || (t.kind === 'base' && t.name === 'list') || (t.kind === 'nullable' && isList(t.of));
      if ((rel && rel.upper !== 1) || (attr && isList(attr.type))) {
        throw new InmantaError('IndexException', `Index can not contain list attributes, Attribute ' ${a}.${entity.fullName}' is a list`, s.span);
      }
    }
    entity.indexes.push([...s.attrs]);
  });
}

/** As the real compiler resolves the names after `using`: like a type name (imported qualified, or this namespace). */
function lookupImplementation(c: Compilation, name: string, ns: Namespace, span: Span): ImplementationDef {
  const cut = name.lastIndexOf('::');
  const home = cut >= 0 ? c.qualifiedTarget(name, ns, span) : ns;
  const found = home.implementations.get(cut >= 0 ? name.slice(cut + 2) : name);
  if (!found) throw new InmantaError('TypeNotFoundException', `could not find type ${name} in namespace ${home.name}`, span);
  return found;
}

/** How the compiler shows the first part of a default that is not a constant, or undefined when it is one. */
function nonConstant(e: Expr): string | undefined {
  switch (e.kind) {
    case 'lit':
      return undefined;
    case 'list':
      for (const x of e.items) {
        const bad = nonConstant(x);
        if (bad !== undefined) return bad;
      }
      return undefined;
    case 'dict':
      for (const [, x] of e.entries) {
        const bad = nonConstant(x);
        if (bad !== undefined) return bad;
      }
      return undefined;
    case 'fmt':
      return `Format(${pyRepr(e.parts.map((p) => (typeof p === 'string' ? p : `{{${p.path.join('.')}}}`)).join(''))})`;
    case 'ref':
      return e.name;
    case 'attr':
      return `${nonConstant(e.obj) ?? '?'}.${e.name}`;
    case 'call':
      return `${e.name}()`;
    case 'new':
      return `Construct(${e.type})`;
    default:
      return e.kind;
  }
}
