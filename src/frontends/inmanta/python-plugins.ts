/**
 * Module plugins written in Python (`plugins/__init__.py` with `@plugin` functions), run as the compiler runs
 * them: loaded when the project loads (a module whose plugins do not import fails the compile), arguments
 * checked against the declared signature and types before the call, the result checked against the return
 * type, and a raised exception reported as the plugin's error with the Python exception as its cause.
 * Each call runs in its own python3 process (see python-runner.ts).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Span } from '../../core/diag.js';
import { runSync } from '../../host/run-sync.js';
import type { Compilation } from './compilation.js';
import type { Ctx } from './context.js';
import { type ErrorKind, InmantaError } from './errors.js';
import type { Instance } from './instance.js';
import { RUNNER } from './python-runner.js';
import { type ValueType, validateValue } from './types.js';
import { Float, isDict, isFloat, isInstance, type Value } from './values.js';
import { ListVar, OptionVar, ResultVar, Wait } from './vars.js';

interface PyParam {
  readonly name: string;
  readonly kind: 'POSITIONAL_ONLY' | 'POSITIONAL_OR_KEYWORD' | 'VAR_POSITIONAL' | 'KEYWORD_ONLY' | 'VAR_KEYWORD';
  readonly default: boolean;
  readonly type?: string;
  readonly context?: boolean;
  readonly missing?: boolean;
  readonly bad?: string;
}

interface PyPlugin {
  readonly name: string;
  readonly params: readonly PyParam[];
  readonly returns: { readonly type?: string; readonly bad?: string };
}

interface Answer {
  readonly stdout: string;
  readonly plugins?: PyPlugin[];
  readonly value?: unknown;
  readonly unset?: [number, string];
  readonly error?: { class: 'plugin' | 'runtime' | 'external'; type: string; message: string };
  readonly load_error?: { module: string; type: string; message: string; file: string | null; line: number | null };
}

/** The interpreter to run plugins with: CAIRN_PYTHON when set, else python3 on PATH. */
const python = (): string => process.env.CAIRN_PYTHON ?? 'python3';

/** Types a plugin annotation may name besides the model's own: anything, and only null. */
const ANY_TYPES = new Set(['any', 'expression']);

export class PythonPlugins {
  private readonly plugins = new Map<string, PyPlugin>();
  private readonly modules: Record<string, string> = {};
  private readonly types = new Map<string, ValueType | 'any' | 'null'>();

  constructor(private readonly c: Compilation) {
    for (const [name, dir] of c.dirs.modules) if (existsSync(join(dir, 'plugins', '__init__.py'))) this.modules[name] = dir;
  }

  /** Loads every module's plugins, as the compiler does when the project loads. */
  load(printed: string[]): void {
    const names = Object.keys(this.modules);
    if (names.length === 0) return;
    const answer = this.run({ op: 'describe', load: names }, undefined);
    printed.push(...lines(answer.stdout));
    for (const p of answer.plugins ?? []) {
      this.plugins.set(p.name, p);
      const missing = p.params.find((x) => x.missing);
      if (missing) throw new InmantaError('RuntimeException', `All arguments of plugin '${p.name}' should be annotated: '${missing.name}' has no annotation`);
      const bad = p.params.find((x) => x.bad !== undefined);
      if (bad || p.returns.bad !== undefined) {
        throw new InmantaError('RuntimeException', `Bad annotation in plugin ${p.name} for ${bad ? bad.name : 'return value'}, expected str but got ${bad?.bad ?? p.returns.bad}`);
      }
    }
  }

  has(qualified: string): boolean {
    return this.plugins.has(qualified);
  }

  names(): string[] {
    return [...this.plugins.keys()];
  }

