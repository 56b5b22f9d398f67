/**
 * Values and predicates: vectors `@(...)`, maps `%(...)`, references, and the three kinds of string
 * (implicit, quoted, swim) with `$` expansion and the grave-accent escape.
 */
import type { Accessor, Expr, Predicate, RefExpr, Sigil, TextExpr, TextPart } from './ast.js';
import { DiagnosticError, type Span } from '../../core/diag.js';
import { OtterError } from './errors.js';
import { describe, Scanner } from './lexer.js';

/**
 * Where a value stands decides where an implicit string ends: `line` at `;`, `positional` also at `(`,
 * `list` at `,` or `)`, `angle` (module parameter defaults) at `,` or `>`, `pred` at a comparison, `&&`, `||`, `)` or `{`, `index` at `]`, `paren` at `)`.
 */
export type ValueContext = 'line' | 'positional' | 'list' | 'pred' | 'index' | 'paren' | 'angle';

function stopsHere(s: Scanner, ctx: ValueContext): boolean {
  // By character code (NaN past the end of the text).
  const c = s.text.charCodeAt(s.pos);
  if (Number.isNaN(c) || c === 10) return true;
  switch (ctx) {
    case 'line':
      return c === 59;
    case 'positional':
      return c === 59 || c === 40;
    case 'list':
      return c === 44 || c === 41;
    case 'pred':
      return c === 41 || c === 123 || s.startsWith('==') || s.startsWith('!=') || s.startsWith('&&') || s.startsWith('||');
    case 'index':
      return c === 93;
    case 'paren':
      return c === 41;
    case 'angle':
      return c === 44 || c === 62;
  }
}

const SWIM = /^>[^>\s]{0,5}>/;

export function parseValue(s: Scanner, ctx: ValueContext): Expr {
  // One level deeper, without a closure per value.
  s.enter();
  try {
    return parseValueAt(s, ctx);
  } finally {
    s.leave();
  }
}

