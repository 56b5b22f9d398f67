/**
 * std::template, std::file and std::source: files come from a module's own templates/ or files/ folder
 * (`mod/path`, `./path` for the calling module, `/path` for the project's), never from outside it; templates
 * render with Jinja over the calling scope, read lazily so a value not known yet makes the call wait.
 */
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import { DiagnosticError, type Span } from '../../core/diag.js';
import { compileTemplate, Environment, PyCallable, PyDict, PyFloat, toDiagnosticError } from '../../lang/jinja/index.js';
import type { FilterFn } from '../../lang/jinja/filters.js';
import { Interpreter, Scope as JinjaScope } from '../../lang/jinja/interpreter.js';
import { PyObject, type PyValue, PyTuple } from '../../lang/jinja/pyvalue.js';
import type { Ctx } from './context.js';
import { InmantaError } from './errors.js';
import type { Instance } from './instance.js';
import type { Namespace } from './namespace.js';
import { Float, isDict, isFloat, isInstance, type Value } from './values.js';
import { ListVar, OptionVar, ResultVar, Wait } from './vars.js';

export type PluginFn = (ctx: Ctx, args: Value[], kwargs: Map<string, Value>, span: Span) => Value;

/** A plugin that raised: the compiler reports the plugin, and the plugin's own error as the cause. */
export function pluginFailure(name: string, cause: string, span: Span, kind: 'ExternalException' | 'WrappingRuntimeException' = 'ExternalException'): InmantaError {
  return new InmantaError(kind, `Exception in plugin ${name}`, span, [new InmantaError('RuntimeException', cause, span)]);
}

/** The file `path` names inside `folder` of its module, refused when it would lead outside that folder. */
export function moduleFilePath(ctx: Ctx, plugin: string, path: string, folder: 'templates' | 'files', span: Span, folderItself = false): string {
  const full = path.startsWith('./') ? `${ctx.scope.ns.module}/${path.slice(2)}` : path;
  const [mod = '', ...rest] = full.split('/');
  const base = mod === '' ? ctx.c.dirs.project : ctx.c.dirs.modules.get(mod);
  if (base === undefined) throw pluginFailure(plugin, `Module ${mod} does not exist for path ${path}`, span);
  const root = resolve(base, folder);
  const target = resolve(root, ...rest);
  const owner = mod === '' ? 'the project' : `module ${mod}`;
  const inside = (r: string, t: string): boolean => {
    const rel = relative(r, t);
    return (rel !== '' || folderItself) && !rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep);
  };
  let escapes = !inside(root, target);
  // A symbolic link inside the folder may not lead out of it either.
  if (!escapes && existsSync(target) && existsSync(root)) escapes = !inside(realpathSync(root), realpathSync(target));
  if (escapes) throw pluginFailure(plugin, `${path} is outside the ${folder} directory of ${owner}`, span);
  return target;
}

export function readModuleFile(ctx: Ctx, plugin: string, path: string, span: Span): string {
  const file = moduleFilePath(ctx, plugin, path, 'files', span);
  if (!existsSync(file) || !statSync(file).isFile()) throw pluginFailure(plugin, `${path} isn't a valid file (${file})`, span);
  return readFileSync(file, 'utf8');
}

/** A model value as a template sees it; instances and namespaces are read attribute by attribute. */
function toTemplate(v: Value): PyValue {
  if (v === null || typeof v === 'boolean' || typeof v === 'number' || typeof v === 'string') return v;
  if (isFloat(v)) return new PyFloat(v.v);
  if (Array.isArray(v)) return v.map(toTemplate);
  if (isDict(v)) return new PyDict([...v].map(([k, x]) => [k, toTemplate(x)] as const));
  if (isInstance(v)) return new InstanceView(v);
  return String(v);
}

/** A template value handed back to a plugin. */
function fromTemplate(v: PyValue): Value {
  if (v instanceof PyFloat) return new Float(v.v);
  if (v instanceof InstanceView) return v.inst;
  if (Array.isArray(v)) return v.map(fromTemplate);
  if (v instanceof PyTuple) return v.items.map(fromTemplate);
  if (v instanceof PyDict) return new Map([...v.entries()].map(([k, x]) => [String(k), fromTemplate(x)] as const));
  if (v === null || typeof v === 'boolean' || typeof v === 'number' || typeof v === 'string') return v;
  return String(v);
}

/** What a variable holds, or a Wait until it is known. */
function known(holder: ResultVar | ListVar): Value {
  if (holder instanceof ListVar) {
    if (!holder.frozen) throw new Wait(holder);
    return [...holder.items];
  }
  if (holder instanceof OptionVar) {
    if (holder.isSet) return holder.value;
    if (holder.frozen) return null;
    throw new Wait(holder);
  }
  if (!holder.isSet) throw new Wait(holder);
  return holder.value;
}

