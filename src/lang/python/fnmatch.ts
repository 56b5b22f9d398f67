/**
 * Python's fnmatch.fnmatchcase on POSIX (case-sensitive), as Salt matches minion ids, requisite targets
 * and excludes with it: `*`, `?`, `[seq]`, `[!seq]`; a `]` right after `[` or `[!` is literal, `^` after
 * `[` is literal, a `[` without a closing `]` is literal, and a range whose ends are reversed matches
 * nothing (as Python 3.11's translate drops it).
 */
const cache = new Map<string, RegExp>();

function escapeChar(ch: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(ch) ? `\\${ch}` : ch;
}

function escapeInClass(ch: string): string {
  return /[\\^\]\[-]/.test(ch) ? `\\${ch}` : ch;
}

/** The body of a character class, from the text between `[` and `]` (negation already taken off). */
function classBody(text: string): string | undefined {
  let out = '';
  let i = 0;
  let any = false;
  while (i < text.length) {
    const a = text[i] as string;
    if (text[i + 1] === '-' && i + 2 < text.length) {
      const b = text[i + 2] as string;
      i += 3;
      if (a > b) continue;
      out += `${escapeInClass(a)}-${escapeInClass(b)}`;
      any = true;
    } else {
      out += escapeInClass(a);
      any = true;
      i += 1;
    }
  }
  return any ? out : undefined;
}

export function translate(pattern: string): string {
  let out = '';
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i++] as string;
    if (c === '*') {
      out += '[\\s\\S]*';
      while (pattern[i] === '*') i++;
    } else if (c === '?') out += '[\\s\\S]';
    else if (c === '[') {
      let j = i;
      if (pattern[j] === '!') j++;
      if (pattern[j] === ']') j++;
      while (j < pattern.length && pattern[j] !== ']') j++;
      if (j >= pattern.length) {
        out += '\\[';
        continue;
      }
      let text = pattern.slice(i, j);
      i = j + 1;
      const negate = text.startsWith('!');
      if (negate) text = text.slice(1);
      const body = classBody(text);
      // An empty class (every range reversed) matches nothing, or anything when negated.
      if (body === undefined) out += negate ? '[\\s\\S]' : '(?!)';
      else out += negate ? `[^${body}]` : `[${body}]`;
    } else out += escapeChar(c);
  }
  return `^${out}$`;
}

export function fnmatch(name: string, pattern: string): boolean {
  if (!/[*?[]/.test(pattern)) return name === pattern;
  let re = cache.get(pattern);
  if (!re) {
    re = new RegExp(translate(pattern), 'u');
    cache.set(pattern, re);
  }
  return re.test(name);
}
