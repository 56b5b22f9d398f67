/**
 * Python text semantics the line-editing kinds share (Salt's file.replace, file.line, file.append): `re`
 * patterns and flags as JavaScript regular expressions, `re.sub` replacement strings, `str.splitlines`
 * and difflib's unified diff as Salt's get_diff prints it.
 */
import { unifiedDiff } from '../file/diff.js';

/** Python's re flag bits (re.IGNORECASE = 2, re.MULTILINE = 8, re.DOTALL = 16). */
const FLAG_BITS: Readonly<Record<string, number>> = { I: 2, IGNORECASE: 2, M: 8, MULTILINE: 8, S: 16, DOTALL: 16, X: 64, VERBOSE: 64, U: 32, UNICODE: 32, A: 256, ASCII: 256 };

/** Salt's `flags`: an int, one flag name, or a list of names. Throws on an unknown name. */
export function flagBits(flags: unknown): number {
  if (flags === undefined || flags === null) return 8;
  if (typeof flags === 'number') return flags;
  const names = Array.isArray(flags) ? flags.map(String) : [String(flags)];
  let bits = 0;
  for (const n of names) {
    const b = FLAG_BITS[n.toUpperCase()];
    if (b === undefined) throw new Error(`Invalid re flag given: ${n}`);
    bits |= b;
  }
  return bits;
}

/** A Python `re` pattern as a JavaScript RegExp (named groups and the common syntax differences). */
export function pyRegex(pattern: string, bits: number, global = true): RegExp {
  let src = pattern
    .replace(/\(\?P<([A-Za-z_]\w*)>/g, '(?<$1>')
    .replace(/\(\?P=([A-Za-z_]\w*)\)/g, '\\k<$1>')
    .replace(/\\A/g, '^')
    .replace(/\\Z/g, '$(?![\\s\\S])');
  // Without MULTILINE, Python's `$` also matches just before a newline that ends the string.
  if (!(bits & 8)) src = pyDollar(src);
  let flags = global ? 'g' : '';
  if (bits & 2) flags += 'i';
  if (bits & 8) flags += 'm';
  if (bits & 16) flags += 's';
  if (bits & 64) src = src.replace(/\\#/g, '\u0000').replace(/#.*$/gm, '').replace(/\s+/g, '').replace(/\u0000/g, '\\#');
  try {
    return new RegExp(src, flags);
  } catch (e) {
    throw new Error(`Invalid regular expression ${JSON.stringify(pattern)}: ${(e as Error).message}`);
  }
}

/** Every bare `$` (not escaped, not in a character class) as Python reads it without MULTILINE. */
function pyDollar(src: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i] as string;
    if (c === '\\') {
      out += src.slice(i, i + 2);
      i++;
    } else if (inClass) {
      if (c === ']') inClass = false;
      out += c;
    } else if (c === '[') {
      inClass = true;
      out += c;
      if (src[i + 1] === '^') out += src[++i];
      if (src[i + 1] === ']') out += src[++i];
    } else out += c === '$' ? '(?=\\n?(?![\\s\\S]))' : c;
  }
  return out;
}

const ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', f: '\f', v: '\v', a: '\u0007', b: '\b', '\\': '\\' };

/** The text `re.sub` puts in for one match of a Python replacement template (`\1`, `\g<name>`, `\n`). */
export function expandRepl(repl: string, match: RegExpExecArray | string[], groups?: Record<string, string | undefined>): string {
  let out = '';
  for (let i = 0; i < repl.length; i++) {
    const c = repl[i] as string;
    if (c !== '\\' || i + 1 >= repl.length) {
      out += c;
      continue;
    }
    const n = repl[i + 1] as string;
    if (/\d/.test(n)) {
      const m = /^\d{1,2}/.exec(repl.slice(i + 1)) as RegExpExecArray;
      const idx = Number(m[0]);
      if (idx >= match.length) throw new Error(`invalid group reference ${idx}`);
      out += match[idx] ?? '';
      i += m[0].length;
    } else if (n === 'g' && repl[i + 2] === '<') {
      const end = repl.indexOf('>', i + 3);
      if (end < 0) throw new Error('missing >, unterminated name');
      const ref = repl.slice(i + 3, end);
      out += (/^\d+$/.test(ref) ? match[Number(ref)] : groups?.[ref]) ?? '';
      i = end;
    } else if (n in ESCAPES) {
      out += ESCAPES[n];
      i++;
    } else {
      out += `\\${n}`;
      i++;
    }
  }
  return out;
}

/** Python's `re.subn(pattern, repl, text, count)`: the new text and the number of replacements. */
export function subn(re: RegExp, repl: string, text: string, count: number, literal = false): { text: string; n: number } {
  let n = 0;
  const out = text.replace(re, (...args: unknown[]) => {
    if (count > 0 && n >= count) return args[0] as string;
    n++;
    const last = args[args.length - 1];
    const groups = typeof last === 'object' && last !== null ? (last as Record<string, string | undefined>) : undefined;
    const nums = groups ? args.length - 3 : args.length - 2;
    const match = args.slice(0, nums).map((x) => (x === undefined ? '' : String(x)));
    return literal ? repl : expandRepl(repl, match, groups);
  });
  return { text: out, n };
}

/** Python's `str.splitlines(keepends=True)` for \n, \r\n and \r line ends. */
export function splitLinesKeep(text: string): string[] {
  return text.match(/[^\r\n]*(?:\r\n|\n|\r)|[^\r\n]+$/g) ?? [];
}

/** Python's `str.splitlines()` (no line ends). */
export function splitLines(text: string): string[] {
  return splitLinesKeep(text).map((l) => l.replace(/(?:\r\n|\n|\r)$/, ''));
}

/** Salt's get_diff of two texts: difflib's unified diff of their lines, joined without separators. */
export async function pyDiff(before: string, after: string): Promise<string> {
  const out = await unifiedDiff(Buffer.from(before), Buffer.from(after));
  // difflib has no "no newline" marker: a last line without one is simply joined to what follows.
  return out.replace(/\n\\ No newline at end of file\n/g, '');
}

/** `"\n".join(difflib.unified_diff(a, b))` of line lists without ends, as file.append reports it. */
export async function joinedLineDiff(before: readonly string[], after: readonly string[]): Promise<string> {
  const text = (ls: readonly string[]) => ls.map((l) => `${l}\n`).join('');
  const out = (await unifiedDiff(Buffer.from(text(before)), Buffer.from(text(after)))).replace(/\n$/, '').split('\n');
  return out.map((l, i) => (i < 2 || l.startsWith('@@ ') ? `${l}\n` : l)).join('\n');
}

export function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
