/** Executes a parsed template against a dot value and a function map, with Go's printing and truth rules. */
import { goTypeOf, goV } from '../go/fmt.js';
import { type Arg, type Command, type Pipeline, parseTemplate, type TNode, TemplateError } from './parse.js';

export type TemplateFunc = (...args: unknown[]) => unknown;

/** An error a function raises that the caller wants back untouched (e.g. "value not known yet"). */
export interface PassThrough {
  readonly passThrough: true;
}

function isPassThrough(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { passThrough?: unknown }).passThrough === true;
}

/** Go's fmt %v for the values templates see; a missing value prints as text/template's `<no value>`. */
export function printValue(v: unknown): string {
  return v === undefined || v === null ? '<no value>' : goV(v);
}

export function truthy(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v as object).length > 0;
  return true;
}

/** Go's fmt.Sprintf for the verbs templates use, with Go's %!verb(type=value) for a mismatched or missing argument. */
function sprintf(format: string, args: readonly unknown[]): string {
  let n = 0;
  const bad = (verb: string, a: unknown): string => `%!${verb}(${goTypeOf(a)}=${printValue(a)})`;
  const out = format.replace(/%([-+# 0]*)(\d*)(?:\.(\d+))?([vsdqtxf%])/g, (_m, flags: string, width: string, precision: string | undefined, verb: string) => {
    if (verb === '%') return '%';
    if (n >= args.length) return `%!${verb}(MISSING)`;
    const a = args[n++];
    const text = formatOne(verb, a, precision === undefined ? undefined : Number(precision));
    if (text === undefined) return bad(verb, a);
    // Width pads on the left (with zeros for numbers under the 0 flag), or on the right under '-'.
    const w = width === '' ? 0 : Number(width);
    if (text.length >= w) return text;
    if (flags.includes('-')) return text.padEnd(w);
    if (flags.includes('0') && typeof a === 'number') return text.startsWith('-') ? `-${text.slice(1).padStart(w - 1, '0')}` : text.padStart(w, '0');
    return text.padStart(w);
  });
  const extra = args.slice(n);
  return extra.length > 0 ? `${out}%!(EXTRA ${extra.map((a) => `${goTypeOf(a)}=${printValue(a)}`).join(', ')})` : out;
}

/** One verb of Go's fmt, or undefined when the argument does not suit it. */
function formatOne(verb: string, a: unknown, precision: number | undefined): string | undefined {
  if (verb === 'q') return typeof a === 'string' ? JSON.stringify(a) : undefined;
  if (verb === 'd' || verb === 'x') return typeof a === 'number' && Number.isInteger(a) ? a.toString(verb === 'd' ? 10 : 16) : undefined;
  if (verb === 'f') return typeof a === 'number' ? a.toFixed(precision ?? 6) : undefined;
  if (verb === 't') return typeof a === 'boolean' ? String(a) : undefined;
  if (verb === 's' && (typeof a === 'number' || typeof a === 'boolean')) return undefined;
  const text = printValue(a);
  return verb === 's' && precision !== undefined ? text.slice(0, precision) : text;
}

/** Go's eq and ne refuse to compare basic values of different kinds. */
function sameKind(a: unknown, b: unknown): void {
  const basic = (x: unknown): boolean => typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean';
  if (basic(a) && basic(b) && typeof a !== typeof b) throw new Error('incompatible types for comparison');
}

function compare(a: unknown, b: unknown, name: string): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  throw new Error(`${name}: incompatible types for comparison`);
}

/** Go's fmt.Sprint: operands side by side, with a space between two that are not strings. */
function goSprint(xs: readonly unknown[]): string {
  let out = '';
  xs.forEach((x, i) => {
    if (i > 0 && typeof x !== 'string' && typeof xs[i - 1] !== 'string') out += ' ';
    out += printValue(x);
  });
  return out;
}

const HTML_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', "'": '&#39;', '<': '&lt;', '>': '&gt;', '"': '&#34;', '\0': '\uFFFD' };
const JS_ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', "'": "\\'", '"': '\\"', '<': '\\u003C', '>': '\\u003E', '&': '\\u0026', '=': '\\u003D' };

