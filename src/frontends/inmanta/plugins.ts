/** The bundled std plugins and the primitive casts; module plugins written in Python are not supported. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Span } from '../../core/diag.js';
import { InmantaError } from './errors.js';
import type { Compilation } from './compilation.js';
import { pyTypeName, readAttribute } from './attributes.js';
import type { Ctx } from './context.js';
import type { Namespace } from './namespace.js';
import { Float, isDict, isInstance, num, printed, pyEquals, pyRepr, pyStr, truthy, typeName, type Value } from './values.js';
import { pythonPlugins } from './python-plugins.js';
import { STD_EXTRA } from './std-extra.js';
import { type PluginFn, pluginFailure, readModuleFile, renderModelTemplate, type TemplatePlugins } from './templates.js';

type Plugin = (ctx: Ctx, args: Value[], kwargs: Map<string, Value>, span: Span) => Value;

function params(name: string, names: readonly string[], args: Value[], kwargs: Map<string, Value>, span: Span, defaults: Record<string, Value> = {}): Value[] {
  // The compiler checks the call against the plugin's signature first.
  if (args.length > names.length) throw new InmantaError('RuntimeException', `std::${name}() takes ${names.length} positional arguments but ${args.length} were given`, span);
  for (const k of kwargs.keys()) {
    const at = names.indexOf(k);
    if (at < 0) throw new InmantaError('RuntimeException', `std::${name}() got an unexpected keyword argument: '${k}'`, span);
    if (at < args.length) throw new InmantaError('RuntimeException', `std::${name}() got multiple values for argument '${k}'`, span);
  }
  return names.map((n, i) => {
    if (i < args.length) return args[i] as Value;
    if (kwargs.has(n)) return kwargs.get(n) as Value;
    if (n in defaults) return defaults[n] as Value;
    throw new InmantaError('RuntimeException', `${name}() missing required argument: '${n}'`, span);
  });
}

function str(v: Value, _what: string, span: Span): string {
  if (typeof v !== 'string') throw invalid(v, 'string', span);
  return v;
}


/** A variable of the target's environment (read with its facts), not of this process. */
function envOf(ctx: Ctx, name: string): string | undefined {
  return Object.hasOwn(ctx.c.env, name) ? ctx.c.env[name] : undefined;
}

/** A plugin argument checked against its declared type, worded as the compiler's type check. */
function invalid(v: Value, type: string, span: Span): InmantaError {
  return new InmantaError('RuntimeException', `Invalid value '${pyStr(v)}', expected ${type}`, span);
}

function list(v: Value, _what: string, span: Span): readonly Value[] {
  if (!Array.isArray(v)) throw invalid(v, 'list', span);
  return v;
}

/** Python's `<` on the values key_sort compares (numbers, strings). */
function pyLess(a: Value, b: Value): boolean {
  const na = num(a);
  const nb = num(b);
  if (na !== undefined && nb !== undefined) return na < nb;
  return typeof a === 'string' && typeof b === 'string' ? a < b : false;
}

function int(v: Value, span: Span): number {
  if (typeof v !== 'number') throw invalid(v, 'int', span);
  return v;
}

/** The most items std::sequence builds (the list is made whole, as range() is listed by the plugin). */
const MAX_SEQUENCE = 1_000_000;

