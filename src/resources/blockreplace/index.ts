/**
 * `blockreplace`: the text between two marker lines of a file replaced by managed content, or the marked
 * block added (at the end, the start, or next to a matching line) when the markers are missing (Salt's
 * file.blockreplace). The old file is kept with the `backup` suffix, as Salt does.
 */
import * as v from 'valibot';
import type { ApplyOutcome, CheckOutcome } from '../../core/model.js';
import type { ResourceContext } from '../../host/types.js';
import { type Kind, type Params, parseParams, validateWith, lazySchema } from '../kind.js';
import { absolutePathSchema, followLinks } from '../paths.js';
import { pyDiff, pyRegex } from '../replace/pytext.js';

const TYPE = 'blockreplace';

export const blockreplaceSchema = lazySchema(() =>
  v.strictObject({
    path: absolutePathSchema,
    marker_start: v.optional(v.string(), '#-- start managed zone --'),
    marker_end: v.optional(v.string(), '#-- end managed zone --'),
    content: v.optional(v.string(), ''),
    append_if_not_found: v.optional(v.boolean(), false),
    prepend_if_not_found: v.optional(v.boolean(), false),
    insert_before_match: v.optional(v.string()),
    insert_after_match: v.optional(v.string()),
    /** Unset: a newline ends the content unless it has one (Salt's append_newline None). */
    append_newline: v.optional(v.boolean()),
    backup: v.optional(v.string(), '.bak'),
  }),
);
type BlockParams = v.InferOutput<typeof blockreplaceSchema>;

function parse(params: Params): BlockParams {
  return parseParams(TYPE, blockreplaceSchema, params);
}

/** Salt's file.blockreplace on a text: the new text (throws Salt's errors). */
export function replaceBlock(text: string, p: BlockParams): string {
  const exclusive = [p.append_if_not_found, p.prepend_if_not_found, Boolean(p.insert_before_match), Boolean(p.insert_after_match)].filter(Boolean).length;
  if (exclusive > 1) throw new Error('Only one of append_if_not_found, prepend_if_not_found, insert_before_match, and insert_after_match is permitted');
  const appendNewline = p.append_newline ?? !(p.content.endsWith('\n'));
  const split = p.content.split('\r\n').flatMap((l) => l.split('\n'));
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  let linesep: string | undefined;
  const add = (sep: string, out: string[] = [], withStart = true, endLine = p.marker_end): string[] => {
    const end = endLine.replace(/[\r\n]+$/, '') + sep;
    if (withStart) out.push(p.marker_start + sep);
    split.forEach((l, i) => {
      if (i !== split.length - 1) out.push(l + sep);
      else if (appendNewline) out.push(l + sep, end);
      else out.push(l + end);
    });
    return out;
  };
  let out: string[] = [];
  let inBlock = false;
  let found = false;
  for (const line of lines) {
    linesep ??= line.endsWith('\r\n') ? '\r\n' : '\n';
    let keep = true;
    if (line.includes(p.marker_start)) inBlock = true;
    else if (inBlock) {
      keep = false;
      const at = line.indexOf(p.marker_end);
      if (at !== -1) {
        inBlock = false;
        found = true;
        add(linesep, out, false, line.slice(at));
      }
    }
    if (keep) out.push(line);
  }
  const sep = linesep ?? '\n';
  if (inBlock) throw new Error('Unterminated marked block. End of file reached before marker_end.');
  if (!found) {
    if (p.prepend_if_not_found) out = [...add(sep), ...out];
    else if (p.append_if_not_found) {
      if (out.length > 0 && !(out[out.length - 1] as string).endsWith(sep)) out[out.length - 1] += sep;
      add(sep, out);
    } else if (p.insert_before_match || p.insert_after_match) {
      const re = pyRegex((p.insert_before_match ?? p.insert_after_match) as string, 0, false);
      let idx = lines.findIndex((l) => re.test(l));
      if (idx < 0) throw new Error('Cannot edit marked block. Markers were not found in file.');
      for (const l of add(sep)) {
        if (p.insert_after_match) idx++;
        out.splice(idx, 0, l);
        if (p.insert_before_match) idx++;
      }
    } else throw new Error('Cannot edit marked block. Markers were not found in file.');
  }
  return out.join('');
}

async function read(ctx: ResourceContext, p: BlockParams): Promise<{ target: string; old: string }> {
  const { target, stat } = await followLinks(ctx.host, p.path);
  if (!stat) throw new Error(`${p.path}: file not found`);
  return { target, old: (await ctx.host.readFile(target)).toString('utf8') };
}

async function check(ctx: ResourceContext, p: BlockParams): Promise<CheckOutcome> {
  const { target, old } = await read(ctx, p);
  let next: string;
  try {
    next = replaceBlock(old, p);
  } catch (e) {
    throw new Error(`Encountered error managing block: ${(e as Error).message}. See the log for details.`);
  }
  if (next === old) return { inSync: true, comment: 'No changes needed to be made' };
  return { inSync: false, changes: { diff: await pyDiff(old, next) }, comment: 'Changes would be made', state: { target, old, next } };
}

async function apply(ctx: ResourceContext, p: BlockParams, checked: CheckOutcome): Promise<ApplyOutcome> {
  if (checked.inSync) return { ok: true, changes: {}, comment: checked.comment ?? '' };
  const { target, old, next } = checked.state as { target: string; old: string; next: string };
  const st = await ctx.host.stat(target);
  if (p.backup) await ctx.host.writeFileAtomic(`${target}${p.backup}`, old, st ? { mode: st.mode, uid: st.uid, gid: st.gid } : {});
  await ctx.host.writeFileAtomic(target, next);
  return { ok: true, changes: checked.changes ?? {}, comment: 'Changes were made' };
}

export const kind: Kind = {
  type: TYPE,
  validate: (params, node) => validateWith(TYPE, blockreplaceSchema, params, node),
  schema: blockreplaceSchema,
  check: (ctx, params) => check(ctx, parse(params)),
  apply: (ctx, params, checked) => apply(ctx, parse(params), checked),
};
