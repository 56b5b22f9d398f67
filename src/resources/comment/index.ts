/**
 * `comment`: the lines of a file matching a pattern commented out with a character, or (with
 * `uncomment`) commented back in (Salt's file.comment / file.uncomment). The old text is kept next to
 * the file with the `backup` suffix, as Salt does.
 */
import * as v from 'valibot';
import type { ApplyOutcome, CheckOutcome } from '../../core/model.js';
import type { ResourceContext } from '../../host/types.js';
import { type Kind, type Params, parseParams, validateWith, lazySchema } from '../kind.js';
import { absolutePathSchema, followLinks } from '../paths.js';
import { pyDiff, pyRegex, splitLinesKeep } from '../replace/pytext.js';

const TYPE = 'comment';

export const commentSchema = lazySchema(() =>
  v.strictObject({
    path: absolutePathSchema,
    regex: v.string(),
    char: v.optional(v.string(), '#'),
    uncomment: v.optional(v.boolean(), false),
    /** Suffix of the copy of the old file; empty for none. */
    backup: v.optional(v.string(), '.bak'),
    /** A pattern found nowhere is not an error (file.comment's ignore_missing). */
    ignore_missing: v.optional(v.boolean(), false),
  }),
);
type CommentParams = v.InferOutput<typeof commentSchema>;

function parse(params: Params): CommentParams {
  return parseParams(TYPE, commentSchema, params);
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const stripHat = (s: string) => s.replace(/^\^+/, '');

/** The patterns Salt searches with (multiline) and the one each line is matched against when editing. */
function patterns(p: CommentParams): { todo: RegExp; done: RegExp; line: RegExp; unanchored: string } {
  const c = esc(p.char);
  if (p.uncomment) {
    const body = stripHat(p.regex);
    return {
      todo: pyRegex(`${p.char}[ \t]*${body}`, 8, false),
      done: pyRegex(`^[ \t]*${body}`, 8, false),
      line: pyRegex(`^${p.char}\\s*(${body.replace(/\$$/, '')})${p.regex.endsWith('$') ? '$' : ''}`, 0, false),
      unanchored: p.regex,
    };
  }
  const unanchored = p.regex.replace(/^(\(\?[iLmsux]\))?\^?([\s\S]*?)\$?$/, '$2');
  return {
    todo: pyRegex(`^(?!\\s*${c}).*${unanchored}`, 8, false),
    done: pyRegex(`${p.char}${unanchored}`, 8, false),
    line: pyRegex(`${p.regex.startsWith('^') ? '^' : ''}(${stripHat(p.regex).replace(/\$$/, '')})${p.regex.endsWith('$') ? '$' : ''}`, 0, false),
    unanchored,
  };
}

interface CommentState {
  readonly target: string;
  readonly old: string;
  readonly next: string;
}

async function read(ctx: ResourceContext, p: CommentParams): Promise<{ target: string; old: string }> {
  const { target, stat } = await followLinks(ctx.host, p.path);
  if (!stat) throw new Error(`${p.path}: file not found`);
  if (stat.type !== 'file') throw new Error(`${p.path} is not a file`);
  return { target, old: (await ctx.host.readFile(target)).toString('utf8') };
}

function edit(old: string, p: CommentParams, line: RegExp): string {
  return splitLinesKeep(old)
    .map((l) => {
      // re.match anchors at the start of the line only.
      const m = line.exec(l);
      if (!m || m.index !== 0) return l;
      return p.uncomment ? l.replace(new RegExp(`^(?:${esc(p.char)})+`), '') : `${p.char}${l}`;
    })
    .join('');
}

async function check(ctx: ResourceContext, p: CommentParams): Promise<CheckOutcome> {
  const { target, old } = await read(ctx, p);
  const pat = patterns(p);
  if (!pat.todo.test(old)) {
    if (pat.done.test(old)) return { inSync: true, comment: p.uncomment ? 'Pattern already uncommented' : 'Pattern already commented' };
    if (p.ignore_missing && !p.uncomment) return { inSync: true, comment: 'Pattern not found and ignore_missing set to True' };
    throw new Error(`${pat.unanchored}: Pattern not found`);
  }
  const state: CommentState = { target, old, next: edit(old, p, pat.line) };
  return { inSync: false, changes: { [p.path]: 'updated' }, comment: `File ${p.path} is set to be updated`, state };
}

async function apply(ctx: ResourceContext, p: CommentParams, checked: CheckOutcome): Promise<ApplyOutcome> {
  if (checked.inSync) return { ok: true, changes: {}, comment: checked.comment ?? '' };
  const { target, old, next } = checked.state as CommentState;
  const st = await ctx.host.stat(target);
  if (next !== old) {
    if (p.backup) await ctx.host.writeFileAtomic(`${target}${p.backup}`, old, st ? { mode: st.mode } : {});
    await ctx.host.writeFileAtomic(target, next);
  }
  const changes: Record<string, unknown> = next !== old ? { diff: await pyDiff(old, next) } : {};
  const pat = patterns(p);
  const ok = p.uncomment ? pat.done.test(next) : pat.done.test(next);
  const comment = p.uncomment ? (ok ? 'Uncommented lines successfully' : 'Expected uncommented lines not found') : ok ? 'Commented lines successfully' : 'Expected commented lines not found';
  return { ok, changes, comment };
}

export const kind: Kind = {
  type: TYPE,
  validate: (params, node) => validateWith(TYPE, commentSchema, params, node),
  schema: commentSchema,
  check: (ctx, params) => check(ctx, parse(params)),
  apply: (ctx, params, checked) => apply(ctx, parse(params), checked),
};