const STD: Record<string, Plugin> = {
  ...STD_EXTRA,
  print: (ctx, args, kw, span) => {
    if (args.length > 1) throw new InmantaError('RuntimeException', `std::print() takes 1 positional arguments but ${args.length} were given`, span);
    ctx.c.printed.push(...printed(params('print', ['message'], args, kw, span)[0] as Value).split('\n'));
    return null;
  },
  len: (_c, args, kw, span) => list(params('len', ['item_list'], args, kw, span)[0] as Value, 'len', span).length,
  length: (_c, args, kw, span) => [...str(params('length', ['value'], args, kw, span)[0] as Value, 'length', span)].length,
  at: (_c, args, kw, span) => {
    const [objects, index] = params('at', ['objects', 'index'], args, kw, span);
    if (!Array.isArray(objects)) throw new InmantaError('RuntimeException', `at() expects a list, got ${typeName(objects ?? null)}`, span);
    const v = objects[int(index ?? null, span)];
    if (v === undefined) throw new InmantaError('RuntimeException', 'list index out of range', span);
    return v;
  },
  sequence: (_c, args, kw, span) => {
    const [i, start, offset] = params('sequence', ['i', 'start', 'offset'], args, kw, span, { start: 0, offset: 0 });
    // range(start, i + start - offset), as std's plugin computes it.
    const from = int(start ?? null, span);
    const to = int(i ?? null, span) + from - int(offset ?? null, span);
    // A list is built whole: one too long to hold stops the compile with a positioned error, not an abort.
    if (to - from > MAX_SEQUENCE) throw new InmantaError('RuntimeException', `std::sequence would make ${to - from} items; at most ${MAX_SEQUENCE} are allowed`, span);
    const out: number[] = [];
    for (let n = from; n < to; n++) out.push(n);
    return out;
  },
  equals: (_c, args, kw, span) => {
    const [a, b, desc] = params('equals', ['arg1', 'arg2', 'desc'], args, kw, span, { desc: null });
    if (!pyEquals(a ?? null, b ?? null)) throw pluginFailure('std::equals', `${pyStr(a ?? null)} != ${pyStr(b ?? null)}${desc !== null ? `: ${pyStr(desc ?? null)}` : ''}`, span);
    return null;
  },
  assert: (_c, args, kw, span) => {
    const [cond, message] = params('assert', ['expression', 'message'], args, kw, span, { message: '' });
    if (!truthy(cond ?? null)) throw pluginFailure('std::assert', `Assertion error: ${pyStr(message ?? null)}`, span);
    return null;
  },
  select: (_c, args, kw, span) => {
    const [objects, attr] = params('select', ['objects', 'attr'], args, kw, span);
    return list(objects ?? null, 'select', span).map((o) => readAttribute(o, str(attr ?? null, 'select', span), span));
  },
  item: (_c, args, kw, span) => {
    const [objects, index] = params('item', ['objects', 'index'], args, kw, span);
    return list(objects ?? null, 'item', span).map((o) => list(o, 'item', span)[int(index ?? null, span)] ?? null);
  },
  key_sort: (_c, args, kw, span) => {
    const [items, key] = params('key_sort', ['items', 'key'], args, kw, span);
    const k = str(key ?? null, 'key_sort', span);
    const keyed = list(items ?? null, 'key_sort', span).map((o) => ({ o, v: readAttribute(o, k, span) }));
    return keyed.sort((a, b) => (pyLess(a.v, b.v) ? -1 : pyLess(b.v, a.v) ? 1 : 0)).map((x) => x.o);
  },
  capitalize: (_c, args, kw, span) => {
    const s = str(params('capitalize', ['string'], args, kw, span)[0] ?? null, 'capitalize', span);
    return s.slice(0, 1).toUpperCase() + s.slice(1).toLowerCase();
  },
  upper: (_c, args, kw, span) => str(params('upper', ['string'], args, kw, span)[0] ?? null, 'upper', span).toUpperCase(),
  lower: (_c, args, kw, span) => str(params('lower', ['string'], args, kw, span)[0] ?? null, 'lower', span).toLowerCase(),
  limit: (_c, args, kw, span) => {
    const [s, n] = params('limit', ['string', 'length'], args, kw, span);
    return [...str(s ?? null, 'limit', span)].slice(0, Math.max(0, int(n ?? null, span))).join('');
  },
  inlineif: (_c, args, kw, span) => {
    const [cond, a, b] = params('inlineif', ['conditional', 'a', 'b'], args, kw, span);
    return truthy(cond ?? null) ? (a ?? null) : (b ?? null);
  },
  attr: (_c, args, kw, span) => {
    const [obj, name] = params('attr', ['obj', 'attr'], args, kw, span);
    return readAttribute(obj ?? null, str(name ?? null, 'attr', span), span);
  },
  getattr: (_c, args, kw, span) => {
    const [obj, name, fallback] = params('getattr', ['entity', 'attribute_name', 'default_value', 'no_unknown'], args, kw, span, { default_value: null, no_unknown: true });
    const attr = str(name ?? null, 'getattr', span);
    return isInstance(obj) && obj.slots.has(attr) ? readAttribute(obj, attr, span) : (fallback ?? null);
  },
  isset: (_c, args, kw, span) => params('isset', ['value'], args, kw, span)[0] !== null,
  split: (_c, args, kw, span) => {
    const [s, delim] = params('split', ['string_list', 'delim'], args, kw, span);
    return str(s ?? null, 'split', span).split(str(delim ?? null, 'split', span));
  },
  filter: (_c, args, kw, span) => {
    const [values, notItem] = params('filter', ['values', 'not_item'], args, kw, span);
    return list(values ?? null, 'filter', span).filter((x) => x !== notItem);
  },
  contains: (_c, args, kw, span) => {
    const [d, k] = params('contains', ['dct', 'key'], args, kw, span);
    return isDict(d) && typeof k === 'string' && d.has(k);
  },
  invert: (_c, args, kw, span) => !truthy(params('invert', ['value'], args, kw, span)[0] ?? null),
  is_unknown: (_c, args, kw, span) => {
    params('is_unknown', ['value'], args, kw, span);
    return false;
  },
  password: (ctx, args, kw, span) => {
    const [id] = params('password', ['pw_id'], args, kw, span);
    const key = str(id ?? null, 'password', span);
    const file = join(ctx.c.dirs.project ?? '.', 'passwordfile');
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      throw pluginFailure('std::password', `${file} does not exist`, span);
    }
    // `ID = VALUE` lines; `#` starts a comment line.
    for (const line of text.split('\n')) {
      if (line.trim().startsWith('#')) continue;
      const eq = line.indexOf('=');
      if (eq > 0 && line.slice(0, eq).trim() === key) {
        const value = line.slice(eq + 1).trim();
        // A value from the password file is secret wherever it goes: printed, exported, deployed.
        ctx.c.secrets.add(value);
        return value;
      }
    }
    throw pluginFailure('std::password', `Password ${key} does not exist in file ${file}`, span);
  },
  get_env: (ctx, args, kw, span) => {
    const [name, fallback] = params('get_env', ['name', 'default_value'], args, kw, span, { default_value: null });
    return envOf(ctx, str(name ?? null, 'get_env', span)) ?? fallback ?? null;
  },
  get_env_int: (ctx, args, kw, span) => {
    const [name, fallback] = params('get_env_int', ['name', 'default_value'], args, kw, span, { default_value: null });
    const raw = envOf(ctx, str(name ?? null, 'get_env_int', span));
    return raw !== undefined ? Number.parseInt(raw, 10) : (fallback ?? null);
  },
  timestamp: () => Math.floor(Date.now() / 1000),
  replace: (_c, args, kw, span) => {
    const [s, o, n] = params('replace', ['string', 'old', 'new'], args, kw, span);
    return str(s ?? null, 'replace', span).split(str(o ?? null, 'replace', span)).join(str(n ?? null, 'replace', span));
  },
  template: (ctx, args, kw, span) => {
    if (args.length > 1) throw new InmantaError('RuntimeException', `std::template() takes 1 positional arguments but ${args.length} were given`, span);
    const path = args.length === 1 ? args[0] : kw.get('path');
    const rest = new Map([...kw].filter(([k]) => k !== 'path' || args.length === 1));
    return renderModelTemplate(ctx, str(path ?? null, 'template', span), rest, templatePlugins(ctx.c), span);
  },
  // The real plugin returns a marker the exporter replaces with the file's content; here it is the content.
  file: (ctx, args, kw, span) => readModuleFile(ctx, 'std::file', str(params('file', ['path'], args, kw, span)[0] ?? null, 'file', span), span),
  source: (ctx, args, kw, span) => readModuleFile(ctx, 'std::source', str(params('source', ['path'], args, kw, span)[0] ?? null, 'source', span), span),
  is_instance: (ctx, args, kw, span) => {
    const [obj, cls] = params('is_instance', ['obj', 'cls'], args, kw, span);
    return isInstance(obj) && obj.entity.lineage().some((t) => t.fullName === cls);
  },
  unique: (_c, args, kw, span) => {
    const [items] = params('unique', ['item_list'], args, kw, span);
    return Array.isArray(items) && new Set(items.map((x) => pyRepr(x))).size === items.length;
  },
  count: (_c, args, kw, span) => list(params('count', ['item_list'], args, kw, span)[0] as Value, 'count', span).length,
  flatten: (_c, args, kw, span) => {
    const items = list(params('flatten', ['item_list'], args, kw, span)[0] ?? null, 'flatten', span);
    return items.flatMap((x) => {
      if (Array.isArray(x)) return x;
      if (typeof x === 'string') return [...x];
      if (isDict(x)) return [...x.keys()];
      throw pluginFailure('std::flatten', `TypeError: '${pyTypeName(x)}' object is not iterable`, span);
    });
  },
  dict_get: (_c, args, kw, span) => {
    const [d, k] = params('dict_get', ['dct', 'key'], args, kw, span);
    return isDict(d) && typeof k === 'string' ? (d.get(k) ?? null) : null;
  },
};

