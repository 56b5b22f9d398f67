/**
 * The Zapusk ini dialect, read line by line with positions. A program's *.ini files are one stream of
 * lines (sorted by file name, concatenated), so a key at the top of the second file still belongs to the
 * last section of the first, as zapusk-tool reads them. Each line is trimmed, then classified in
 * zapusk-tool's order; the `ini` package cannot be used because it merges repeated sections and drops
 * `### component ###` headers.
 */
import type { Diagnostic, Span } from '../../core/diag.js';
import { error } from '../../core/diag.js';

/** A value is a string, or `true` for a bare key without `=`. */
export type Value = string | true;

export interface Entry {
  readonly key: string;
  readonly value: Value;
  readonly span: Span;
  /** Where the value starts (for diagnostics about a reference inside it). */
  readonly valueSpan: Span;
}

/**
 * An entry as read: its positions kept as numbers, a span made only when asked for (most are never
 * needed, and a program of 10,000 steps would otherwise keep 40,000 of them).
 */
class ReadEntry implements Entry {
  constructor(
    readonly key: string,
    readonly value: Value,
    private readonly file: string,
    private readonly line: number,
    private readonly col: number,
    private readonly valueFile: string,
    private readonly valueLine: number,
    private readonly valueCol: number,
  ) {}

  get span(): Span {
    return { file: this.file, line: this.line, col: this.col };
  }

  get valueSpan(): Span {
    return { file: this.valueFile, line: this.valueLine, col: this.valueCol };
  }
}

/** A `### name ###` header (hilevel) or a `[name]` section, with the keys that follow it. */
export interface RawSection {
  readonly kind: 'header' | 'section';
  readonly name: string;
  readonly span: Span;
  readonly entries: Entry[];
}

export interface SourceLine {
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  readonly text: string;
}

/** Lines to read, without an object per line: their texts, and where each run of them comes from. */
export interface LineSource {
  readonly texts: readonly string[];
  /** In order: the file of the lines from `start` on (up to the next run), `first` the number of line `start`. */
  readonly runs: readonly { readonly file: string; readonly start: number; readonly first: number }[];
}

export interface ReadResult {
  readonly sections: RawSection[];
  readonly diagnostics: Diagnostic[];
  /** Non-fatal remarks zapusk-tool also prints (an unclosed multi-line value). */
  readonly warnings: string[];
}

// Ruby's \w without a Unicode flag is ASCII only; these follow zapusk-tool's patterns exactly.
const QUOTED = /^([\w\-@*/]+)\s*=\s*['"](.+)['"]$/;
const MULTILINE_START = /^([\w\-@]+)\s*=\s*"\s*$/;
const PLAIN = /^([\w\-@*/]+)\s*=\s*(.*)$/;
const BARE = /^([\w\-\s]+)\s*$/;
const SECTION = /^\s*\[(.*)\]/;
const HEADER = /^\s*###+\s*([\w-]+)\s*/;
const COMMENT = /^\s*(#|``|\/\/)/;

/** A character that is surely not stripped: printable ASCII. */
function kept(code: number): boolean {
  return code > 32 && code < 127;
}

/** Ruby's String#strip: ASCII whitespace and NUL. */
function strip(s: string): string {
  // Most lines start and end with a printable character: nothing to strip, no pattern to run.
  if (s.length > 0 && kept(s.charCodeAt(0)) && kept(s.charCodeAt(s.length - 1))) return s;
  return s.replace(/^[\s\0]+|[\s\0]+$/g, '');
}

/** The lines of a text: split at each newline, a carriage return before it dropped, no line after a last newline. */
export function splitTexts(text: string): string[] {
  const parts = text.split('\n');
  if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  if (text.includes('\r')) {
    for (let i = 0; i < parts.length; i++) {
      const t = parts[i] as string;
      if (t.endsWith('\r')) parts[i] = t.slice(0, -1);
    }
  }
  return parts;
}

export function splitLines(file: string, text: string): SourceLine[] {
  const parts = splitTexts(text);
  const lines: SourceLine[] = new Array(parts.length);
  for (let i = 0; i < parts.length; i++) lines[i] = { file, line: i + 1, text: parts[i] as string };
  return lines;
}

/** Lines as a LineSource: one run for each stretch of lines of one file numbered one after another. */
function sourceOf(lines: readonly SourceLine[]): LineSource {
  const texts: string[] = new Array(lines.length);
  const runs: { file: string; start: number; first: number }[] = [];
  let last: SourceLine | undefined;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] as SourceLine;
    texts[i] = l.text;
    if (!last || l.file !== last.file || l.line !== last.line + 1) runs.push({ file: l.file, start: i, first: l.line });
    last = l;
  }
  return { texts, runs };
}

