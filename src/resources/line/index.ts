/**
 * `line`: one line of an existing file ensured, replaced, deleted or inserted (Salt's file.line, its basic
 * modes): `match`, `before` / `after` (each a regex or a plain fragment that must match exactly one line),
 * `location` start/end for insert, indentation taken from the neighbouring line. Comments are Salt 3006's.
 */
import * as v from 'valibot';
import type { ApplyOutcome, CheckOutcome } from '../../core/model.js';
import type { ResourceContext } from '../../host/types.js';
import { type Kind, type Params, parseParams, validateWith, lazySchema } from '../kind.js';
import { absolutePathSchema, followLinks } from '../paths.js';
import { pyDiff, pyRegex, splitLinesKeep } from '../replace/pytext.js';

const TYPE = 'line';

export const lineSchema = lazySchema(() =>
  v.pipe(
    v.strictObject({
      path: absolutePathSchema,
      mode: v.picklist(['ensure', 'replace', 'delete', 'insert']),
      content: v.optional(v.string()),
      match: v.optional(v.string()),
      location: v.optional(v.picklist(['start', 'end'])),
      before: v.optional(v.string()),
      after: v.optional(v.string()),
      /** Take the indentation of the neighbouring line (default true). */
      indent: v.optional(v.boolean(), true),
      /** A missing file is created (empty, then edited) instead of failing. */
      create: v.optional(v.boolean(), false),
    }),
    v.check((p) => p.mode === 'delete' || p.content !== undefined, 'Content can only be empty if mode is "delete"'),
  ),
);
export type LineParams = v.InferOutput<typeof lineSchema>;

interface LineState {
  readonly target: string;
  readonly next: string;
  /** Empty when only a missing file is created. */
  readonly diff: string;
}

function parse(params: Params): LineParams {
  return parseParams(TYPE, lineSchema, params);
}

function eolOf(line: string): string {
  return /(?:\r\n|\n|\r)$/.exec(line)?.[0] ?? '';
}

function indented(src: string | undefined, line: string, indent: boolean): string {
  if (!indent || src === undefined) return line;
  return (/^[ \t]*/.exec(src)?.[0] ?? '') + line.replace(/^\s+/, '');
}

function withEol(src: string, line: string): string {
  return line.replace(/\s+$/, '') + (eolOf(src) || '\n');
}

/** The lines a regex or plain fragment finds (Salt tries both). */
function lookup(lines: readonly string[], expr: string | undefined): string[] | undefined {
  if (!expr) return undefined;
  let re: RegExp | undefined;
  try {
    re = pyRegex(expr, 16, false);
  } catch {
    re = undefined;
  }
  return lines.filter((l) => (re ? re.test(l) : false) || l.includes(expr));
}

function exactlyOne(found: readonly string[], what: string): void {
  const n = found.length;
  if (n === 1) return;
  throw new Error(`Found ${n > 1 ? 'more than' : n === 0 ? 'less than' : 'no'} expected occurrences in "${what}" expression`);
}

const strip = (s: string) => s.replace(/[\r\n]+$/, '');

