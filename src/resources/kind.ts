/** Building blocks shared by every resource kind: param schemas (valibot) turned into diagnostics. */
import * as v from 'valibot';
import { type Diagnostic, error } from '../core/diag.js';
import { type GraphNode, hasDeferred, type ResourceKind } from '../core/model.js';
import type { ResourceContext } from '../host/types.js';

export type Params = Readonly<Record<string, unknown>>;
/** A resource kind of the graph: its params are one valibot schema (read by validation and by the docs). */
export type Kind = ResourceKind<ResourceContext> & { readonly schema: ObjectSchema };
export type ObjectSchema = v.GenericSchema<Record<string, unknown>, Record<string, unknown>>;

function describeIssue(issue: v.BaseIssue<unknown>): { key: string | undefined; message: string } {
  const path = issue.path?.map((p) => String((p as { key: unknown }).key)) ?? [];
  const key = path[0];
  if (issue.kind === 'schema' && issue.type === 'object' && path.length === 0) return { key, message: issue.message };
  if (issue.type === 'strict_object' && issue.received !== 'undefined' && path.length > 0) {
    return { key, message: `unknown param ${JSON.stringify(path.join('.'))}` };
  }
  const where = path.length > 0 ? `param ${JSON.stringify(path.join('.'))}` : 'params';
  if (issue.received === 'undefined' && path.length > 0) return { key, message: `missing required ${where}` };
  return { key, message: `${where}: ${issue.message}` };
}

/**
 * Params already validated at load, by schema then params object: the check and apply of a node parse the
 * same object again, so they take the load's output instead of running the schema once more per node.
 * Params objects are not changed after the graph is built (deferred values resolve into new objects).
 */
const parsed = new WeakMap<object, WeakMap<object, unknown>>();

function remember(schema: object, params: Params, output: unknown): void {
  let bySchema = parsed.get(schema);
  if (!bySchema) parsed.set(schema, (bySchema = new WeakMap()));
  bySchema.set(params, output);
}

/**
 * Validates params against a schema. Params holding deferred values are not known yet: their type is
 * checked after they resolve, at run time, so issues about them are dropped here (but a missing
 * required param is still reported). `plain` may read the commonest params at once: it gives exactly what
 * the schema would, or undefined to leave them to the schema.
 */
const NO_KEYS = new Set<string>();

export function validateWith(type: string, schema: ObjectSchema, params: Params, node: GraphNode, plain?: (params: Params) => unknown): Diagnostic[] {
  // The params most graphs hold are read by the kind's own plain reader, without the schema's walk.
  const known0 = plain?.(params);
  if (known0 !== undefined) {
    remember(schema, params, known0);
    return [];
  }
  // Most params hold no deferred value: no set of their keys then.
  const deferredKeys = hasDeferred(params) ? new Set<string>() : NO_KEYS;
  let known: Record<string, unknown> = params;
  if (deferredKeys !== NO_KEYS) {
    known = {};
    for (const [k, val] of Object.entries(params)) {
      if (hasDeferred(val)) deferredKeys.add(k);
      else known[k] = val;
    }
  }
  const result = v.safeParse(schema, known);
  if (result.success) {
    if (deferredKeys.size === 0) remember(schema, params, result.output);
    return [];
  }
  const out: Diagnostic[] = [];
  for (const issue of result.issues) {
    const { key, message } = describeIssue(issue);
    if (key !== undefined && deferredKeys.has(key)) continue;
    const span = (key !== undefined ? node.paramSpans?.[key] : undefined) ?? node.span;
    out.push(error('R001', `${type} ${JSON.stringify(node.id)}: ${message}`, { span, nodeId: node.id }));
  }
  return out;
}

/**
 * A kind's params schema, built when it is first used: a run builds only the schemas of the kinds its
 * input names (every kind's schema built at start-up is about a millisecond of a small run).
 */
export function lazySchema<T extends v.GenericSchema>(build: () => T): v.LazySchema<T> {
  let built: T | undefined;
  return v.lazy(() => (built ??= build()));
}

/** Parses params that are fully resolved; throws a plain Error with the first issue (a resource failure). */
export function parseParams<T>(type: string, schema: v.GenericSchema<unknown, T>, params: Params): T {
  const known = parsed.get(schema)?.get(params);
  if (known !== undefined) return known as T;
  const result = v.safeParse(schema, params);
  if (result.success) return result.output;
  const { message } = describeIssue(result.issues[0]);
  throw new Error(`${type}: ${message}`);
}

/** Mode param: an octal string ("0644", "644") or a number (0o644). */
/** A mode written as octal digits: "644", "0644", "2755". */
export const OCTAL_MODE = /^0?[0-7]{3,4}$/;

export const modeSchema = v.union([
  v.pipe(v.string(), v.regex(OCTAL_MODE, 'expected an octal mode such as "0644"')),
  v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(0o7777)),
]);

export function parseMode(mode: string | number | undefined): number | undefined {
  if (mode === undefined) return undefined;
  return typeof mode === 'number' ? mode : Number.parseInt(mode, 8);
}

export function formatMode(mode: number): string {
  return `0${(mode & 0o7777).toString(8).padStart(3, '0')}`;
}

/** Waits `ms` milliseconds (timers/promises is loaded only when a run waits). */
export function sleep(ms: number): Promise<void> {
  return process.getBuiltinModule('node:timers/promises').setTimeout(ms);
}