  /** Calls a plugin; `written` is the name as the model wrote it (what the compiler's messages show). */
  call(ctx: Ctx, qualified: string, written: string, args: readonly Value[], kwargs: ReadonlyMap<string, Value>, span: Span): Value {
    const p = this.plugins.get(qualified) as PyPlugin;
    const ns = qualified.slice(0, qualified.lastIndexOf('::'));
    this.checkArgs(p, ns, args, kwargs, span);
    const instances: Record<number, unknown> = {};
    const request = {
      op: 'call',
      load: [ns.split('::')[0]],
      plugin: qualified,
      args: args.map((a) => encode(a, instances, 3)),
      kwargs: Object.fromEntries([...kwargs].map(([k, v]) => [k, encode(v, instances, 3)])),
      instances,
      context: contextPosition(p),
    };
    const answer = this.run(request, span);
    ctx.c.printed.push(...lines(answer.stdout));
    if (answer.unset) {
      const [id, name] = answer.unset;
      const inst = findInstance(ctx.c, id);
      const slot = inst?.slots.get(name);
      if (slot) throw new Wait(slot);
      throw new InmantaError('RuntimeException', `plugin ${written} read ${name}, which is not known`, span);
    }
    if (answer.error) {
      const { error } = answer;
      const [kind, text]: [ErrorKind, string] =
        error.class === 'plugin' ? ['ExplicitPluginException', `PluginException in plugin ${written}\n${error.message}`] : [error.class === 'runtime' ? 'WrappingRuntimeException' : 'ExternalException', `Exception in plugin ${written}`];
      const cause = error.class === 'runtime' ? error.message : `${error.type}: ${error.message}`;
      throw new InmantaError(kind, text, span, [new InmantaError('RuntimeException', cause, span)]);
    }
    const value = decode(ctx.c, answer.value);
    const ret = this.resolveType(p.returns.type ?? 'any', ns, span);
    const why = ret === 'any' ? undefined : ret === 'null' ? (value === null ? undefined : `Invalid value '${String(value)}', expected null`) : validateValue(ret, value);
    if (why) {
      const text = why.replace(/^Invalid value 'None'/, "Invalid value 'null'");
      throw new InmantaError('WrappingRuntimeException', `Exception in plugin ${written}`, span, [new InmantaError('RuntimeException', text, span)]);
    }
    return value;
  }

  private checkArgs(p: PyPlugin, ns: string, args: readonly Value[], kwargs: ReadonlyMap<string, Value>, span: Span): void {
    const params = p.params.filter((x) => !x.context);
    const positional = params.filter((x) => x.kind === 'POSITIONAL_ONLY' || x.kind === 'POSITIONAL_OR_KEYWORD');
    const varArgs = params.find((x) => x.kind === 'VAR_POSITIONAL');
    const varKw = params.find((x) => x.kind === 'VAR_KEYWORD');
    const fail = (msg: string) => new InmantaError('RuntimeException', msg, span);
    if (!varArgs && args.length > positional.length) throw fail(`${p.name}() takes ${positional.length} positional arguments but ${args.length} were given`);
    const missing = (names: string[], sort: string): void => {
      if (names.length === 1) throw fail(`${p.name}() missing 1 required ${sort} argument: '${names[0]}'`);
      if (names.length > 1) {
        const quoted = names.map((n) => `'${n}'`);
        throw fail(`${p.name}() missing ${names.length} required ${sort} arguments: ${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1)}`);
      }
    };
    missing(positional.filter((x, i) => i >= args.length && !kwargs.has(x.name) && !x.default).map((x) => x.name), 'positional');
    missing(params.filter((x) => x.kind === 'KEYWORD_ONLY' && !kwargs.has(x.name) && !x.default).map((x) => x.name), 'keyword-only');
    const check = (param: PyParam, v: Value): void => {
      const t = this.resolveType(param.type ?? 'any', ns, span);
      const why = t === 'any' ? undefined : t === 'null' ? (v === null ? undefined : `Invalid value '${String(v)}', expected null`) : validateValue(t, v);
      if (why) throw fail(why.replace(/^Invalid value 'None'/, "Invalid value 'null'"));
    };
    args.forEach((v, i) => {
      const param = positional[i] ?? varArgs;
      if (!param) throw fail(`${p.name}() got an unexpected positional argument: ${i}`);
      check(param, v);
    });
    for (const [name, v] of kwargs) {
      const param = params.find((x) => x.name === name && x.kind !== 'VAR_POSITIONAL' && x.kind !== 'VAR_KEYWORD') ?? varKw;
      if (!param) throw fail(`${p.name}() got an unexpected keyword argument: '${name}'`);
      const at = positional.indexOf(param);
      if (at >= 0 && at < args.length) throw fail(`${p.name}() got multiple values for argument '${name}'`);
      check(param, v);
    }
  }

  /** An annotation read as a model type in the plugin's namespace (`string`, `int[]`, `std::Entity`, `mod::T?`). */
  private resolveType(annotation: string, ns: string, span: Span): ValueType | 'any' | 'null' {
    const key = `${ns}\0${annotation}`;
    const hit = this.types.get(key);
    if (hit) return hit;
    let t: ValueType | 'any' | 'null';
    if (ANY_TYPES.has(annotation)) t = 'any';
    else if (annotation === 'null') t = 'null';
    else {
      const m = /^(.*?)(\[\])?(\?)?$/.exec(annotation) as RegExpExecArray;
      const base = m[1] as string;
      const home = this.c.namespaces.get(ns);
      if (!home) throw new InmantaError('TypeNotFoundException', `could not find type ${annotation} in namespace ${ns}`, span);
      const entity = base.includes('::') || /^[A-Z]/.test(base) ? tryEntity(this.c, base, home, span) : undefined;
      if (entity) {
        t = entity;
        if (m[2]) t = { kind: 'list', of: t };
        if (m[3]) t = { kind: 'nullable', of: t };
      } else t = this.c.valueType({ name: base, list: m[2] !== undefined, nullable: m[3] !== undefined }, home, span);
    }
    this.types.set(key, t);
    return t;
  }

