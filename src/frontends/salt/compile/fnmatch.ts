/** Python's fnmatch.fnmatch on POSIX (case-sensitive): Salt matches requisite targets and sls excludes with it. */

const cache = new Map<string, RegExp>();

function escape(ch: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(ch) ? `\\${ch}` : ch;
}

function translate(pattern: string): string {
  let out = '';
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i++] as string;
    if (c === '*') out += '[\\s\\S]*';
    else if (c === '?') out += '[\\s\\S]';
    else if (c === '[') {
      let j = i;
      if (pattern[j] === '!') j++;
      if (pattern[j] === ']') j++;
      while (j < pattern.length && pattern[j] !== ']') j++;
      if (j >= pattern.length) out += '\\[';
      else {
        let body = pattern.slice(i, j).replace(/\\/g, '\\\\');
        i = j + 1;
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        else if (body.startsWith('^')) body = `\\${body}`;
        out += `[${body}]`;
      }
    } else out += escape(c);
  }
  return `^${out}$`;
}

export function fnmatch(name: string, pattern: string): boolean {
  if (!/[*?[]/.test(pattern)) return name === pattern;
  let re = cache.get(pattern);
  if (!re) {
    re = new RegExp(translate(pattern));
    cache.set(pattern, re);
  }
  return re.test(name);
}
