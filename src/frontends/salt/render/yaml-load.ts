/**
 * YAML as Salt's SaltYamlSafeLoader reads it: PyYAML's YAML 1.1 resolver (yes/no/on/off are booleans,
 * `y`/`n` stay strings, `1e3` is a string), integers written with a leading zero lose the zero instead of
 * becoming octal (`0644` → 644), timestamps stay strings, and a key repeated in one mapping is an error
 * ("found conflicting ID"). Errors carry Salt's wording and the position in the rendered text.
 */

import { createRequire } from 'node:module';
import type { Node, ScalarTag, Tags } from 'yaml';
import { libyamlMessage } from './libyaml-errors.js';
import { fastLoad } from './yaml-fast.js';
import { indentQuotedContinuations } from './yaml-quoted-lines.js';

type YamlLib = typeof import('yaml');
let yamlLib: YamlLib | undefined;
/** The yaml library costs tens of milliseconds to load: only the full parser needs it, so it loads on first use. */
export function yaml(): YamlLib {
  yamlLib ??= createRequire(import.meta.url)('yaml') as YamlLib;
  return yamlLib;
}

export interface YamlFailure {
  /** The text Salt puts after `Rendering SLS 'env:sls' failed: `. */
  readonly saltMessage: string;
  /** Short message for the positioned diagnostic. */
  readonly message: string;
  /** 0-based offset in the rendered text. */
  readonly offset: number;
}

export interface TopKey {
  readonly key: string;
  /** 0-based offset of the key in the rendered text. */
  readonly offset: number;
  /** Python type name when the key is not a string (Salt rejects such IDs). */
  readonly nonString?: string;
}

/**
 * `entries`: a mapping document's entries in document order, one per top key, in place of `data` (only
 * when asked for, and only when the fast reader read the document).
 */
export type YamlLoad = { ok: true; data?: unknown; topKeys: TopKey[]; entries?: Map<string, unknown> } | { ok: false; failure: YamlFailure };

const scalar = (test: RegExp, resolve: (s: string) => unknown): ScalarTag => ({
  tag: 'tag:yaml.org,2002:' + (typeof resolve('1') === 'boolean' ? 'bool' : 'int'),
  default: true,
  test,
  resolve: (s: string) => resolve(s) as never,
});

const INT_RE = /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+)$/;
const SEXAGESIMAL_RE = /^[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+$/;
const FLOAT_RE = /^(?:[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?)$/;

function parseInt11(s: string): number {
  let t = s.replace(/_/g, '');
  let sign = 1;
  if (t[0] === '-' || t[0] === '+') {
    if (t[0] === '-') sign = -1;
    t = t.slice(1);
  }
  if (t.startsWith('0b')) return sign * Number.parseInt(t.slice(2), 2);
  if (t.startsWith('0x')) return sign * Number.parseInt(t.slice(2), 16);
  // Salt strips leading zeros before PyYAML sees the value, so `0644` is decimal 644 (only when unsigned).
  if (t.length > 1 && t.startsWith('0')) return sign * (s[0] === '-' || s[0] === '+' ? Number.parseInt(t, 8) : Number.parseInt(t, 10));
  return sign * Number.parseInt(t, 10);
}

function parseSexagesimal(s: string): number {
  const neg = s.startsWith('-');
  let n = 0;
  for (const part of s.replace(/^[-+]/, '').replace(/_/g, '').split(':')) n = n * 60 + Number.parseInt(part, 10);
  return neg ? -n : n;
}

const SALT_TAGS: ScalarTag[] = [
  { ...scalar(/^(?:yes|Yes|YES|true|True|TRUE|on|On|ON)$/, () => true), tag: 'tag:yaml.org,2002:bool' },
  { ...scalar(/^(?:no|No|NO|false|False|FALSE|off|Off|OFF)$/, () => false), tag: 'tag:yaml.org,2002:bool' },
  { ...scalar(INT_RE, parseInt11), tag: 'tag:yaml.org,2002:int' },
  { ...scalar(SEXAGESIMAL_RE, parseSexagesimal), tag: 'tag:yaml.org,2002:int' },
  { ...scalar(FLOAT_RE, (s) => Number.parseFloat(s.replace(/_/g, ''))), tag: 'tag:yaml.org,2002:float' },
  { ...scalar(/^(?:[-+]?\.(?:inf|Inf|INF))$/, (s) => (s.startsWith('-') ? -Infinity : Infinity)), tag: 'tag:yaml.org,2002:float' },
  { ...scalar(/^\.(?:nan|NaN|NAN)$/, () => Number.NaN), tag: 'tag:yaml.org,2002:float' },
];

const REPLACED = new Set(['tag:yaml.org,2002:bool', 'tag:yaml.org,2002:int', 'tag:yaml.org,2002:float', 'tag:yaml.org,2002:timestamp']);

function saltTags(tags: Tags): Tags {
  const kept = tags.filter((t) => !(typeof t === 'object' && 'tag' in t && REPLACED.has(t.tag) && 'test' in t && t.test));
  // Explicit `!!timestamp` values stay strings, as Salt registers the plain scalar constructor for them.
  const ts: ScalarTag = { tag: 'tag:yaml.org,2002:timestamp', resolve: (s: string) => s };
  return [...SALT_TAGS, ...kept, ts];
}

/** libyaml's wording of the scanner errors Salt reports as they are. */
const LIBYAML_SCANNER: Record<string, string> = {
  TAB_AS_INDENT: 'found character that cannot start any token',
  BLOCK_AS_IMPLICIT_KEY: 'mapping values are not allowed in this context',
  MULTILINE_IMPLICIT_KEY: 'mapping values are not allowed in this context',
};

/** PyYAML's wording for the scanner problems people hit most; others keep the library's first line. */
function problemText(code: string, message: string): string {
  switch (code) {
    case 'TAB_AS_INDENT':
      return 'Illegal tab character';
    case 'BLOCK_AS_IMPLICIT_KEY':
    case 'MULTILINE_IMPLICIT_KEY':
      return 'mapping values are not allowed here';
    case 'BAD_INDENT':
    case 'MISSING_CHAR':
      return 'could not find expected \':\'';
    default:
      return message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '') ?? message;
  }
}

/** Salt's get_context (num_lines 5): up to five lines before and after, the error line marked, `[...]` where cut. */
export function saltContext(text: string, line: number): string {
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (line > lines.length) return text;
  const start = Math.max(0, line - 6);
  const end = Math.min(lines.length, line + 5);
  const buf = lines.slice(start, end);
  let at = line - start - 1;
  if (start > 0) {
    buf.unshift('[...]');
    at += 1;
  }
  if (end < lines.length) buf.push('[...]');
  buf[at] = `${buf[at] ?? ''}    <======================`;
  return `---\n${buf.join('\n')}\n---`;
}

function lineCol(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let lastNl = -1;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lastNl = i;
    }
  }
  return { line, col: offset - lastNl };
}

