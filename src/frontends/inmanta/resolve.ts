/**
 * Name checks made before anything runs, as the real compiler's normalisation does: every call must name a
 * primitive cast or a plugin, and every constructor a type, so a misspelt name is reported even when a
 * runtime error would come earlier.
 */
import type { Expr, KwArg, Stmt } from './ast.js';
import type { Compilation } from './compilation.js';
import type { Namespace } from './namespace.js';
import { READS_ENVIRONMENT, resolveCall } from './plugins.js';

export function checkCalls(c: Compilation): void {
  const names: Names = { entityNames: new Set(c.entities.map((t) => t.name)), found: new Map() };
  for (const ns of c.namespaces.values()) for (let i = 0; i < ns.stmts.length; i++) statement(c, names, ns, ns.stmts[i] as Stmt);
}

/** What the checks already know: every entity's short name, and the type names already found from each namespace. */
interface Names {
  readonly entityNames: ReadonlySet<string>;
  readonly found: Map<Namespace, Set<string>>;
}

function statement(c: Compilation, names: Names, ns: Namespace, s: Stmt): void {
  // The statements of a large model are mostly expressions and assignments: checked without the lists below.
  if (s.kind === 'expr') return expression(c, names, ns, s.expr);
  if (s.kind === 'assign') return expression(c, names, ns, s.value);
  const exprs: (Expr | undefined)[] = [];
  const bodies: (readonly Stmt[])[] = [];
  switch (s.kind) {
    case 'for':
      exprs.push(s.iter);
      bodies.push(s.body);
      break;
    case 'if':
      for (const b of s.branches) {
        exprs.push(b.test);
        bodies.push(b.body);
      }
      bodies.push(s.orelse);
      break;
    case 'implementation':
      bodies.push(s.body);
      break;
    case 'implement':
      exprs.push(s.when);
      break;
    case 'entity':
      for (const a of s.attrs) exprs.push(a.default);
      break;
    case 'typedef':
      exprs.push(s.cond);
      break;
    case 'relation':
      exprs.push(...s.annotations);
      break;
    default:
      break;
  }
  for (const e of exprs) if (e) expression(c, names, ns, e);
  for (const b of bodies) for (const x of b) statement(c, names, ns, x);
}

function expression(c: Compilation, names: Names, ns: Namespace, e: Expr): void {
  if (e.kind === 'call' && READS_ENVIRONMENT.has(resolveCall(c, e.name, ns, e.span))) c.readsEnvironment = true;
  // A constructor's type, unless an unqualified name may still be inferred from the relation it is assigned to.
  if (e.kind === 'new' && (e.type.includes('::') || !names.entityNames.has(e.type))) {
    let found = names.found.get(ns);
    if (!found) {
      found = new Set();
      names.found.set(ns, found);
    }
    if (!found.has(e.type)) {
      c.lookupEntity(e.type, ns, e.span);
      found.add(e.type);
    }
  }
  if (e.kind === 'new' || e.kind === 'call') {
    // The arguments directly (a call per constructor argument adds up over a large model); a literal or a
    // name (most arguments) has nothing to check.
    if (e.kind === 'call') for (let i = 0; i < e.args.length; i++) expression(c, names, ns, e.args[i] as Expr);
    const kwargs = e.kwargs;
    for (let i = 0; i < kwargs.length; i++) {
      const value = (kwargs[i] as KwArg).value;
      if (value.kind !== 'lit' && value.kind !== 'ref') expression(c, names, ns, value);
    }
    for (let i = 0; i < e.starstar.length; i++) expression(c, names, ns, e.starstar[i] as Expr);
    return;
  }
  if (e.kind === 'lit' || e.kind === 'ref') return;
  for (const sub of children(e)) expression(c, names, ns, sub);
}

export function children(e: Expr): readonly Expr[] {
  switch (e.kind) {
    case 'attr':
      return [e.obj];
    case 'mapget':
      return [e.obj, e.key];
    case 'query':
      return e.args.map((a) => a.value);
    case 'selector':
      return [e.obj, ...e.args.map((a) => a.value)];
    case 'call':
    case 'new':
      return [...('args' in e ? e.args : []), ...e.kwargs.map((a) => a.value), ...e.starstar];
    case 'list':
      return e.items;
    case 'dict':
      return e.entries.map(([, v]) => v);
    case 'bin':
      return [e.left, e.right];
    case 'not':
    case 'neg':
      return [e.operand];
    case 'defined':
      return e.obj ? [e.obj] : [];
    case 'cond':
      return [e.test, e.then, e.else];
    case 'comp':
      return [e.value, ...e.fors.map((f) => f.iter), ...e.guards];
    default:
      return [];
  }
}

/** Whether an expression reads the variable `name` anywhere (a reference, an attribute path or a string field). */
export function mentions(e: Expr, name: string): boolean {
  if (e.kind === 'ref' && e.name === name) return true;
  if (e.kind === 'fmt' && e.parts.some((p) => typeof p !== 'string' && p.path[0] === name)) return true;
  return children(e).some((x) => mentions(x, name));
}