/** Salt's _set_line: the edited line list (lines keep their ends; a trailing "" stands for a final newline). */
export function editLines(input: readonly string[], p: LineParams): string[] {
  let lines = [...input];
  const content = p.content ?? '';
  const matchExpr = !p.match && p.before === undefined && p.after === undefined ? p.content : p.match;
  const after = lookup(lines, p.after);
  const before = lookup(lines, p.before);
  const match = lookup(lines, matchExpr);
  const first = match?.[0];
  if (lines.length === 0 && (p.mode === 'delete' || p.mode === 'replace')) return [];
  if (p.mode === 'delete') {
    if (first !== undefined) lines = lines.filter((l) => l !== first);
  } else if (p.mode === 'replace') {
    if (first !== undefined) {
      const idx = lines.indexOf(first);
      lines[idx] = indented(first, content, p.indent);
    }
  } else if (p.mode === 'insert') {
    if (p.location === undefined && p.before === undefined && p.after === undefined) {
      throw new Error('On insert either "location" or "before/after" conditions are required.');
    }
    if (p.location === 'end') lines.push(lines.length > 0 ? indented(lines[lines.length - 1], content, p.indent) : content);
    else if (p.location === 'start') {
      if (lines.length > 0) lines.unshift(withEol(lines[0] as string, content));
      else lines = [`${content}\n`];
    } else if (before?.length && after?.length) {
      exactlyOne(before, 'before');
      exactlyOne(after, 'after');
      const last = lines.indexOf(before[0] as string);
      lines.splice(last, 0, indented(lines[last], content, p.indent));
    } else if (after?.length) {
      exactlyOne(after, 'after');
      const idx = lines.indexOf(after[0] as string);
      const next = lines[idx + 1];
      if (next === undefined || strip(next) !== strip(content)) lines.splice(idx + 1, 0, indented(lines[idx], content, p.indent));
    } else if (before?.length) {
      exactlyOne(before, 'before');
      const idx = lines.indexOf(before[0] as string);
      const prev = lines.at(idx - 1) as string;
      if (strip(prev) !== strip(content)) lines.splice(idx, 0, indented(lines[idx], content, p.indent));
    } else throw new Error('Neither before or after was found in file');
  } else if (before?.length && after?.length) {
    exactlyOne(after, 'after');
    exactlyOne(before, 'before');
    const ai = lines.indexOf(after[0] as string);
    const bi = lines.indexOf(before[0] as string);
    if (!lines.some((l) => l.replace(/^\s+/, '') === content)) {
      if (ai + 1 === bi) lines.splice(ai + 1, 0, indented(lines[ai], content, p.indent));
      else if (ai + 2 === bi) lines[ai + 1] = indented(lines[ai], content, p.indent);
      else throw new Error('Found more than one line between boundaries "before" and "after".');
    }
  } else if (before?.length) {
    exactlyOne(before, 'before');
    const bi = lines.indexOf(before[0] as string);
    if (bi === 0 || strip(lines[bi - 1] as string) !== strip(content)) lines.splice(bi, 0, indented(lines.at(bi - 1), content, p.indent));
  } else if (after?.length) {
    exactlyOne(after, 'after');
    const ai = lines.indexOf(after[0] as string);
    const next = lines[ai + 1];
    if (next === undefined || strip(next) !== strip(content)) lines.splice(ai + 1, 0, indented(lines[ai], content, p.indent));
  } else {
    throw new Error('Wrong conditions? Unable to ensure line without knowing where to put it before and/or after.');
  }
  return lines;
}

/** Salt's file.line on a whole text. */
export function lineText(old: string, p: LineParams): string {
  const body = splitLinesKeep(old);
  if (body.length > 0 && eolOf(body[body.length - 1] as string)) body.push('');
  const lines = editLines(old.length === 0 && (p.mode === 'delete' || p.mode === 'replace') ? [] : body, p);
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] as string;
    if (!eolOf(l) && i + 1 < lines.length) lines[i] = withEol(lines[i > 0 ? i - 1 : 1] as string, l);
  }
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.join('');
}

async function check(ctx: ResourceContext, p: LineParams): Promise<CheckOutcome> {
  const { target, stat } = await followLinks(ctx.host, p.path);
  if (!stat && !p.create) throw new Error(`${p.path}: file not found`);
  if (stat && stat.type !== 'file') throw new Error(`File "${target}" does not exists or is not a file.`);
  const old = stat ? (await ctx.host.readFile(target)).toString('utf8') : '';
  const next = lineText(old, p);
  if (next === old && stat) return { inSync: true, comment: 'No changes needed to be made' };
  if (next === old) return { inSync: false, changes: {}, comment: 'No changes needed to be made', state: { target, next, diff: '' } satisfies LineState };
  const diff = await pyDiff(old, next);
  const state: LineState = { target, next, diff };
  return { inSync: false, changes: { diff }, comment: 'Changes would be made', state };
}

async function apply(ctx: ResourceContext, p: LineParams, checked: CheckOutcome): Promise<ApplyOutcome> {
  const state = (checked.state as LineState | undefined) ?? ((await check(ctx, p)).state as LineState | undefined);
  if (!state) return { ok: true, changes: {}, comment: 'No changes needed to be made' };
  await ctx.host.writeFileAtomic(state.target, state.next);
  if (state.diff === '') return { ok: true, changes: {}, comment: 'No changes needed to be made' };
  return { ok: true, changes: { diff: state.diff }, comment: 'Changes were made' };
}

export const kind: Kind = {
  type: TYPE,
  validate: (params, node) => validateWith(TYPE, lineSchema, params, node),
  schema: lineSchema,
  check: (ctx, params) => check(ctx, parse(params)),
  apply: (ctx, params, checked) => apply(ctx, parse(params), checked),
};
