/**
 * `append`: text blocks at the end of a file unless the file already holds them (Salt's file.append). A
 * block counts as present when a whitespace-insensitive pattern of it is found (or the block itself, as a
 * regex, without `ignore_whitespace`). A missing file is created first. Comments are Salt 3006's.
 */
import { posix } from 'node:path';
import * as v from 'valibot';
import type { ApplyOutcome, CheckOutcome } from '../../core/model.js';
import type { ResourceContext } from '../../host/types.js';
import { type Kind, type Params, parseParams, validateWith, lazySchema } from '../kind.js';
import { absolutePathSchema, ensureParent, followLinks } from '../paths.js';
import { escapeRegex, joinedLineDiff, pyDiff, pyRegex, splitLines } from '../replace/pytext.js';

const TYPE = 'append';

export const appendSchema = lazySchema(() =>
  v.strictObject({
    path: absolutePathSchema,
    text: v.pipe(v.array(v.string()), v.minLength(1, 'No text found to append. Nothing appended')),
    makedirs: v.optional(v.boolean(), false),
    ignore_whitespace: v.optional(v.boolean(), true),
    /** Where the missing lines go: the end (Salt's file.append) or the start (file.prepend). */
    at: v.optional(v.picklist(['end', 'start']), 'end'),
    /** Prepend only: the lines must open the file, even when they are found further down (Salt's header). */
    header: v.optional(v.boolean(), false),
  }),
);
export type AppendParams = v.InferOutput<typeof appendSchema>;

interface AppendState {
  readonly target: string;
  readonly exists: boolean;
  readonly old: string;
  readonly add: string[];
}

function parse(params: Params): AppendParams {
  return parseParams(TYPE, appendSchema, params);
}

/** Salt's build_whitespace_split_regex: the words of each line, any whitespace around and between. */
export function whitespaceRegex(block: string): RegExp {
  const ws = '(?:[\\s]+)?';
  let body = '';
  for (const line of splitLines(block)) {
    const words = line.split(/\s+/).filter(Boolean).map(escapeRegex);
    body += `${ws}${words.join(ws)}${ws}`;
  }
  return new RegExp(`^${body}$`, 'm');
}

/** The lines to append: those of every block not found in the text. */
export function linesToAppend(old: string, p: AppendParams): string[] {
  const add: string[] = [];
  for (const block of p.text) {
    if (p.header) {
      add.push(...splitLines(block));
      continue;
    }
    const re = p.ignore_whitespace ? whitespaceRegex(block) : pyRegex(block, 8, false);
    if (re.test(old)) continue;
    add.push(...splitLines(block));
  }
  return add;
}

async function read(ctx: ResourceContext, p: AppendParams): Promise<AppendState> {
  const { target, stat } = await followLinks(ctx.host, p.path);
  if (stat && stat.type !== 'file') throw new Error(`${p.path} exists and is not a regular file`);
  const old = stat ? (await ctx.host.readFile(target)).toString('utf8') : '';
  let add = linesToAppend(old, p);
  // A header already opening the file is left alone.
  if (p.header && splitLines(old).slice(0, add.length).join('\n') === add.join('\n')) add = [];
  return { target, exists: stat !== null, old, add };
}

/** The diff Salt shows: the old lines against them with the new ones added (prepend diffs the lines with their ends). */
async function diffOf(state: AppendState, p: AppendParams): Promise<string> {
  if (p.at === 'start') return pyDiff(state.old, `${state.add.map((l) => `${l}\n`).join('')}${state.old}`);
  const before = splitLines(state.old);
  return joinedLineDiff(before, [...before, ...state.add]);
}

async function check(ctx: ResourceContext, p: AppendParams): Promise<CheckOutcome> {
  const state = await read(ctx, p);
  if (!state.exists) return { inSync: false, changes: { new: p.path }, comment: `File ${p.path} is set to be created`, state };
  if (state.add.length === 0) return { inSync: true, comment: `File ${p.path} is in correct state` };
  return { inSync: false, changes: { diff: await diffOf(state, p) }, comment: `File ${p.path} is set to be updated`, state };
}

async function apply(ctx: ResourceContext, p: AppendParams, checked: CheckOutcome): Promise<ApplyOutcome> {
  const state = (checked.state as AppendState | undefined) ?? (await read(ctx, p));
  if (!state.exists) {
    if (p.makedirs) {
      const failure = await ensureParent(ctx.host, state.target, true, '');
      if (failure) return { ok: false, comment: failure };
    } else if ((await ctx.host.stat(posix.dirname(state.target)))?.type !== 'directory') {
      return { ok: false, comment: `Directory not present to touch file ${p.path}` };
    }
  }
  if (state.add.length === 0) {
    if (!state.exists) await ctx.host.writeFileAtomic(state.target, '');
    return { ok: true, changes: {}, comment: `File ${p.path} is in correct state` };
  }
  const diff = await diffOf(state, p);
  if (p.at === 'start') {
    await ctx.host.writeFileAtomic(state.target, `${state.add.map((l) => `${l}\n`).join('')}${state.old}`);
    return { ok: true, changes: { diff }, comment: `Prepended ${state.add.length} lines` };
  }
  // A last line without its newline gets one before the new lines.
  const sep = state.old.length > 0 && !state.old.endsWith('\n') ? '\n' : '';
  await ctx.host.writeFileAtomic(state.target, `${state.old}${sep}${state.add.map((l) => `${l}\n`).join('')}`);
  return { ok: true, changes: { diff }, comment: `Appended ${state.add.length} lines` };
}

export const kind: Kind = {
  type: TYPE,
  validate: (params, node) => validateWith(TYPE, appendSchema, params, node),
  schema: appendSchema,
  check: (ctx, params) => check(ctx, parse(params)),
  apply: (ctx, params, checked) => apply(ctx, parse(params), checked),
};
