/**
 * `keyvalue`: `key<sep>value` lines of a file set to the wanted values (Salt's file.keyvalue: the first
 * `count` matching lines are kept and rewritten, further ones removed; commented lines can be uncommented;
 * missing keys appended or prepended). The diff is Salt's own `- old` / `+ new` listing.
 */
import * as v from 'valibot';
import type { ApplyOutcome, CheckOutcome } from '../../core/model.js';
import type { ResourceContext } from '../../host/types.js';
import { type Kind, type Params, parseParams, validateWith, lazySchema } from '../kind.js';
import { absolutePathSchema } from '../paths.js';

const TYPE = 'keyvalue';

export const keyvalueSchema = lazySchema(() =>
  v.strictObject({
    path: absolutePathSchema,
    /** Each key with its value as text; `type` names a non-string value's Python type for the diff. */
    entries: v.array(v.strictObject({ key: v.string(), value: v.string(), type: v.optional(v.string()) })),
    separator: v.optional(v.string(), '='),
    append_if_not_found: v.optional(v.boolean(), false),
    prepend_if_not_found: v.optional(v.boolean(), false),
    ignore_if_missing: v.optional(v.boolean(), false),
    count: v.optional(v.number(), 1),
    /** Characters stripped from the start of a line before it is compared (none: whitespace). */
    uncomment: v.optional(v.string()),
    key_ignore_case: v.optional(v.boolean(), false),
    value_ignore_case: v.optional(v.boolean(), false),
  }),
);
type KvParams = v.InferOutput<typeof keyvalueSchema>;

function parse(params: Params): KvParams {
  return parseParams(TYPE, keyvalueSchema, params);
}

/** Python's str.lstrip(chars), whitespace when chars is undefined. */
function lstrip(s: string, chars: string | undefined): string {
  let i = 0;
  while (i < s.length && (chars === undefined ? /\s/.test(s[i] as string) : chars.includes(s[i] as string))) i++;
  return s.slice(i);
}

/** Salt's keyvalue on the lines of a file: the new lines, its diff listing and the number of lines changed. */
export function editKeyValues(lines: readonly string[], p: KvParams): { content: string[]; diff: string[]; changes: number } {
  const diff: string[] = [];
  const content: string[] = [];
  let changes = 0;
  const left = new Map(p.entries.map((e) => [e.key, p.count]));
  const lineOf = (key: string, sep: string, value: string) => `${key}${sep}${value}\n`;
  for (let line of lines) {
    let test = lstrip(line, p.uncomment);
    const didUncomment = line.length > test.length;
    if (p.key_ignore_case) test = test.toLowerCase();
    let skip = false;
    for (const e of p.entries) {
      const testKey = p.key_ignore_case ? e.key.toLowerCase() : e.key;
      if (!test.startsWith(testKey)) continue;
      const working = didUncomment ? lstrip(line, p.uncomment) : line;
      const at = working.indexOf(p.separator);
      if (at < 0) continue;
      const lineKey = working.slice(0, at);
      let lineValue = working.slice(at + p.separator.length);
      if (!(p.key_ignore_case ? lineKey.toLowerCase() === testKey : lineKey === testKey)) continue;
      lineValue = lineValue.trim();
      let want = e.value.trim();
      if (p.value_ignore_case) {
        lineValue = lineValue.toLowerCase();
        want = want.toLowerCase();
      }
      let valuesMatch = lineValue === want;
      let needsChanging = false;
      const n = left.get(e.key) as number;
      if (didUncomment) {
        if (n > 0) needsChanging = true;
        else if (!valuesMatch) valuesMatch = true;
      } else if (n === 0) needsChanging = true;
      if (!valuesMatch || needsChanging) {
        diff.push(`- ${line}`);
        line = '';
        if (n !== 0) {
          line = lineOf(lineKey, p.separator, e.value);
          diff.push(e.type ? `+ ${line.trimEnd()} (from ${e.type} type)\n` : `+ ${line}`);
        }
        changes++;
      }
      if (n > 0) left.set(e.key, n - 1);
      skip = true;
      break;
    }
    if (skip) {
      if (line) content.push(line);
      continue;
    }
    content.push(line);
  }
  if (p.append_if_not_found) {
    const add: string[] = [];
    for (const e of p.entries) {
      if ((left.get(e.key) as number) > 0) {
        const line = lineOf(e.key, p.separator, e.value);
        add.push(`+ ${line}`);
        content.push(line);
        changes++;
      }
    }
    if (add.length > 0) diff.push('- <EOF>\n', ...add, '+ <EOF>\n');
  } else if (p.prepend_if_not_found) {
    let did = false;
    for (const e of p.entries) {
      if ((left.get(e.key) as number) > 0) {
        const line = lineOf(e.key, p.separator, e.value);
        if (!did) {
          diff.unshift('  <SOF>\n');
          did = true;
        }
        diff.splice(1, 0, `+ ${line}`);
        content.unshift(line);
        changes++;
      }
    }
  }
  return { content, diff, changes };
}

async function check(ctx: ResourceContext, p: KvParams): Promise<CheckOutcome> {
  const st = await ctx.host.stat(p.path);
  if (st?.type !== 'file') {
    if (p.ignore_if_missing) return { inSync: true, comment: `unable to open ${p.path}` };
    throw new Error(`unable to open ${p.path}`);
  }
  const text = (await ctx.host.readFile(p.path)).toString('utf8');
  const r = editKeyValues(text.match(/[^\n]*\n|[^\n]+$/g) ?? [], p);
  if (r.changes === 0) return { inSync: true, comment: '' };
  return {
    inSync: false,
    changes: { diff: r.diff.join('') },
    comment: `File ${p.path} is set to be changed (${r.changes} lines)\nPredicted diff:\n\r\t\t${r.diff.join('\r\t\t')}`,
    state: r,
  };
}

async function apply(ctx: ResourceContext, p: KvParams, checked: CheckOutcome): Promise<ApplyOutcome> {
  if (checked.inSync) return { ok: true, changes: {}, comment: checked.comment ?? '' };
  const r = checked.state as { content: string[]; diff: string[]; changes: number };
  await ctx.host.writeFileAtomic(p.path, r.content.join(''));
  return { ok: true, changes: { diff: r.diff.join('') }, comment: `Changed ${r.changes} lines` };
}

export const kind: Kind = {
  type: TYPE,
  validate: (params, node) => validateWith(TYPE, keyvalueSchema, params, node),
  schema: keyvalueSchema,
  check: (ctx, params) => check(ctx, parse(params)),
  apply: (ctx, params, checked) => apply(ctx, parse(params), checked),
};
