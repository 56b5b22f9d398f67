/**
 * `cleandir`: a directory (as the `directory` kind manages it) whose contents are only what is kept: every
 * other file, link or subdirectory below it is removed (Salt's file.directory with `clean: True`). `keep`
 * lists paths managed elsewhere (Salt keeps the files of the states the directory requires): a kept path
 * keeps its parent directories and, when it is a directory, everything below it.
 */
import { posix } from 'node:path';
import * as v from 'valibot';
import type { ApplyOutcome, CheckOutcome, GraphNode } from '../../core/model.js';
import type { ResourceContext } from '../../host/types.js';
import { kind as directory } from '../directory/index.js';
import { directoryEntries } from '../directory/schema.js';
import { type Kind, type Params, parseParams, validateWith, lazySchema } from '../kind.js';
import { absolutePathSchema } from '../paths.js';

const TYPE = 'cleandir';

export const cleandirSchema = lazySchema(() =>
  v.strictObject({
    ...directoryEntries(),
    keep: v.optional(v.array(absolutePathSchema), []),
    /** A glob (or `E@regex`) of paths relative to the directory that are never removed. */
    exclude_pat: v.optional(v.string()),
  }),
);
export type CleandirParams = v.InferOutput<typeof cleandirSchema>;

interface CleanState {
  readonly dir: CheckOutcome;
  /** Every path below the directory that is not kept, parents before children. */
  readonly stale: string[];
}

function parse(params: Params): CleandirParams {
  return parseParams(TYPE, cleandirSchema, params);
}

function dirParams(p: CleandirParams): Record<string, unknown> {
  const { keep: _keep, exclude_pat: _ex, ...rest } = p;
  return rest;
}

function globRegex(glob: string): RegExp {
  let out = '';
  for (const c of glob) out += c === '*' ? '.*' : c === '?' ? '.' : /[.+^${}()|[\]\\]/.test(c) ? `\\${c}` : c;
  return new RegExp(`^${out}$`);
}

function excluded(rel: string, pat: string | undefined): boolean {
  if (!pat) return false;
  return pat.startsWith('E@') ? new RegExp(pat.slice(2)).test(rel) : globRegex(pat).test(rel);
}

function isBelow(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir === '/' ? '/' : `${dir}/`);
}

/** Everything below `dir` (lstat: links are not followed), sorted, parents first. */
async function walk(ctx: ResourceContext, dir: string, out: string[] = []): Promise<string[]> {
  for (const name of (await ctx.host.readdir(dir)).sort()) {
    const path = posix.join(dir, name);
    out.push(path);
    if ((await ctx.host.lstat(path))?.type === 'directory') await walk(ctx, path, out);
  }
  return out;
}

async function staleEntries(ctx: ResourceContext, p: CleandirParams): Promise<string[]> {
  const st = await ctx.host.lstat(p.path);
  if (st?.type !== 'directory') return [];
  const all = await walk(ctx, p.path);
  const keptDirs = new Set<string>();
  const keep = p.keep.filter((k) => isBelow(k, p.path));
  for (const k of keep) {
    if ((await ctx.host.lstat(k))?.type === 'directory') keptDirs.add(k);
  }
  const kept = (path: string): boolean =>
    keep.some((k) => k === path || isBelow(k, path)) || [...keptDirs].some((d) => isBelow(path, d));
  return all.filter((path) => !kept(path) && !excluded(posix.relative(p.path, path), p.exclude_pat));
}

/** Salt's test-mode listing: one `path: key - value` line per change. */
function listing(changes: Record<string, Record<string, unknown>>): string {
  const lines = Object.entries(changes).flatMap(([path, c]) => Object.entries(c).map(([k, val]) => `${path}: ${k} - ${String(val)}\n`));
  return `The following files will be changed:\n${lines.join('')}`;
}

async function check(ctx: ResourceContext, params: Params, p: CleandirParams, node: GraphNode): Promise<CheckOutcome> {
  const dir = await directory.check(ctx, dirParams(p), node);
  const stale = await staleEntries(ctx, p);
  const state: CleanState = { dir, stale };
  if (stale.length === 0) return { ...dir, state };
  const changes: Record<string, Record<string, unknown>> = {};
  for (const path of stale) changes[path] = { removed: 'Removed due to clean' };
  Object.assign(changes, (dir.changes ?? {}) as Record<string, Record<string, unknown>>);
  return { inSync: false, changes, comment: listing(changes), ...(dir.outputs ? { outputs: dir.outputs } : {}), state };
}

async function apply(ctx: ResourceContext, p: CleandirParams, checked: CheckOutcome, node: GraphNode): Promise<ApplyOutcome> {
  const state = (checked.state as CleanState | undefined) ?? ((await check(ctx, {}, p, node)).state as CleanState);
  const applied = state.dir.inSync ? { ok: true, changes: {}, comment: state.dir.comment ?? '', ...(state.dir.outputs ? { outputs: state.dir.outputs } : {}) } : await directory.apply(ctx, dirParams(p), state.dir, node);
  if (!applied.ok) return applied;
  const removed: string[] = [];
  for (const path of state.stale) {
    // A removed directory takes what is below it along.
    if (removed.some((r) => isBelow(path, r))) continue;
    await ctx.host.remove(path, { recursive: true });
    removed.push(path);
  }
  if (removed.length === 0) return applied;
  // Salt's record: each stale path found by its pre-check, the directory's own changes, then what was removed.
  const found = Object.fromEntries(state.stale.map((path) => [path, { removed: 'Removed due to clean' }]));
  return { ...applied, changes: { ...found, ...applied.changes, removed }, comment: `Files cleaned from directory ${p.path}` };
}

export const kind: Kind = {
  type: TYPE,
  validate: (params, node) => validateWith(TYPE, cleandirSchema, params, node),
  schema: cleandirSchema,
  check: (ctx, params, node) => check(ctx, params, parse(params), node),
  apply: (ctx, params, checked, node) => apply(ctx, parse(params), checked, node),
};