  private run(request: Record<string, unknown>, span: Span | undefined): Answer {
    const r = runSync(python(), ['-c', RUNNER], { input: JSON.stringify({ ...request, modules: this.modules }) });
    const first = Object.keys(this.modules)[0] as string;
    const at = span ?? { file: join(this.modules[first] as string, 'plugins', '__init__.py'), line: 1, col: 1 };
    if (r.missing) {
      throw new InmantaError('CompilerException', `Unable to load all plug-ins for module ${first}:\n\t${python()} was not found on PATH; plugins written in Python need it (set CAIRN_PYTHON to use another interpreter)`, at);
    }
    let answer: Answer;
    try {
      answer = JSON.parse(r.stdout) as Answer;
    } catch {
      const why = r.failure ?? (r.stderr.trim().split('\n').at(-1) || `exit status ${String(r.status)}`);
      throw new InmantaError('CompilerException', `Unable to run the Python plugins with ${python()}: ${why}`, at);
    }
    if (answer.load_error) {
      const e = answer.load_error;
      const file = e.file ?? join(this.modules[e.module] as string, 'plugins', '__init__.py');
      throw new InmantaError('CompilerException', `Unable to load all plug-ins for module ${e.module}:\n\t${e.type} while loading plugin module inmanta_plugins.${e.module}: ${e.message}`, {
        file,
        line: e.line ?? 0,
        col: 1,
      });
    }
    return answer;
  }
}

function tryEntity(c: Compilation, name: string, ns: import('./namespace.js').Namespace, span: Span): ValueType | undefined {
  try {
    const t = c.lookupType(name, ns, span);
    return 'ownAttributes' in t ? { kind: 'entity', entity: t } : undefined;
  } catch {
    return undefined;
  }
}

function contextPosition(p: PyPlugin): number | null {
  const i = p.params.findIndex((x) => x.context);
  return i < 0 ? null : i;
}

function lines(text: string): string[] {
  if (text === '') return [];
  const out = text.split('\n');
  if (out.at(-1) === '') out.pop();
  return out;
}

/** A model value as JSON for the runner; instances go in `table` with their known attributes, `depth` deep. */
function encode(v: Value, table: Record<number, unknown>, depth: number): unknown {
  if (v === null || typeof v === 'boolean' || typeof v === 'number' || typeof v === 'string') return v;
  if (isFloat(v)) return { f: v.v };
  if (Array.isArray(v)) return v.map((x) => encode(x, table, depth));
  if (isDict(v)) return { m: Object.fromEntries([...v].map(([k, x]) => [k, encode(x, table, depth)])) };
  if (isInstance(v)) {
    if (!(v.id in table)) {
      const attrs: Record<string, unknown> = {};
      table[v.id] = { repr: String(v), attrs };
      for (const [name, slot] of v.slots) {
        if (depth <= 0) attrs[name] = { unset: true };
        else if (slot instanceof ListVar) attrs[name] = slot.frozen ? { v: slot.items.map((x) => encode(x, table, depth - 1)) } : { unset: true };
        else if (slot instanceof OptionVar) attrs[name] = slot.isSet ? { v: encode(slot.value, table, depth - 1) } : slot.frozen ? { v: null } : { unset: true };
        else if (slot instanceof ResultVar) attrs[name] = slot.isSet ? { v: encode(slot.value, table, depth - 1) } : { unset: true };
      }
    }
    return { i: v.id };
  }
  return String(v);
}

/** The instance with this id: the compilation lists them in the order of their ids. */
function findInstance(c: Compilation, id: number): Instance | undefined {
  const all = c.instances;
  let lo = 0;
  let hi = all.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const i = all[mid] as Instance;
    if (i.id === id) return i;
    if (i.id < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

function decode(c: Compilation, v: unknown): Value {
  if (v === null || typeof v === 'boolean' || typeof v === 'number' || typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map((x) => decode(c, x));
  const o = v as { f?: number; m?: Record<string, unknown>; i?: number };
  if (o.f !== undefined) return new Float(o.f);
  if (o.m !== undefined) return new Map(Object.entries(o.m).map(([k, x]) => [k, decode(c, x)] as const));
  if (o.i !== undefined) return findInstance(c, o.i) ?? null;
  return null;
}

const registry = new WeakMap<Compilation, PythonPlugins>();

export function pythonPlugins(c: Compilation): PythonPlugins {
  let p = registry.get(c);
  if (!p) {
    p = new PythonPlugins(c);
    registry.set(c, p);
  }
  return p;
}
