/** The variable functions (`$ListCount(@l)`, `@Split(a,b)`, `$FileExists(p)` …), by case-insensitive name. */
import type { Span } from '../../core/diag.js';
import type { Host } from '../../host/types.js';
import type { Sigil } from './ast.js';
import { OtterError } from './errors.js';
import { mathExpression } from './math.js';
import { fileFunctions } from './functions-files.js';
import { formatDate } from './date.js';
import { int, map, num, scalar, vector } from './fn-args.js';
import { fromJson, isVector, mapGet, mapWith, mapWithout, toJson, toText, type Value } from './values.js';

/** What functions may read of the running execution. */
export interface FunctionContext {
  readonly host: Host;
  /** Absolute working directory of the current context. */
  readonly cwd: string;
  readonly simulation: boolean;
  readonly serverName: string;
  /** Every server the execution knows (the inventory's, or only its own). */
  readonly allServers: readonly string[];
  serversInRole(role: string): string[];
  readonly roleName: string;
  readonly environmentName: string;
  executionState(): 'normal' | 'warning' | 'error';
  /** Expands a text once more (`$Eval`). */
  evalText(text: string, span: Span): Promise<string>;
  isDefined(name: string, sigil: Sigil | undefined): boolean;
}

export interface OtterFunction {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  call(args: readonly Value[], ctx: FunctionContext, span: Span): Promise<Value>;
}

/** The most items `$Range` makes. */
export const MAX_RANGE = 1_000_000;

type Impl = (args: readonly Value[], ctx: FunctionContext, span: Span) => Value | Promise<Value>;

function index(list: readonly Value[], v: Value | undefined, span: Span, allowEnd = false): number {
  const i = int(v, span, 'index');
  if (i < 0 || i > list.length || (i === list.length && !allowEnd)) throw new OtterError(`index ${i} is outside the vector of ${list.length} items`, span);
  return i;
}

function regex(pattern: Value | undefined, span: Span, flags = ''): RegExp {
  try {
    return new RegExp(scalar(pattern, span), flags);
  } catch (e) {
    throw new OtterError(`invalid regular expression: ${(e as Error).message}`, span);
  }
}

function compare(a: string, op: string, b: string, asNumber: boolean, span: Span): string {
  const na = Number(a);
  const nb = Number(b);
  const numeric = asNumber || (a.trim() !== '' && b.trim() !== '' && !Number.isNaN(na) && !Number.isNaN(nb));
  const c = numeric ? (na < nb ? -1 : na > nb ? 1 : 0) : a < b ? -1 : a > b ? 1 : 0;
  const r = { '<': c < 0, '>': c > 0, '<=': c <= 0, '>=': c >= 0, '=': c === 0, '==': c === 0, '!=': c !== 0 }[op];
  if (r === undefined) throw new OtterError(`unknown comparison "${op}" (use <, >, <=, >=, =, !=)`, span);
  return String(r);
}

/** The environment of the server in context; a server whose facts cannot be read is an error at the call. */
async function targetEnv(ctx: FunctionContext, span: Span): Promise<Readonly<Record<string, string>>> {
  try {
    return (await ctx.host.facts()).env;
  } catch (e) {
    throw new OtterError(`cannot read the environment of server ${ctx.serverName}: ${(e as Error).message}`, span);
  }
}