const CASTS: Record<string, (v: Value, span: Span) => Value> = {
  int: (v, span) => {
    if (typeof v === 'string' && /^\s*[-+]?\d+\s*$/.test(v)) return Number.parseInt(v, 10);
    const n = num(v);
    if (n === undefined || typeof v === 'string') throw new InmantaError('RuntimeException', `invalid literal for int(): ${pyRepr(v)}`, span);
    return Math.trunc(n);
  },
  float: (v, span) => {
    const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : num(v);
    if (n === undefined || Number.isNaN(n)) throw new InmantaError('RuntimeException', `could not convert string to float: ${pyRepr(v)}`, span);
    return new Float(n);
  },
  bool: (v) => truthy(v),
  // The real cast lower-cases booleans (`string(true)` is "true").
  string: (v) => (typeof v === 'boolean' ? String(v) : pyStr(v)),
};

type Callable = (ctx: Ctx, args: Value[], kwargs: Map<string, Value>, span: Span) => Value;

const castCall =
  (name: string, cast: (v: Value, span: Span) => Value): Callable =>
  (_ctx, args, _kwargs, span) => {
    if (args.length !== 1) throw new InmantaError('RuntimeException', `${name}() takes exactly one argument`, span);
    return cast(args[0] as Value, span);
  };