const BUILTINS: Record<string, TemplateFunc> = {
  and: (...xs) => xs.find((x) => !truthy(x)) ?? xs[xs.length - 1],
  or: (...xs) => xs.find((x) => truthy(x)) ?? xs[xs.length - 1],
  not: (x) => !truthy(x),
  eq: (a, ...bs) => bs.some((b) => {
    sameKind(a, b);
    return a === b;
  }),
  ne: (a, b) => {
    sameKind(a, b);
    return a !== b;
  },
  lt: (a, b) => compare(a, b, 'lt') < 0,
  le: (a, b) => compare(a, b, 'le') <= 0,
  gt: (a, b) => compare(a, b, 'gt') > 0,
  ge: (a, b) => compare(a, b, 'ge') >= 0,
  len: (x) => {
    if (typeof x === 'string' || Array.isArray(x)) return x.length;
    if (typeof x === 'object' && x !== null) return Object.keys(x).length;
    throw new Error(`len of ${printValue(x)}`);
  },
  index: (x, ...keys) => {
    let cur: unknown = x;
    for (const k of keys) {
      if (Array.isArray(cur) && typeof k === 'number') {
        if (k < 0 || k >= cur.length) throw new Error(`index out of range: ${k}`);
        cur = cur[k];
      } else if (typeof cur === 'object' && cur !== null) cur = (cur as Record<string, unknown>)[String(k)];
      else throw new Error(`can't index item of type ${typeof cur}`);
    }
    return cur;
  },
  print: (...xs) => goSprint(xs),
  html: (...xs) => goSprint(xs).replace(/[&'<>"\0]/g, (c) => HTML_ESCAPES[c] ?? c),
  js: (...xs) => goSprint(xs).replace(/[\\'"<>&=]|[\u0000-\u001f]/g, (c) => JS_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`),
  urlquery: (...xs) => encodeURIComponent(goSprint(xs)).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).replace(/%20/g, '+'),
  println: (...xs) => `${xs.map(printValue).join(' ')}\n`,
  printf: (format, ...xs) => sprintf(String(format), xs),
};

class Exec {
  private readonly vars: Array<Map<string, unknown>>;
  private out = '';
  constructor(
    private readonly funcs: Readonly<Record<string, TemplateFunc>>,
    dot: unknown,
  ) {
    this.vars = [new Map([['$', dot]])];
  }

  run(nodes: readonly TNode[], dot: unknown): string {
    this.walk(nodes, dot);
    return this.out;
  }

  private lookupVar(name: string, offset: number): unknown {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      const scope = this.vars[i] as Map<string, unknown>;
      if (scope.has(name)) return scope.get(name);
    }
    throw new TemplateError(`undefined variable: ${name}`, offset);
  }

  private setVars(names: readonly string[], values: readonly unknown[]): void {
    const scope = this.vars[this.vars.length - 1] as Map<string, unknown>;
    names.forEach((n, i) => {
      scope.set(n, values[i]);
    });
  }

  private walk(nodes: readonly TNode[], dot: unknown): void {
    for (const n of nodes) {
      switch (n.kind) {
        case 'text':
          this.out += n.text;
          break;
        case 'action': {
          const v = this.pipe(n.pipe, dot);
          if (n.pipe.decl.length === 0) this.out += printValue(v);
          break;
        }
        case 'if':
        case 'with': {
          this.vars.push(new Map());
          const v = this.pipe(n.pipe, dot);
          if (truthy(v)) this.walk(n.body, n.kind === 'with' ? v : dot);
          else this.walk(n.else, dot);
          this.vars.pop();
          break;
        }
        case 'range': {
          this.vars.push(new Map());
          const decl = n.pipe.decl;
          const v = this.pipe({ ...n.pipe, decl: [] }, dot);
          const entries: Array<[unknown, unknown]> = Array.isArray(v)
            ? v.map((x, i) => [i, x])
            : typeof v === 'object' && v !== null
              ? Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
              : typeof v === 'number'
                ? Array.from({ length: v }, (_x, i) => [i, i])
                : v === undefined || v === null
                  ? []
                  : (() => {
                      throw new TemplateError(`range can't iterate over ${printValue(v)}`, n.pipe.offset);
                    })();
          if (entries.length === 0) this.walk(n.else, dot);
          for (const [k, x] of entries) {
            if (decl.length === 1) this.setVars(decl, [x]);
            else if (decl.length === 2) this.setVars(decl, [k, x]);
            this.walk(n.body, x);
          }
          this.vars.pop();
          break;
        }
      }
    }
  }

  private pipe(p: Pipeline, dot: unknown): unknown {
    let value: unknown;
    let first = true;
    for (const c of p.commands) {
      value = this.command(c, dot, p.offset, first ? [] : [value]);
      first = false;
    }
    if (p.decl.length > 0) this.setVars(p.decl, [value]);
    return value;
  }

  private command(c: Command, dot: unknown, offset: number, piped: readonly unknown[]): unknown {
    const [head, ...rest] = c.args;
    if (head?.kind === 'ident' && !head.fields?.length) {
      const fn = this.funcs[head.name] ?? BUILTINS[head.name];
      if (!fn) throw new TemplateError(`function ${JSON.stringify(head.name)} not defined`, offset);
      const args = [...rest.map((a) => this.arg(a, dot, offset)), ...piped];
      try {
        return fn(...args);
      } catch (e) {
        if (e instanceof TemplateError || isPassThrough(e)) throw e;
        if (e instanceof ArgTypeError) throw new TemplateError(e.message, offset);
        throw new TemplateError(`error calling ${head.name}: ${e instanceof Error ? e.message : String(e)}`, offset);
      }
    }
    if (rest.length > 0 || piped.length > 0 || !head) throw new TemplateError("can't give arguments to a non-function", offset);
    return this.arg(head, dot, offset);
  }

  private field(v: unknown, fields: readonly string[], offset: number): unknown {
    let cur = v;
    for (const f of fields) {
      if (typeof cur !== 'object' || cur === null || Array.isArray(cur)) throw new TemplateError(`can't evaluate field ${f} in ${printValue(cur)}`, offset);
      cur = (cur as Record<string, unknown>)[f];
    }
    return cur;
  }

  private arg(a: Arg, dot: unknown, offset: number): unknown {
    switch (a.kind) {
      case 'string':
      case 'number':
      case 'bool':
        return a.value;
      case 'nil':
        return null;
      case 'dot':
        return this.field(dot, a.fields, offset);
      case 'var':
        return this.field(this.lookupVar(a.name, offset), a.fields, offset);
      case 'pipe':
        return this.pipe(a.pipe, dot);
      case 'ident': {
        const fn = this.funcs[a.name] ?? BUILTINS[a.name];
        if (!fn) throw new TemplateError(`function ${JSON.stringify(a.name)} not defined`, offset);
        return this.field(fn(), a.fields ?? [], offset);
      }
    }
  }
}

/** Parses and runs a template; errors are TemplateErrors with an offset into `src`, or a function's pass-through error. */
export function renderTemplate(src: string, funcs: Readonly<Record<string, TemplateFunc>>, dot: unknown = null): string {
  if (!src.includes('{{')) return src;
  return executeTemplate(parseTemplate(src), funcs, dot);
}

export function executeTemplate(nodes: readonly TNode[], funcs: Readonly<Record<string, TemplateFunc>>, dot: unknown = null): string {
  return new Exec(funcs, dot).run(nodes, dot);
}

/** A function argument of the wrong Go type: text/template reports it as is, not as "error calling". */
export class ArgTypeError extends Error {}

/** Go's name for the type of a template value, as text/template prints it in type errors. */

/** For functions whose Go parameter is a string: anything else is a template error. */
export function stringArg(v: unknown): string {
  if (typeof v === 'string') return v;
  throw new ArgTypeError(`wrong type for value; expected string; got ${goTypeOf(v)}`);
}