class InstanceView extends PyObject {
  readonly typeName: string;
  constructor(readonly inst: Instance) {
    super();
    this.typeName = inst.entity.fullName;
  }
  getAttr(name: string): PyValue | undefined {
    const slot = this.inst.slots.get(name);
    return slot ? toTemplate(known(slot as ResultVar | ListVar)) : undefined;
  }
  override repr(): string {
    return String(this.inst);
  }
}

/** A module namespace as the seed lets templates name it: `mod.var`, `mod.plugin(...)` (`::` written as `.`). */
class NamespaceView extends PyObject {
  readonly typeName = 'namespace';
  constructor(
    private readonly ctx: Ctx,
    private readonly ns: Namespace,
    private readonly plugins: (ns: string) => ReadonlyMap<string, PluginFn>,
    private readonly span: Span,
  ) {
    super();
  }
  getAttr(name: string): PyValue | undefined {
    const v = this.ns.scope.own(name);
    if (v) return toTemplate(known(v));
    const sub = this.ctx.c.namespaces.get(`${this.ns.name}::${name}`);
    if (sub) return new NamespaceView(this.ctx, sub, this.plugins, this.span);
    const fn = this.plugins(this.ns.name).get(name);
    if (!fn) return undefined;
    return new PyCallable(`${this.ns.name}::${name}`, (args, kwargs) =>
      toTemplate(fn(this.ctx, args.map(fromTemplate), new Map([...kwargs].map(([k, x]) => [k, fromTemplate(x)])), this.span)),
    );
  }
}

/** Names a template reads: the calling scope's variables (self's attributes inside an implementation), then namespaces. */
class TemplateContext extends Map<string, PyValue> {
  private readonly vars: Map<string, ResultVar | Instance>;
  constructor(
    private readonly ctx: Ctx,
    private readonly plugins: (ns: string) => ReadonlyMap<string, PluginFn>,
    private readonly span: Span,
  ) {
    super();
    this.vars = ctx.scope.visible();
    // `self` is Jinja's own name for the template; the instance's attributes are visible by name instead.
    this.vars.delete('self');
  }
  private namespace(name: string): Namespace | undefined {
    const full = this.ctx.scope.ns.imports.get(name) ?? (name === 'std' ? 'std' : undefined);
    return full === undefined ? undefined : this.ctx.c.namespaces.get(full);
  }
  override has(name: string): boolean {
    return this.vars.has(name) || this.namespace(name) !== undefined;
  }
  override get(name: string): PyValue | undefined {
    const holder = this.vars.get(name);
    if (holder instanceof ResultVar) return toTemplate(known(holder));
    if (holder) return toTemplate(known(holder.slots.get(name) as ResultVar | ListVar));
    const ns = this.namespace(name);
    return ns ? new NamespaceView(this.ctx, ns, this.plugins, this.span) : undefined;
  }
}

/** Every plugin as a filter named with `.` for `::` (`{{ name | std.upper }}`), as std registers them. */
function pluginFilters(ctx: Ctx, all: ReadonlyMap<string, PluginFn>, span: Span): Record<string, FilterFn> {
  const out: Record<string, FilterFn> = {};
  for (const [name, fn] of all) {
    out[name.replace(/::/g, '.')] = (_h, v, args, kwargs) =>
      toTemplate(fn(ctx, [v, ...args].map(fromTemplate), new Map([...kwargs].map(([k, x]) => [k, fromTemplate(x)])), span));
  }
  return out;
}

export interface TemplatePlugins {
  /** Every plugin by qualified name. */
  readonly all: ReadonlyMap<string, PluginFn>;
  /** The plugins of one namespace by short name. */
  readonly of: (ns: string) => ReadonlyMap<string, PluginFn>;
}

export function renderModelTemplate(ctx: Ctx, path: string, kwargs: ReadonlyMap<string, Value>, plugins: TemplatePlugins, span: Span): string {
  const file = moduleFilePath(ctx, 'std::template', path, 'templates', span);
  if (!existsSync(file) || !statSync(file).isFile()) throw pluginFailure('std::template', `jinja2.exceptions.TemplateNotFound: ${path}`, span);
  const env = new Environment({ undefined: 'strict', pyFilters: pluginFilters(ctx, plugins.all, span) });
  // With keyword arguments, the template sees those and nothing else.
  const context = kwargs.size > 0 ? new Map([...kwargs].map(([k, v]) => [k, toTemplate(v)] as const)) : new TemplateContext(ctx, plugins.of, span);
  const source = readFileSync(file, 'utf8');
  try {
    // The interpreter reads names from the context one by one, so an unknown value waits instead of failing.
    return new Interpreter(env, compileTemplate(source, file), context).renderRoot(new JinjaScope(null));
  } catch (raw) {
    const e = toDiagnosticError(raw, source);
    if (!(e instanceof DiagnosticError)) throw e;
    const d = e.diagnostics[0];
    const where = d?.span ? `${d.span.file}:${d.span.line}:${d.span.col}: ` : `${file}: `;
    const undefinedName = d?.code === 'JINJA002';
    throw pluginFailure('std::template', `${where}${d?.message ?? 'template error'}`, span, undefinedName ? 'WrappingRuntimeException' : 'ExternalException');
  }
}