function parseValueAt(s: Scanner, ctx: ValueContext): Expr {
  s.skipSpaces(ctx === 'line' || ctx === 'positional' || ctx === 'pred');
  const start = s.pos;
  // `@(` and `%(` told by character code where the scanner stands.
  const code = s.text.charCodeAt(start);
  if ((code === 64 || code === 37) && s.text.charCodeAt(start + 1) === 40) return code === 64 ? parseVector(s) : parseMap(s);
  const c = s.peek();
  if ((c === '@' || c === '%') && /[A-Za-z{]/.test(s.peek(1))) {
    const ref = parseRef(s, c);
    s.skipSpaces(true);
    if (stopsHere(s, ctx)) return ref;
    // `@` and `%` only act when they make the whole value; anything else is plain text.
    s.pos = start;
  }
  if (c === '"' || c === "'") return afterString(s, ctx, parseQuoted(s, c));
  // A swim string starts with `>`: no other value is matched against its sentinel.
  const swim = c === '>' ? SWIM.exec(s.text.slice(s.pos, s.pos + 7)) : null;
  if (swim && s.text.indexOf(swim[0], s.pos + swim[0].length) >= 0) return afterString(s, ctx, parseSwim(s, swim[0]));
  return parseImplicit(s, ctx);
}

function afterString(s: Scanner, ctx: ValueContext, expr: TextExpr): TextExpr {
  s.skipSpaces(true);
  if (!stopsHere(s, ctx)) s.fail(`unexpected ${describe(s.peek())} after the closing quote`);
  return expr;
}

function parseVector(s: Scanner): Expr {
  const span = s.span();
  s.pos += 2;
  const items: Expr[] = [];
  s.skipTrivia();
  if (s.peek() === ')') {
    s.pos++;
    return { kind: 'vector', items, span };
  }
  for (;;) {
    items.push(parseValue(s, 'list'));
    s.skipTrivia();
    if (s.peek() === ',') {
      s.pos++;
      continue;
    }
    s.expect(')', '"," or ")" in the vector');
    return { kind: 'vector', items, span };
  }
}

function parseMapKey(s: Scanner): string {
  const q = s.peek();
  if (q === '"' || q === "'") {
    const end = s.text.indexOf(q, s.pos + 1);
    if (end < 0) s.fail('unterminated map key');
    const key = s.text.slice(s.pos + 1, end);
    s.pos = end + 1;
    return key;
  }
  const key = s.identifier();
  if (key === undefined) s.fail(`expected a map key, found ${describe(s.peek())}`);
  return key;
}

function parseMap(s: Scanner): Expr {
  const span = s.span();
  s.pos += 2;
  const entries: { key: string; value: Expr }[] = [];
  s.skipTrivia();
  if (s.peek() === ')') {
    s.pos++;
    return { kind: 'map', entries, span };
  }
  for (;;) {
    s.skipTrivia();
    const key = parseMapKey(s);
    s.skipSpaces();
    s.expect(':', '":" after the map key');
    entries.push({ key, value: parseValue(s, 'list') });
    s.skipTrivia();
    if (s.peek() === ',') {
      s.pos++;
      continue;
    }
    s.expect(')', '"," or ")" in the map');
    return { kind: 'map', entries, span };
  }
}

function parseArgs(s: Scanner): Expr[] {
  s.expect('(');
  const args: Expr[] = [];
  s.skipTrivia();
  if (s.peek() === ')') {
    s.pos++;
    return args;
  }
  for (;;) {
    args.push(parseValue(s, 'list'));
    s.skipTrivia();
    if (s.peek() === ',') {
      s.pos++;
      continue;
    }
    s.expect(')', '"," or ")" after the function argument');
    return args;
  }
}

/** `[index]` and `.key` accessors after a vector or map name, in order. */
export function parseAccessors(s: Scanner): Accessor[] {
  const accessors: Accessor[] = [];
  for (;;) {
    if (s.peek() === '[') {
      s.pos++;
      const expr = parseValue(s, 'index');
      s.skipSpaces();
      s.expect(']');
      accessors.push({ kind: 'index', expr });
    } else if (s.peek() === '.' && /[A-Za-z_]/.test(s.peek(1))) {
      s.pos++;
      accessors.push({ kind: 'prop', name: s.identifier() ?? '' });
    } else return accessors;
  }
}

/** A reference at a sigil: `@name`, `%name.key`, `@Fn(args)[0]`, `${any name}`. */
export function parseRef(s: Scanner, sigil: Sigil): RefExpr {
  const span = s.span();
  s.pos++;
  const braced = s.peek() === '{';
  const name = s.variableName();
  if (name === undefined) s.fail(`expected a variable name after "${sigil}"`);
  const args = !braced && s.peek() === '(' ? parseArgs(s) : undefined;
  const accessors = sigil !== '$' ? parseAccessors(s) : [];
  return args ? { kind: 'ref', sigil, name, args, accessors, span } : { kind: 'ref', sigil, name, accessors, span };
}

/** `$` inside a text: a reference, `$(expr)`, or (not followed by a name) a plain dollar sign. */
function parseDollar(s: Scanner): TextPart | undefined {
  const next = s.peek(1);
  if (next === '(') {
    s.pos += 2;
    const expr = parseValue(s, 'paren');
    s.skipSpaces();
    s.expect(')', '")" closing "$("');
    return { kind: 'sub', expr };
  }
  if (next === '{' || /[A-Za-z]/.test(next)) return parseRef(s, '$');
  return undefined;
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r' };

/**
 * A run of characters that neither end a text in any context (line, argument, list, predicate, index,
 * quote) nor mean anything inside one (escapes, references, parentheses): taken whole.
 */
const PLAIN_RUN = /[^`$()\n\r;,\]{}=!&|<>"']+/y;

/**
 * Reads text until `isEnd`, expanding `$` references when `expand` and keeping grave escapes. With
 * `runs`, an end can only be at one of the characters PLAIN_RUN leaves out (not at a position), so
 * plain runs are taken whole.
 */
function scanTemplate(s: Scanner, isEnd: (depth: number) => boolean, expand: boolean, parts: TextPart[], runs = false): void {
  let buf = '';
  let depth = 0;
  while (s.pos < s.text.length && !isEnd(depth)) {
    if (runs) {
      PLAIN_RUN.lastIndex = s.pos;
      if (PLAIN_RUN.test(s.text)) {
        buf += s.text.slice(s.pos, PLAIN_RUN.lastIndex);
        s.pos = PLAIN_RUN.lastIndex;
        continue;
      }
    }
    const c = s.peek();
    if (c === '`') {
      const n = s.peek(1);
      buf += ESCAPES[n] ?? n;
      s.pos += 2;
      continue;
    }
    if (c === '$' && expand) {
      const part = parseDollar(s);
      if (part !== undefined) {
        if (buf !== '') parts.push(buf);
        buf = '';
        parts.push(part);
        continue;
      }
    }
    if (c === '(') depth++;
    else if (c === ')') depth--;
    buf += c;
    s.pos++;
  }
  if (buf !== '') parts.push(buf);
}

/** The parts of the texts being read, innermost last (a reference's arguments may hold texts of their own). */
const PENDING: TextPart[] = [];

/**
 * scanTemplate's parts as one list of their size: they are gathered on one stack shared by the texts
 * being read (a list pushed to from empty would keep room for 17, and a script keeps its texts).
 */