const table: Record<string, [min: number, max: number, impl: Impl]> = {
  Eval: [1, 1, (a, ctx, span) => ctx.evalText(scalar(a[0], span), span)],
  Date: [0, 1, (a, _c, span) => formatDate(new Date(), scalar(a[0], span), false)],
  DateUtc: [0, 1, (a, _c, span) => formatDate(new Date(), scalar(a[0], span), true)],
  Range: [2, 2, (a, _c, span) => {
    const count = int(a[1], span);
    // A size budget: a huge range is a positioned error, not minutes of work and gigabytes of memory.
    if (count > MAX_RANGE) throw new OtterError(`$Range(${int(a[0], span)}, ${count}) would make ${count} items; at most ${MAX_RANGE} are allowed`, span);
    return Array.from({ length: Math.max(0, count) }, (_, i) => String(int(a[0], span) + i));
  }],
  Compare: [3, 4, (a, _c, span) => compare(scalar(a[0], span), scalar(a[1], span), scalar(a[2], span), toText(a[3] ?? '').toLowerCase() === 'true', span)],
  Expr: [1, 1, (a, _c, span) => String(mathExpression(scalar(a[0], span), span))],
  Increment: [1, 2, (a, _c, span) => String(int(a[0], span) + (a[1] === undefined ? 1 : int(a[1], span)))],
  Decrement: [1, 2, (a, _c, span) => String(int(a[0], span) - (a[1] === undefined ? 1 : int(a[1], span)))],
  ListCount: [1, 1, (a, _c, span) => String(vector(a[0], span).length)],
  ListItem: [2, 2, (a, _c, span) => {
    const l = vector(a[0], span);
    return l[index(l, a[1], span)] as Value;
  }],
  ListIndexOf: [2, 2, (a, _c, span) => String(vector(a[0], span).findIndex((x) => toText(x) === toText(a[1] ?? '')))],
  ListInsert: [2, 3, (a, _c, span) => {
    const l = [...vector(a[0], span)];
    l.splice(a[2] === undefined ? l.length : index(l, a[2], span, true), 0, a[1] as Value);
    return l;
  }],
  ListRemove: [2, 2, (a, _c, span) => {
    const l = [...vector(a[0], span)];
    l.splice(index(l, a[1], span), 1);
    return l;
  }],
  ListSet: [3, 3, (a, _c, span) => {
    const l = [...vector(a[0], span)];
    l[index(l, a[1], span)] = a[2] as Value;
    return l;
  }],
  ListConcat: [1, 99, (a, _c, span) => a.flatMap((x) => vector(x, span))],
  MapItem: [2, 2, (a, _c, span) => {
    const v = mapGet(map(a[0], span), scalar(a[1], span));
    if (v === undefined) throw new OtterError(`the map has no key "${scalar(a[1], span)}"`, span);
    return v;
  }],
  MapKeys: [1, 1, (a, _c, span) => [...map(a[0], span).keys()]],
  MapAdd: [3, 3, (a, _c, span) => {
    const m = map(a[0], span);
    if (mapGet(m, scalar(a[1], span)) !== undefined) throw new OtterError(`the map already has the key "${scalar(a[1], span)}"`, span);
    return mapWith(m, scalar(a[1], span), a[2] as Value);
  }],
  MapSet: [3, 3, (a, _c, span) => mapWith(map(a[0], span), scalar(a[1], span), a[2] as Value)],
  MapRemove: [2, 2, (a, _c, span) => mapWithout(map(a[0], span), scalar(a[1], span))],
  Join: [2, 2, (a, _c, span) => vector(a[1], span).map(toText).join(scalar(a[0], span))],
  Split: [2, 3, (a, _c, span) => {
    const parts = scalar(a[0], span).split(scalar(a[1], span));
    if (a[2] === undefined) return parts;
    const n = int(a[2], span);
    return parts.length <= n ? parts : [...parts.slice(0, n - 1), parts.slice(n - 1).join(scalar(a[1], span))];
  }],
  Replace: [3, 4, (a, _c, span) => {
    const ic = toText(a[3] ?? '').toLowerCase() === 'true';
    const find = scalar(a[1], span).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return find === '' ? scalar(a[0], span) : scalar(a[0], span).replace(new RegExp(find, ic ? 'gi' : 'g'), () => scalar(a[2], span));
  }],
  RegexReplace: [3, 3, (a, _c, span) => scalar(a[0], span).replace(regex(a[1], span, 'g'), scalar(a[2], span))],
  RegexFind: [2, 2, (a, _c, span) => [...scalar(a[0], span).matchAll(regex(a[1], span, 'g'))].map((m) => m[0])],
  MatchesRegex: [2, 2, (a, _c, span) => String(regex(a[1], span).test(scalar(a[0], span)))],
  Substring: [2, 3, (a, _c, span) => {
    const t = scalar(a[0], span);
    const off = int(a[1], span);
    if (off < 0 || off > t.length) throw new OtterError(`offset ${off} is outside the text of ${t.length} characters`, span);
    return a[2] === undefined ? t.slice(off) : t.slice(off, off + int(a[2], span));
  }],
  ToUpper: [1, 1, (a, _c, span) => scalar(a[0], span).toUpperCase()],
  ToLower: [1, 1, (a, _c, span) => scalar(a[0], span).toLowerCase()],
  Trim: [1, 1, (a, _c, span) => scalar(a[0], span).trim()],
  TrimStart: [1, 1, (a, _c, span) => scalar(a[0], span).trimStart()],
  TrimEnd: [1, 1, (a, _c, span) => scalar(a[0], span).trimEnd()],
  PadLeft: [2, 3, (a, _c, span) => scalar(a[0], span).padStart(int(a[1], span), scalar(a[2] ?? ' ', span) || ' ')],
  PadRight: [2, 3, (a, _c, span) => scalar(a[0], span).padEnd(int(a[1], span), scalar(a[2] ?? ' ', span) || ' ')],
  Coalesce: [1, 99, (a) => a.map(toText).find((x) => x.trim() !== '') ?? ''],
  ToJson: [1, 1, (a) => JSON.stringify(toJson(a[0] as Value))],
  FromJson: [1, 1, (a, _c, span) => {
    try {
      return fromJson(JSON.parse(scalar(a[0], span)));
    } catch (e) {
      if (e instanceof OtterError) throw e;
      throw new OtterError(`not valid JSON: ${(e as Error).message}`, span);
    }
  }],
  Length: [1, 1, (a, _c, span) => String(scalar(a[0], span).length)],
  Sum: [1, 99, (a, _c, span) => String(a.flatMap((x) => (isVector(x) ? x : [x])).reduce<number>((s, x) => s + num(x, span), 0))],
  ExecutionState: [0, 0, (_a, ctx) => ctx.executionState()],
  IsSimulation: [0, 0, (_a, ctx) => String(ctx.simulation)],
  IsVariableDefined: [1, 2, (a, ctx, span) => {
    const t = scalar(a[1] ?? '', span).toLowerCase();
    const sigil = t === 'scalar' || t === '$' ? '$' : t === 'vector' || t === '@' ? '@' : t === 'map' || t === '%' ? '%' : undefined;
    return String(ctx.isDefined(scalar(a[0], span).replace(/^[$@%]/, ''), sigil));
  }],
  // The environment of the server in context, read on it with its other facts (not this process's).
  EnvironmentVariable: [1, 1, async (a, ctx, span) => (await targetEnv(ctx, span))[scalar(a[0], span)] ?? ''],
  ServerName: [0, 0, (_a, ctx) => ctx.serverName],
  RoleName: [0, 0, (_a, ctx) => ctx.roleName],
  EnvironmentName: [0, 0, (_a, ctx) => ctx.environmentName],
  AllServers: [0, 0, (_a, ctx) => [...ctx.allServers]],
  ServersInRole: [0, 1, (a, ctx, span) => ctx.serversInRole(a[0] === undefined ? ctx.roleName : scalar(a[0], span))],
  ...fileFunctions,
};

const functions = new Map<string, OtterFunction>(
  Object.entries(table).map(([name, [min, max, impl]]) => [
    name.toLowerCase(),
    {
      name,
      min,
      max,
      async call(args, ctx, span) {
        if (args.length < min || args.length > max) {
          const want = min === max ? `${min}` : max === 99 ? `at least ${min}` : `${min} to ${max}`;
          throw new OtterError(`${name} takes ${want} argument${want === '1' ? '' : 's'}, got ${args.length}`, span);
        }
        return impl(args, ctx, span);
      },
    },
  ]),
);

export function lookupFunction(name: string): OtterFunction | undefined {
  return functions.get(name.toLowerCase());
}

/** Every function name, as scripts spell them in the reference (for listings). */
export function functionNames(): string[] {
  return [...functions.values()].map((f) => f.name).sort((a, b) => a.localeCompare(b));
}