/** A line zapusk-tool reads (a key, a bare key, a step, a header, a comment or a blank line). */
function toolReads(line: string): boolean {
  return QUOTED.test(line) || MULTILINE_START.test(line) || PLAIN.test(line) || BARE.test(line) || SECTION.test(line) || HEADER.test(line) || line.length === 0 || COMMENT.test(line);
}

/**
 * For `key="text` (a quote that is not closed on the line): the index of the line that closes the value,
 * a line ending in `"` that zapusk-tool could not read, looking no further than the next step or header.
 */
function closingLine(texts: readonly string[], from: number, value: string): number | undefined {
  if (!value.startsWith('"') || value.endsWith('"')) return undefined;
  for (let j = from; j < texts.length; j++) {
    const t = strip(texts[j] as string);
    if (t.endsWith('"')) return toolReads(t) ? undefined : j;
    if (SECTION.test(t) || HEADER.test(t) || MULTILINE_START.test(t)) return undefined;
  }
  return undefined;
}

export function readLines(lines: readonly SourceLine[]): ReadResult {
  return readSource(sourceOf(lines));
}

export function readSource(src: LineSource): ReadResult {
  const { texts, runs } = src;
  const sections: RawSection[] = [];
  const diagnostics: Diagnostic[] = [];
  const warnings: string[] = [];
  // The run of line i: lines are mostly asked for in order, so the search starts at the last one found.
  let run = 0;
  const runOf = (i: number): { file: string; start: number; first: number } => {
    while (run > 0 && (runs[run] as { start: number }).start > i) run--;
    while (run + 1 < runs.length && (runs[run + 1] as { start: number }).start <= i) run++;
    return runs[run] as { file: string; start: number; first: number };
  };
  const fileOf = (i: number): string => runOf(i).file;
  const lineOf = (i: number): number => {
    const r = runOf(i);
    return r.first + (i - r.start);
  };
  const at = (i: number, col = 1): Span => ({ file: fileOf(i), line: lineOf(i), col });
  /** Column (1-based) of `part` within the untrimmed line i. */
  const colOf = (i: number, part: string, from = 0): number => Math.max(0, (texts[i] as string).indexOf(part, from)) + 1;

  // One string per key and step name (`path`, `file`, … repeat on every step): less kept, hashed once.
  const names = new Map<string, string>();
  const intern = (name: string): string => {
    const known = names.get(name);
    if (known !== undefined) return known;
    names.set(name, name);
    return name;
  };
  const entry = (l: number, name: string, value: Value, keyCol: number, v: number, valueCol: number): ReadEntry => {
    const key = intern(name);
    const r = runOf(l);
    const line = r.first + (l - r.start);
    // Most values start on the key's line.
    return v === l ? new ReadEntry(key, value, r.file, line, keyCol, r.file, line, valueCol) : new ReadEntry(key, value, r.file, line, keyCol, fileOf(v), lineOf(v), valueCol);
  };
  const assign = (l: number, key: string, value: Value, valueCol: number): void => {
    const last = sections[sections.length - 1];
    if (!last) {
      diagnostics.push(error('Z002', `key ${JSON.stringify(key)} before any component header (a line like "#### name ####")`, { span: at(l, colOf(l, key)) }));
      return;
    }
    last.entries.push(entry(l, key, value, colOf(l, key), l, valueCol));
  };

  let i = 0;
  while (i < texts.length) {
    const l = i;
    const text = texts[i] as string;
    i++;
    const line = strip(text);
    let m: RegExpExecArray | null;
    let close: number | undefined;
    // A line starting with `#` or `[` can be no key (no key has these characters) and no bare key: only
    // a header, a comment or a step is left to try, in the same order (and a step only for `[`, a header
    // only for `#`: the line is stripped, so each pattern's first character is its first).
    const first = line.charCodeAt(0);
    const keyLike = first !== 35 && first !== 91;
    // Both quoted forms need a quote on the line.
    const quoted = keyLike && (line.includes('"') || line.includes("'"));
    if (quoted && (m = QUOTED.exec(line))) {
      const key = m[1] as string;
      assign(l, key, m[2] as string, colOf(l, m[2] as string, text.indexOf('=')));
    } else if (quoted && (m = MULTILINE_START.exec(line))) {
      const key = m[1] as string;
      const body: string[] = [];
      let closed = false;
      const start = i < texts.length ? i : undefined;
      while (i < texts.length) {
        const inner = texts[i] as string;
        i++;
        if (strip(inner) === '"') {
          closed = true;
          break;
        }
        body.push(inner);
      }
      if (!closed) warnings.push(`un-closed multiline value found: name=${key}, file=${fileOf(l)}:${lineOf(l)}`);
      const last = sections[sections.length - 1];
      if (!last) {
        diagnostics.push(error('Z002', `key ${JSON.stringify(key)} before any component header (a line like "#### name ####")`, { span: at(l, colOf(l, key)) }));
      } else {
        last.entries.push(entry(l, key, body.join('\n'), colOf(l, key), start ?? l, 1));
      }
    } else if (keyLike && (m = PLAIN.exec(line))) {
      if ((close = closingLine(texts, i, m[2] as string)) !== undefined) {
        // `key="text` with the value going on over the next lines, up to a line that is only `"` or ends
        // in `"`. zapusk-tool cannot read such a closing line, so reading it here changes no program it runs.
        const body = [(m[2] as string).slice(1), ...texts.slice(i, close)];
        const closing = texts[close] as string;
        if (strip(closing) !== '"') body.push(closing.replace(/"\s*$/, ''));
        i = close + 1;
        assign(l, m[1] as string, body.join('\n'), colOf(l, m[2] as string, text.indexOf('=')) + 1);
      } else {
        const eq = text.indexOf('=');
        const value = m[2] as string;
        assign(l, m[1] as string, value, value === '' ? eq + 2 : colOf(l, value, eq + 1));
      }
    } else if (keyLike && (m = BARE.exec(line))) {
      const key = m[1] as string;
      assign(l, key, true, colOf(l, key));
    } else if (first !== 35 && (m = SECTION.exec(line))) {
      const name = strip(m[1] as string);
      if (sections.length === 0) {
        diagnostics.push(error('Z003', `step [${name}] before any component header (a line like "#### name ####")`, { span: at(l, colOf(l, '[')) }));
      }
      sections.push({ kind: 'section', name: intern(name), span: at(l, colOf(l, '[')), entries: [] });
    } else if (first !== 91 && (m = HEADER.exec(line))) {
      sections.push({ kind: 'header', name: m[1] as string, span: at(l, colOf(l, m[1] as string, text.indexOf('#'))), entries: [] });
    } else if (line.length === 0 || COMMENT.test(line)) {
      // comment or blank
    } else {
      diagnostics.push(
        error('Z001', `cannot read line: expected "#### component ####", "[step]", "key=value", a bare key or a comment`, {
          span: at(l, colOf(l, line)),
        }),
      );
    }
  }
  return { sections, diagnostics, warnings };
}
