/**
 * `replace`: a regular expression replaced in an existing file (Salt's file.replace): `count`, Python `re`
 * flags, append or prepend the text when the pattern is not found, a backup copy of the old file.
 * Comments and changes are Salt 3006's; the diff is difflib's.
 */
import * as v from 'valibot';
import type { ApplyOutcome, CheckOutcome } from '../../core/model.js';
import type { ResourceContext } from '../../host/types.js';
import { type Kind, type Params, parseParams, validateWith, lazySchema } from '../kind.js';
import { absolutePathSchema, followLinks } from '../paths.js';
import { escapeRegex, flagBits, pyDiff, pyRegex, splitLinesKeep, subn } from './pytext.js';

const TYPE = 'replace';

const flagsSchema = v.union([v.pipe(v.number(), v.integer()), v.string(), v.array(v.string())]);

export const replaceSchema = lazySchema(() =>
  v.pipe(
    v.strictObject({
      path: absolutePathSchema,
      pattern: v.string(),
      repl: v.string(),
      /** Most replacements; 0 replaces every match. */
      count: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0)), 0),
      /** Python `re` flags: an int or flag names; default MULTILINE (8). */
      flags: v.optional(flagsSchema, 8),
      append_if_not_found: v.optional(v.boolean(), false),
      prepend_if_not_found: v.optional(v.boolean(), false),
      /** What is appended or prepended when the pattern is not found (default: repl). */
      not_found_content: v.optional(v.string()),
      /** Suffix of the copy of the old file kept when it changes; false for none. */
      backup: v.optional(v.union([v.string(), v.literal(false)]), '.bak'),
      /** A missing file is no change instead of a failure. */
      ignore_if_missing: v.optional(v.boolean(), false),
      /** Backslashes in repl are literal. */
      backslash_literal: v.optional(v.boolean(), false),
    }),
    v.check((p) => !(p.append_if_not_found && p.prepend_if_not_found), 'Only one of append and prepend_if_not_found is permitted'),
  ),
);
export type ReplaceParams = v.InferOutput<typeof replaceSchema>;

interface ReplaceState {
  readonly target: string;
  readonly old: string;
  readonly next: string;
  readonly diff: string;
}

function parse(params: Params): ReplaceParams {
  return parseParams(TYPE, replaceSchema, params);
}

/** What the file becomes: Salt's file.replace on the whole text, then append/prepend when not found. */
export function replaceText(old: string, p: ReplaceParams): string {
  const bits = flagBits(p.flags);
  const re = pyRegex(p.pattern, bits);
  const { text, n } = subn(re, p.repl, old, p.count, p.backslash_literal);
  if (!(p.append_if_not_found || p.prepend_if_not_found) || n > 0) return text;
  const content = p.not_found_content ?? p.repl;
  // Content pre/appended by an earlier run counts as found.
  if (pyRegex(`^${escapeRegex(content)}($|(?=\r\n))`, bits, false).test(old)) return text;
  const lines = splitLinesKeep(text);
  if (p.prepend_if_not_found) return `${content}\n${text}`;
  const last = lines[lines.length - 1];
  return `${text}${last !== undefined && !last.endsWith('\n') ? '\n' : ''}${content}\n`;
}

async function check(ctx: ResourceContext, p: ReplaceParams): Promise<CheckOutcome> {
  const { target, stat } = await followLinks(ctx.host, p.path);
  if (!stat) {
    if (p.ignore_if_missing) return { inSync: true, comment: 'No changes needed to be made' };
    throw new Error(`${p.path}: file not found`);
  }
  if (stat.type !== 'file') throw new Error(`${p.path} is not a regular file`);
  const data = await ctx.host.readFile(target);
  if (data.subarray(0, 8000).includes(0)) throw new Error(`Cannot perform string replacements on a binary file: ${target}`);
  const old = data.toString('utf8');
  const next = replaceText(old, p);
  if (next === old) return { inSync: true, comment: 'No changes needed to be made' };
  const diff = await pyDiff(old, next);
  const state: ReplaceState = { target, old, next, diff };
  return { inSync: false, changes: { diff }, comment: 'Changes would have been made', state };
}

async function apply(ctx: ResourceContext, p: ReplaceParams, checked: CheckOutcome): Promise<ApplyOutcome> {
  const state = (checked.state as ReplaceState | undefined) ?? ((await check(ctx, p)).state as ReplaceState | undefined);
  if (!state) return { ok: true, changes: {}, comment: 'No changes needed to be made' };
  if (p.backup !== false && p.backup !== '') await ctx.host.writeFileAtomic(`${state.target}${p.backup}`, state.old);
  await ctx.host.writeFileAtomic(state.target, state.next);
  return { ok: true, changes: { diff: state.diff }, comment: 'Changes were made' };
}

export const kind: Kind = {
  type: TYPE,
  validate: (params, node) => validateWith(TYPE, replaceSchema, params, node),
  schema: replaceSchema,
  check: (ctx, params) => check(ctx, parse(params)),
  apply: (ctx, params, checked) => apply(ctx, parse(params), checked),
};
