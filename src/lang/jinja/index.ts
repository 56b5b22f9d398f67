/**
 * cairn's Jinja2 dialect: templates compile once (parsed ASTs are cached by file and source) and render many
 * times against contexts of plain JavaScript values, which are seen with Python semantics.
 */

import { type Code, type Diagnostic, DiagnosticError, error, LineMap } from '../../core/diag.js';
import type { TemplateAst } from './ast.js';
import { CODE_NOT_FOUND, CODE_RUNTIME, CODE_SYNTAX, CODE_UNDEFINED, MAX_RANGE, PyError, TemplateSyntaxError } from './errors.js';
import { checkNames } from './check-names.js';
import { BUILTIN_FILTERS, type FilterFn } from './filters.js';
import { Interpreter, type RuntimeEnv, Scope } from './interpreter.js';
import { parseTemplate } from './parser.js';
import { bindArgs } from './pymethods.js';
import { Cycler, makeJoiner, makeNamespace } from './runtime-objects.js';
import { Markup, PyCallable, PyDict, PyFloat, PyObject, PyTuple, REPR_TAG, Undefined, type PyValue } from './pyvalue.js';
import { BUILTIN_TESTS, type TestFn } from './tests.js';

export { Markup, PyCallable, PyDict, PyFloat, PyTuple, Undefined } from './pyvalue.js';
export type { PyValue } from './pyvalue.js';
export type { FilterFn } from './filters.js';
export type { TestFn } from './tests.js';
export { pyStr, pyRepr } from './pyvalue.js';
export { formatSpec } from './pyformat.js';

/** A JavaScript function exposed to templates; positional arguments arrive as JS values, keyword arguments
 *  (if any) as one trailing plain object. */
export type JsFunction = (...args: unknown[]) => unknown;

export interface EnvironmentOptions {
  /** Returns the source of a template named in include/import/extends, or undefined when there is none. */
  loader?: (name: string) => string | undefined;
  /** 'strict' makes printing, iterating or testing an undefined value an error (StrictUndefined). */
  undefined?: 'default' | 'strict';
  /** Extra filters taking and returning JS values: `(value, ...args, kwargs?) => result`. */
  filters?: Record<string, JsFunction>;
  /** Extra filters working on Python values directly. */
  pyFilters?: Record<string, FilterFn>;
  tests?: Record<string, JsFunction>;
  /** Globals visible to every template, including imported ones (e.g. Salt's `salt` function dict). */
  globals?: Record<string, unknown>;
}

export interface RenderOptions extends EnvironmentOptions {
  /** The template's name, used in diagnostics. */
  file: string;
}

/** Converts JS values to Python values: objects and Maps become dicts, arrays lists, null None, functions callables. */
export function toPy(v: unknown): PyValue {
  if (v === null) return null;
  if (v === undefined) return new Undefined('value is undefined');
  switch (typeof v) {
    case 'number':
      return Number.isInteger(v) ? v : new PyFloat(v);
    case 'bigint':
      return Number(v);
    case 'string':
    case 'boolean':
      return v;
    case 'function':
      return wrapFunction(v as JsFunction, (v as { name?: string }).name ?? 'function');
    default:
      break;
  }
  if (v instanceof PyFloat || v instanceof PyTuple || v instanceof PyDict || v instanceof Markup || v instanceof Undefined) return v;
  if (v instanceof PyCallable || v instanceof PyObject) return v;
  if (Array.isArray(v)) return v.map(toPy);
  if (v instanceof Map) return new PyDict([...v].map(([k, x]) => [toPy(k), toPy(x)] as const));
  if (v instanceof Date) return v.toISOString();
  return new PyDict(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, toPy(x)] as const));
}