/**
 * What a call `name(...)` in namespace `ns` calls, resolved as the real compiler does before anything runs:
 * a primitive cast, or a plugin (std's, by qualified name). A type is not callable.
 */
export function resolveCall(c: Compilation, name: string, ns: Namespace, span: Span): Callable {
  const cut = name.lastIndexOf('::');
  const short = cut < 0 ? name : name.slice(cut + 2);
  let home = ns;
  if (cut < 0) {
    const cast = CASTS[name];
    if (cast) return castCall(name, cast);
    if (name === 'dict') return (_ctx, _args, kwargs) => new Map(kwargs);
  } else {
    home = c.qualifiedTarget(name, ns, span);
    const fn = home.name === 'std' ? STD[short] : undefined;
    if (fn) return fn;
  }
  const chain = home.name.split('::');
  const searched = cut < 0 ? chain.map((_, i) => chain.slice(0, chain.length - i).join('::')) : [home.name];
  const py = pythonPlugins(c);
  const found = searched.map((n) => `${n}::${short}`).find((q) => py.has(q));
  if (found) return (ctx, args, kwargs, at) => py.call(ctx, found, name, args, kwargs, at);
  if (searched.some((n) => c.namespaces.get(n)?.types.has(short))) throw new InmantaError('RuntimeException', `Can not call '${name}', can only call plugin or primitive type cast`, span);
  throw new InmantaError('TypeNotFoundException', `could not find type ${name} in namespace ${home.name}`, span);
}

/** Every plugin a template can use: by qualified name (filters), and per namespace (the seed's `mod.plugin`). */
export function templatePlugins(c: Compilation): TemplatePlugins {
  const std = new Map<string, PluginFn>(Object.entries(STD));
  const all = new Map<string, PluginFn>([...std].map(([k, f]) => [`std::${k}`, f] as const));
  const py = pythonPlugins(c);
  for (const q of py.names()) all.set(q, (ctx, args, kwargs, span) => py.call(ctx, q, q, args, kwargs, span));
  return {
    all,
    of: (ns) => (ns === 'std' ? std : new Map([...all].filter(([q]) => q.slice(0, q.lastIndexOf('::')) === ns).map(([q, f]) => [q.slice(q.lastIndexOf('::') + 2), f] as const))),
  };
}

export function callPlugin(ctx: Ctx, name: string, args: Value[], kwargs: Map<string, Value>, span: Span): Value {
  return resolveCall(ctx.c, name, ctx.scope.ns, span)(ctx, args, kwargs, span);
}

/** The names of the bundled std plugins (the docs list every one). */
export const STD_PLUGIN_NAMES: readonly string[] = Object.keys(STD);

/** The std plugins that can read the target's environment: directly, or through a template's filters. */
export const READS_ENVIRONMENT: ReadonlySet<Callable> = new Set([STD.get_env, STD.get_env_int, STD.template] as Callable[]);
