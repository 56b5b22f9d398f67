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

export function splitLines(file: string, text: string): SourceLine[] {
  const parts = text.split('\n');
  if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  const lines: SourceLine[] = new Array(parts.length);
  const cr = text.includes('\r');
  for (let i = 0; i < parts.length; i++) {
    const t = parts[i] as string;
    lines[i] = { file, line: i + 1, text: cr && t.endsWith('\r') ? t.slice(0, -1) : t };
  }
  return lines;
}

/** A line zapusk-tool reads (a key, a bare key, a step, a header, a comment or a blank line). */
function toolReads(line: string): boolean {
  return QUOTED.test(line) || MULTILINE_START.test(line) || PLAIN.test(line) || BARE.test(line) || SECTION.test(line) || HEADER.test(line) || line.length === 0 || COMMENT.test(line);
}

/**
 * For `key="text` (a quote that is not closed on the line): the index of the line that closes the value,
 * a line ending in `"` that zapusk-tool could not read, looking no further than the next step or header.
 */
function closingLine(lines: readonly SourceLine[], from: number, value: string): number | undefined {
  if (!value.startsWith('"') || value.endsWith('"')) return undefined;
  for (let j = from; j < lines.length; j++) {
    const t = strip((lines[j] as SourceLine).text);
    if (t.endsWith('"')) return toolReads(t) ? undefined : j;
    if (SECTION.test(t) || HEADER.test(t) || MULTILINE_START.test(t)) return undefined;
  }
  return undefined;
}

export function readLines(lines: readonly SourceLine[]): ReadResult {
  const sections: RawSection[] = [];
  const diagnostics: Diagnostic[] = [];
  const warnings: string[] = [];
  const at = (l: SourceLine, col = 1): Span => ({ file: l.file, line: l.line, col });
  /** Column (1-based) of `part` within the untrimmed line. */
  const colOf = (l: SourceLine, part: string, from = 0): number => Math.max(0, l.text.indexOf(part, from)) + 1;

  const assign = (l: SourceLine, key: string, value: Value, valueCol: number): void => {
    const last = sections[sections.length - 1];
    const span = at(l, colOf(l, key));
    if (!last) {
      diagnostics.push(error('Z002', `key ${JSON.stringify(key)} before any component header (a line like "#### name ####")`, { span }));
      return;
    }
    last.entries.push({ key, value, span, valueSpan: at(l, valueCol) });
  };

  let i = 0;
  while (i < lines.length) {
    const l = lines[i] as SourceLine;
    i++;
    const line = strip(l.text);
    let m: RegExpExecArray | null;
    let close: number | undefined;
    // A line starting with `#` or `[` can be no key (no key has these characters) and no bare key: only
    // a header, a comment or a step is left to try, in the same order.
    const first = line.charCodeAt(0);
    const keyLike = first !== 35 && first !== 91;
    // Both quoted forms need a quote on the line.
    const quoted = keyLike && (line.includes('"') || line.includes("'"));
    if (quoted && (m = QUOTED.exec(line))) {
      const key = m[1] as string;
      assign(l, key, m[2] as string, colOf(l, m[2] as string, l.text.indexOf('=')));
    } else if (quoted && (m = MULTILINE_START.exec(line))) {
      const key = m[1] as string;
      const body: string[] = [];
      let closed = false;
      const start = lines[i];
      while (i < lines.length) {
        const inner = lines[i] as SourceLine;
        i++;
        if (strip(inner.text) === '"') {
          closed = true;
          break;
        }
        body.push(inner.text);
      }
      if (!closed) warnings.push(`un-closed multiline value found: name=${key}, file=${l.file}:${l.line}`);
      const last = sections[sections.length - 1];
      if (!last) {
        diagnostics.push(error('Z002', `key ${JSON.stringify(key)} before any component header (a line like "#### name ####")`, { span: at(l, colOf(l, key)) }));
      } else {
        last.entries.push({ key, value: body.join('\n'), span: at(l, colOf(l, key)), valueSpan: start ? at(start) : at(l) });
      }
    } else if (keyLike && (m = PLAIN.exec(line))) {
      if ((close = closingLine(lines, i, m[2] as string)) !== undefined) {
        // `key="text` with the value going on over the next lines, up to a line that is only `"` or ends
        // in `"`. zapusk-tool cannot read such a closing line, so reading it here changes no program it runs.
        const body = [(m[2] as string).slice(1), ...lines.slice(i, close).map((x) => x.text)];
        const last = strip((lines[close] as SourceLine).text);
        if (last !== '"') body.push((lines[close] as SourceLine).text.replace(/"\s*$/, ''));
        i = close + 1;
        assign(l, m[1] as string, body.join('\n'), colOf(l, m[2] as string, l.text.indexOf('=')) + 1);
      } else {
        const eq = l.text.indexOf('=');
        const value = m[2] as string;
        assign(l, m[1] as string, value, value === '' ? eq + 2 : colOf(l, value, eq + 1));
      }
    } else if (keyLike && (m = BARE.exec(line))) {
      const key = m[1] as string;
      assign(l, key, true, colOf(l, key));
    } else if ((m = SECTION.exec(line))) {
      const name = strip(m[1] as string);
      if (sections.length === 0) {
        diagnostics.push(error('Z003', `step [${name}] before any component header (a line like "#### name ####")`, { span: at(l, colOf(l, '[')) }));
      }
      sections.push({ kind: 'section', name, span: at(l, colOf(l, '[')), entries: [] });
    } else if ((m = HEADER.exec(line))) {
      sections.push({ kind: 'header', name: m[1] as string, span: at(l, colOf(l, m[1] as string, l.text.indexOf('#'))), entries: [] });
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