/** Converts Python values back to JS: dicts become plain objects (keys stringified), tuples arrays, floats numbers. */
export function toJs(v: PyValue): unknown {
  if (v instanceof PyFloat) return v.v;
  if (v instanceof Markup) return v.s;
  if (v instanceof Undefined) return undefined;
  if (Array.isArray(v)) return v.map(toJs);
  if (v instanceof PyTuple) return v.items.map(toJs);
  if (v instanceof PyDict) {
    const o: Record<string, unknown> = {};
    for (const [k, x] of v.entries()) o[String(toJs(k))] = toJs(x);
    return o;
  }
  return v;
}

function wrapFunction(fn: JsFunction, name: string): PyCallable {
  return new PyCallable(name, (args, kwargs) => {
    const jsArgs = args.map(toJs);
    if (kwargs.size > 0) jsArgs.push(Object.fromEntries([...kwargs].map(([k, x]) => [k, toJs(x)])));
    return toPy(fn(...jsArgs));
  });
}

const BUILTIN_GLOBALS = new Map<string, PyValue>([
  ['range', new PyCallable('range', (args) => {
    if (args.length === 0 || args.length > 3) throw new PyError('TypeError', `range expected at most 3 arguments, got ${args.length}`);
    const n = args.map(Number);
    const [start, stop, step] = n.length === 1 ? [0, n[0]!, 1] : [n[0]!, n[1]!, n[2] ?? 1];
    if (step === 0) throw new PyError('ValueError', 'range() arg 3 must not be zero');
    const count = Math.max(0, Math.ceil((stop - start) / step));
    if (count > MAX_RANGE) throw new PyError('OverflowError', `range() would make ${count} items; at most ${MAX_RANGE} are allowed`);
    const out: number[] = [];
    for (let i = start; step > 0 ? i < stop : i > stop; i += step) out.push(i);
    Object.defineProperty(out, REPR_TAG, { value: step === 1 ? `range(${start}, ${stop})` : `range(${start}, ${stop}, ${step})` });
    return out;
  })],
  ['dict', new PyCallable('dict', (args, kwargs) => {
    const d = args[0] instanceof PyDict ? new PyDict(args[0].entries()) : new PyDict();
    for (const [k, v] of kwargs) d.set(k, v);
    return d;
  })],
  ['namespace', new PyCallable('namespace', makeNamespace)],
  ['cycler', new PyCallable('cycler', (args) => new Cycler(args))],
  ['joiner', new PyCallable('joiner', makeJoiner)],
  ['lipsum', new PyCallable('lipsum', (args, kwargs) => {
    bindArgs('lipsum', [['n', 5], ['html', true], ['min', 20], ['max', 100]], args, kwargs);
    return 'Lorem ipsum dolor sit amet.';
  })],
]);

const AST_CACHE_LIMIT = 2000;
const astCache = new Map<string, TemplateAst>();

/** Parses a template (cached by file name and source text). Throws DiagnosticError on a syntax error. */
export function compileTemplate(source: string, file: string): TemplateAst {
  const key = `${file}\0${source}`;
  const hit = astCache.get(key);
  if (hit) return hit;
  let ast: TemplateAst;
  try {
    ast = parseTemplate(source, file);
  } catch (e) {
    throw toDiagnosticError(e, source);
  }
  if (astCache.size >= AST_CACHE_LIMIT) astCache.delete(astCache.keys().next().value as string);
  astCache.set(key, ast);
  return ast;
}

function diagFor(code: Code, message: string, file: string | undefined, source: string | undefined, offset: number | undefined): Diagnostic {
  if (file === undefined || source === undefined || offset === undefined) return error(code, message);
  return error(code, message, { span: new LineMap(file, source).span(offset) });
}