/** PyYAML's Mark as str() prints it for a string source: the position, then the line with a caret under it
 *  (get_snippet: at most about 36 characters either side of the caret, cut with ' ... '). */
export function markText(text: string, offset: number, at: { line: number; col: number }): string {
  const breaks = '\r\n\u0085\u2028\u2029';
  let head = '';
  let start = offset;
  while (start > 0 && !breaks.includes(text[start - 1] as string)) {
    start--;
    if (offset - start > 75 / 2 - 1) {
      head = ' ... ';
      start += 5;
      break;
    }
  }
  let tail = '';
  let end = offset;
  while (end < text.length && !breaks.includes(text[end] as string)) {
    end++;
    if (end - offset > 75 / 2 - 1) {
      tail = ' ... ';
      end -= 5;
      break;
    }
  }
  const snippet = `    ${head}${text.slice(start, end)}${tail}\n${' '.repeat(4 + offset - start + head.length)}^`;
  return `  in "<unicode string>", line ${at.line}, column ${at.col}:\n${snippet}`;
}

const pyTypeName = (v: unknown): string =>
  v === null ? 'NoneType' : typeof v === 'boolean' ? 'bool' : typeof v === 'number' ? (Number.isInteger(v) ? 'int' : 'float') : typeof v === 'string' ? 'str' : 'dict';

const keyIdentity = (v: unknown): string => `${typeof v}:${String(v)}`;

/** The first repeated key in any mapping, reported as PyYAML's ConstructorError under Salt's loader. */
function findDuplicate(node: Node | null, text: string): YamlFailure | undefined {
  if (!node) return undefined;
  if (yaml().isMap(node)) {
    const seen = new Set<string>();
    for (const pair of node.items) {
      const k = pair.key as Node | null;
      if (yaml().isScalar(k) && String(k.value) !== '<<') {
        const id = keyIdentity(k.value);
        if (seen.has(id)) {
          const mapAt = lineCol(text, node.range?.[0] ?? 0);
          const keyOffset = k.range?.[0] ?? 0;
          const keyAt = lineCol(text, keyOffset);
          const shown = k.value === null ? 'None' : typeof k.value === 'boolean' ? (k.value ? 'True' : 'False') : String(k.value);
          return {
            // Salt raises this from its own constructor, whose marks carry no snippet.
            saltMessage: `while constructing a mapping\n  in "<unicode string>", line ${mapAt.line}, column ${mapAt.col}\nfound conflicting ID '${shown}'\n  in "<unicode string>", line ${keyAt.line}, column ${keyAt.col}`,
            message: `found conflicting ID '${shown}' (the same key twice in one mapping)`,
            offset: keyOffset,
          };
        }
        seen.add(id);
      }
      const inKey = findDuplicate(k, text);
      if (inKey) return inKey;
      const inValue = findDuplicate(pair.value as Node | null, text);
      if (inValue) return inValue;
    }
  } else if (yaml().isSeq(node)) {
    for (const item of node.items) {
      const found = findDuplicate(item as Node | null, text);
      if (found) return found;
    }
  } else if (yaml().isAlias(node)) {
    return undefined;
  }
  return undefined;
}

