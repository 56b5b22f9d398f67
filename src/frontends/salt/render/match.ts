/**
 * Minion targeting as top files use it: glob (fnmatch), pcre (re.match, anchored at the start), list,
 * grain and grain_pcre (`key:sub:pattern`), and simple compound expressions (`G@os:Debian and web*`,
 * `not`, `or`, `L@`, `E@`, `P@`) without parentheses.
 */

import { translate } from '../../../lang/python/fnmatch.js';
import { isPlainObject } from './data-path.js';

/** Python fnmatch.fnmatchcase as a RegExp (flags such as `i` added). */
export function globToRegExp(glob: string, flags = ''): RegExp {
  return new RegExp(translate(glob), `u${flags}`);
}

export const fnmatch = (name: string, glob: string): boolean => globToRegExp(glob).test(name);
export const hasGlob = (s: string): boolean => /[*?[]/.test(s);

/** salt.utils.data.subdict_match: walk `a:b` into the grains, compare the rest against the value(s). */
function subdictMatch(data: Record<string, unknown>, expr: string, regex: boolean): boolean {
  const parts = expr.split(':');
  for (let cut = parts.length - 1; cut >= 1; cut--) {
    let cur: unknown = data;
    for (const key of parts.slice(0, cut)) cur = isPlainObject(cur) ? cur[key] : undefined;
    if (cur === undefined) continue;
    const pattern = parts.slice(cut).join(':');
    const test = (v: unknown): boolean => {
      const s = typeof v === 'boolean' ? (v ? 'True' : 'False') : String(v);
      return regex ? new RegExp(pattern).test(s) : globToRegExp(pattern.toLowerCase()).test(s.toLowerCase());
    };
    if (Array.isArray(cur)) return cur.some(test);
    if (isPlainObject(cur)) return Object.keys(cur).some(test);
    return test(cur);
  }
  return false;
}

export interface MatchContext {
  minionId: string;
  grains: Record<string, unknown>;
  pillar: Record<string, unknown>;
}

function matchOne(kind: string, tgt: unknown, ctx: MatchContext): boolean {
  const t = typeof tgt === 'string' ? tgt : String(tgt);
  switch (kind) {
    case 'glob':
      return fnmatch(ctx.minionId, t);
    case 'pcre':
      return new RegExp(`^(?:${t})`).test(ctx.minionId);
    case 'list':
      return (Array.isArray(tgt) ? tgt.map(String) : t.split(',').map((x) => x.trim())).includes(ctx.minionId);
    case 'grain':
      return subdictMatch(ctx.grains, t, false);
    case 'grain_pcre':
      return subdictMatch(ctx.grains, t, true);
    case 'pillar':
      return subdictMatch(ctx.pillar, t, false);
    case 'pillar_pcre':
      return subdictMatch(ctx.pillar, t, true);
    case 'compound':
      return compoundMatch(t, ctx);
    default:
      throw new Error(`the top file matcher '${kind}' is not supported`);
  }
}

const PREFIX: Record<string, string> = { G: 'grain', P: 'grain_pcre', E: 'pcre', L: 'list', I: 'pillar', J: 'pillar_pcre' };

function compoundMatch(expr: string, ctx: MatchContext): boolean {
  // Evaluated as an OR of AND-groups, which is how the operators bind without parentheses.
  const groups: boolean[][] = [[]];
  let negate = false;
  for (const word of expr.trim().split(/\s+/)) {
    if (word === 'and') continue;
    if (word === 'or') {
      groups.push([]);
      continue;
    }
    if (word === 'not') {
      negate = !negate;
      continue;
    }
    if (word.includes('(') || word.includes(')')) throw new Error('parentheses in compound matches are not supported');
    const m = /^([A-Z])@(.*)$/.exec(word);
    let r: boolean;
    if (m) {
      const kind = PREFIX[m[1] ?? ''];
      if (!kind) throw new Error(`the compound matcher '${m[1]}@' is not supported`);
      r = matchOne(kind, m[2] ?? '', ctx);
    } else r = fnmatch(ctx.minionId, word);
    (groups[groups.length - 1] as boolean[]).push(negate ? !r : r);
    negate = false;
  }
  return groups.some((g) => g.length > 0 && g.every(Boolean));
}

/** Whether a top-file target matches this minion; `kind` comes from `- match: ...` (glob by default). */
export function targetMatches(target: string, kind: string, ctx: MatchContext): boolean {
  return matchOne(kind === 'glob' && /\s|@/.test(target) ? 'compound' : kind, target, ctx);
}