/** Turns syntax and Python-level errors into a positioned DiagnosticError; other errors pass through. */
export function toDiagnosticError(e: unknown, source?: string): unknown {
  if (e instanceof TemplateSyntaxError) {
    return new DiagnosticError([diagFor(CODE_SYNTAX, e.message, e.file, source ?? '', e.offset)]);
  }
  if (e instanceof PyError) {
    const code = e.pyType === 'UndefinedError' ? CODE_UNDEFINED : e.pyType.startsWith('TemplatesNotFound') || e.pyType === 'TemplateNotFound' ? CODE_NOT_FOUND : CODE_RUNTIME;
    const msg = e.pyType === 'UndefinedError' || e.pyType === 'TypeError' ? e.message : `${e.pyType}: ${e.message}`;
    return new DiagnosticError([diagFor(code, msg, e.file, e.source, e.offset)]);
  }
  if (e instanceof DiagnosticError) return e;
  return e;
}

export class Environment implements RuntimeEnv {
  readonly filters = new Map<string, FilterFn>(Object.entries(BUILTIN_FILTERS));
  readonly tests = new Map<string, TestFn>(Object.entries(BUILTIN_TESTS));
  readonly globals = new Map<string, PyValue>(BUILTIN_GLOBALS);
  readonly strict: boolean;
  private readonly loader: ((name: string) => string | undefined) | undefined;

  constructor(opts: EnvironmentOptions = {}) {
    this.strict = opts.undefined === 'strict';
    this.loader = opts.loader;
    for (const [k, f] of Object.entries(opts.filters ?? {})) this.addFilter(k, f);
    for (const [k, f] of Object.entries(opts.pyFilters ?? {})) this.filters.set(k, f);
    for (const [k, f] of Object.entries(opts.tests ?? {})) {
      const w = wrapFunction(f, k);
      this.tests.set(k, (_h, v, args, kwargs) => Boolean(w.fn([v, ...args], kwargs)));
    }
    for (const [k, v] of Object.entries(opts.globals ?? {})) this.globals.set(k, toPy(v));
  }

  addFilter(name: string, f: JsFunction): void {
    const w = wrapFunction(f, name);
    this.filters.set(name, (_h, v, args, kwargs) => w.fn([v, ...args], kwargs));
  }

  addGlobal(name: string, value: unknown): void {
    this.globals.set(name, toPy(value));
  }

  load(name: string): TemplateAst | undefined {
    const src = this.loader?.(name);
    return src === undefined ? undefined : this.checked(compileTemplate(src, name));
  }

  /** Compiles once; the returned template renders many times. */
  compile(source: string, file: string): Template {
    return new Template(this, this.checked(compileTemplate(source, file)));
  }

  private readonly namesChecked = new WeakSet<TemplateAst>();

  /** Jinja's compile-time check that the filters and tests a template names exist in this environment. */
  private checked(ast: TemplateAst): TemplateAst {
    if (this.namesChecked.has(ast)) return ast;
    try {
      checkNames(ast.body, this, ast.file);
    } catch (e) {
      throw toDiagnosticError(e, ast.source);
    }
    this.namesChecked.add(ast);
    return ast;
  }

  getTemplate(name: string): Template {
    const ast = this.load(name);
    if (!ast) throw new DiagnosticError([error(CODE_NOT_FOUND, `TemplateNotFound: ${name}`)]);
    return new Template(this, ast);
  }

  render(source: string, context: Record<string, unknown>, file: string): string {
    return this.compile(source, file).render(context);
  }
}

export class Template {
  constructor(readonly env: Environment, readonly ast: TemplateAst) {}

  render(context: Record<string, unknown> | ReadonlyMap<string, unknown> = {}): string {
    const ctx = new Map<string, PyValue>();
    const entries = context instanceof Map ? [...context] : Object.entries(context);
    for (const [k, v] of entries) ctx.set(k, toPy(v));
    const interp = new Interpreter(this.env, this.ast, ctx);
    try {
      return interp.renderRoot(new Scope(null));
    } catch (e) {
      throw toDiagnosticError(e, this.ast.source);
    }
  }
}

/** Renders one template. Reuse an Environment (or compileTemplate's cache, which this uses) for speed. */
export function renderTemplate(source: string, context: Record<string, unknown>, options: RenderOptions): string {
  return new Environment(options).render(source, context, options.file);
}