function scanParts(s: Scanner, isEnd: (depth: number) => boolean, expand: boolean, runs = false): TextPart[] {
  const base = PENDING.length;
  try {
    scanTemplate(s, isEnd, expand, PENDING, runs);
    return PENDING.slice(base);
  } finally {
    PENDING.length = base;
  }
}

function parseImplicit(s: Scanner, ctx: ValueContext): TextExpr {
  const span = s.span();
  const from = s.pos;
  const parts = scanParts(s, (depth) => s.text.charCodeAt(s.pos) === 10 || (depth <= 0 && stopsHere(s, ctx)), true, true);
  const last = parts[parts.length - 1];
  if (typeof last === 'string') {
    const trimmed = last.trimEnd();
    if (trimmed === '') parts.pop();
    else parts[parts.length - 1] = trimmed;
  }
  return { kind: 'text', parts, span, raw: s.text.slice(from, s.pos).trimEnd() };
}

function parseQuoted(s: Scanner, quote: string): TextExpr {
  const open = s.pos;
  const span = s.span();
  s.pos++;
  const parts = scanParts(s, () => s.peek() === quote || s.peek() === '\n', quote === '"', true);
  if (s.peek() !== quote) s.fail('unterminated string (quoted strings end on their line; use a swim string >>...>> for several lines)', open);
  s.pos++;
  return { kind: 'text', parts, span, raw: s.text.slice(open + 1, s.pos - 1) };
}

function parseSwim(s: Scanner, sentinel: string): TextExpr {
  const span = s.span();
  s.pos += sentinel.length;
  const end = s.text.indexOf(sentinel, s.pos);
  // A line break right after the opening sentinel and the indentation before the closing one are layout.
  if (s.peek() === '\r') s.pos++;
  if (s.peek() === '\n') s.pos++;
  let stop = end;
  const tail = /\n[ \t]*$/.exec(s.text.slice(s.pos, end));
  if (tail) stop = end - tail[0].length;
  const from = s.pos;
  const parts = scanParts(s, () => s.pos >= stop, true);
  s.pos = end + sentinel.length;
  return { kind: 'text', parts, span, raw: s.text.slice(from, stop) };
}

/**
 * A text parsed while the script runs (`$Eval`, an Apply-Template source): a syntax error in it is a
 * raised error at `span`, the statement that asked for it, with the position inside the text.
 */
export function parseRuntimeTemplate(text: string, span: Span, what: string): TextExpr {
  try {
    return parseTemplateText(what, text);
  } catch (e) {
    if (!DiagnosticError.is(e)) throw e;
    const d = e.diagnostics[0];
    throw new OtterError(`${d?.span ? `${what}:${d.span.line}:${d.span.col}: ` : ''}${d?.message ?? 'syntax error'}`, span);
  }
}

/** A text (an Apply-Template asset or `$Eval` argument) parsed as a template: every `$` expands. */
export function parseTemplateText(file: string, text: string): TextExpr {
  const s = new Scanner(file, text);
  const parts = scanParts(s, () => false, true, true);
  return { kind: 'text', parts, span: s.span(0) };
}

// ---- predicates: ||, &&, !, ( ), a == b, a != b, and a bare value (true when it says "true") ----

export function parsePredicate(s: Scanner): Predicate {
  const items = [parseAnd(s)];
  while (s.accept('||')) items.push(parseAnd(s));
  return items.length === 1 ? (items[0] as Predicate) : { kind: 'or', items };
}

function parseAnd(s: Scanner): Predicate {
  const items = [parseUnary(s)];
  while (s.accept('&&')) items.push(parseUnary(s));
  return items.length === 1 ? (items[0] as Predicate) : { kind: 'and', items };
}

function parseUnary(s: Scanner): Predicate {
  return s.nested(() => parseUnaryAt(s));
}

function parseUnaryAt(s: Scanner): Predicate {
  s.skipTrivia();
  if (s.peek() === '!' && s.peek(1) !== '=') {
    s.pos++;
    return { kind: 'not', pred: parseUnary(s) };
  }
  if (s.peek() === '(') {
    s.pos++;
    const inner = parsePredicate(s);
    s.skipTrivia();
    s.expect(')', '")" closing the condition');
    return inner;
  }
  const left = parseValue(s, 'pred');
  s.skipSpaces();
  for (const op of ['==', '!='] as const) {
    if (s.startsWith(op)) {
      s.pos += 2;
      const right = parseValue(s, 'pred');
      return { kind: op === '==' ? 'eq' : 'ne', left, right };
    }
  }
  return { kind: 'true', expr: left };
}