/** The plain scalars the null and bool tags take (each an exact word in their patterns). */
const WORDS = new Map<string, boolean | null>([
  ...['~', 'null', 'Null', 'NULL'].map((w) => [w, null] as const),
  ...['yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON'].map((w) => [w, true] as const),
  ...['no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF'].map((w) => [w, false] as const),
]);

const WORD_MAX = Math.max(...[...WORDS.keys()].map((w) => w.length));

/** A plain scalar as the Salt loader resolves it (the same rules as SALT_TAGS). */
export function resolvePlain(s: string): unknown {
  // The words are 5 characters at most: a longer scalar (a path, most values) is not looked up.
  const word = s.length <= WORD_MAX ? WORDS.get(s) : undefined;
  if (word !== undefined) return word;
  // Every number tag above starts with a digit, a sign or a dot: any other first character is a plain string.
  const c = s.charCodeAt(0);
  if (!((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e)) return s;
  for (const t of SALT_TAGS) if (t.test?.test(s)) return (t.resolve as (v: string) => unknown)(s);
  return s;
}

/**
 * Loads one YAML document the way Salt's yaml renderer does; an empty document is `{}`. `asEntries`: a
 * mapping document may come as its entries (`entries`) instead of its data.
 */
export function loadSaltYaml(text: string, asEntries = false): YamlLoad {
  const fast = fastLoad(text, resolvePlain, asEntries);
  if (fast) {
    if (fast.entries !== undefined) return { ok: true, topKeys: fast.topKeys, entries: fast.entries };
    if (fast.data === null || fast.data === '') return { ok: true, data: {}, topKeys: fast.topKeys };
    return { ok: true, data: fast.data, topKeys: fast.topKeys };
  }
  return loadSlow(text);
}

/** The full parser: every YAML feature, and the error messages. */
export function loadSlow(text: string, retried = false): YamlLoad {
  const doc = yaml().parseDocument(text, { version: '1.1', customTags: saltTags, uniqueKeys: false, merge: true, prettyErrors: false, keepSourceTokens: false });
  const err = doc.errors[0];
  if (err && !retried) {
    // libyaml accepts quoted scalars whose continuation lines are not indented; try again with them indented.
    const fixed = indentQuotedContinuations(text);
    if (fixed !== text) {
      const again = loadSlow(fixed, true);
      if (again.ok) return again;
    }
  }
  if (err) {
    const offset = err.pos[0];
    const { line } = lineCol(text, offset);
    const problem = problemText(err.code, err.message);
    // Salt loads with libyaml (CSafeLoader): a scanner error carries its problem only (no buffer, no context).
    const scanner = libyamlMessage(text, err.code, err.message, offset) ?? LIBYAML_SCANNER[err.code];
    if (scanner) {
      // The diagnostic names the problem as Salt's text does (its last line that is not an `in "…"` mark).
      const said = scanner.split('\n').filter((l) => l !== '' && !/^\s+in "/.test(l)).pop();
      return { ok: false, failure: { saltMessage: scanner, message: said ?? problem, offset } };
    }
    return { ok: false, failure: { saltMessage: `${problem}; line ${line}\n\n${saltContext(text, line)}`, message: problem, offset } };
  }
  const dup = findDuplicate(doc.contents as Node | null, text);
  if (dup) return { ok: false, failure: dup };
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 10000 });
  } catch (e) {
    return { ok: false, failure: { saltMessage: (e as Error).message, message: (e as Error).message, offset: 0 } };
  }
  const topKeys: TopKey[] = [];
  if (yaml().isMap(doc.contents)) {
    for (const pair of doc.contents.items) {
      const k = pair.key as Node | null;
      if (!yaml().isScalar(k)) continue;
      const entry: { key: string; offset: number; nonString?: string } = { key: String(k.value), offset: k.range?.[0] ?? 0 };
      if (typeof k.value !== 'string') entry.nonString = pyTypeName(k.value);
      topKeys.push(entry);
    }
  }
  return { ok: true, data: data === null || data === undefined || data === '' ? {} : data, topKeys };
}
