/**
 * PyYAML's safe_dump (Salt's yaml outputter) with default_flow_style=False and allow_unicode, written from
 * PyYAML's emitter rules: block style with indentless sequences under mappings, keys of plain dicts sorted
 * (PyYAML's sort_keys), strings quoted when YAML 1.1 would read them as something else or when they
 * hold indicators, single quotes unless a character needs an escape, and long scalars folded at 80 columns.
 */
import { floatRepr, intStr } from './float.js';
import { needsQuotes } from './yaml-resolve.js';

const WIDTH = 80;
const BREAKS = '\n\u0085\u2028\u2029';
const WS = `\0 \t\r${BREAKS}`;

interface Analysis {
  multiline: boolean;
  blockPlain: boolean;
  singleQuoted: boolean;
}

function printable(ch: string): boolean {
  const c = ch.codePointAt(0) as number;
  return ch === '\n' || (c >= 0x20 && c <= 0x7e) || c === 0x85 || (c >= 0xa0 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd && c !== 0xfeff) || (c >= 0x10000 && c < 0x10ffff);
}

function analyze(text: string): Analysis {
  if (text === '') return { multiline: false, blockPlain: false, singleQuoted: true };
  let blockInd = false;
  let lineBreaks = false;
  let special = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  if (text.startsWith('---') || text.startsWith('...')) blockInd = true;
  let precededByWs = true;
  let followedByWs = text.length === 1 || WS.includes(text[1] as string);
  let prevSpace = false;
  let prevBreak = false;
  const chars = [...text];
  chars.forEach((ch, i) => {
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(ch)) blockInd = true;
      // Flow indicators do not matter in block style: only what breaks a plain block scalar counts.
      if ((ch === '?' || ch === ':') && followedByWs) blockInd = true;
      if (ch === '-' && followedByWs) blockInd = true;
    } else {
      if (ch === ':' && followedByWs) blockInd = true;
      if (ch === '#' && precededByWs) blockInd = true;
    }
    if (BREAKS.includes(ch)) lineBreaks = true;
    if (!printable(ch)) special = true;
    if (ch === ' ') {
      if (i === 0) leadingSpace = true;
      if (i === chars.length - 1) trailingSpace = true;
      if (prevBreak) breakSpace = true;
      prevSpace = true;
      prevBreak = false;
    } else if (BREAKS.includes(ch)) {
      if (i === 0) leadingBreak = true;
      if (i === chars.length - 1) trailingBreak = true;
      if (prevSpace) spaceBreak = true;
      prevSpace = false;
      prevBreak = true;
    } else {
      prevSpace = prevBreak = false;
    }
    precededByWs = WS.includes(ch);
    followedByWs = i + 2 >= chars.length || WS.includes(chars[i + 2] as string);
  });
  let blockPlain = true;
  let singleQuoted = true;
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) blockPlain = false;
  if (breakSpace) blockPlain = singleQuoted = false;
  if (spaceBreak || special) blockPlain = singleQuoted = false;
  if (lineBreaks) blockPlain = false;
  if (blockInd) blockPlain = false;
  return { multiline: lineBreaks, blockPlain, singleQuoted };
}

/** Writes text with PyYAML's column tracking, for folding long scalars. */
class Writer {
  /** libyaml's emitter (yaml.CSafeDumper) instead of PyYAML's: double-quoted scalars fold differently. */
  constructor(
    readonly libyaml = false,
    /** Mappings written in their own order (Salt's OrderedDict); the others are sorted, as PyYAML does. */
    readonly keepOrder: (m: object) => boolean = () => false,
  ) {}
  out = '';
  column = 0;
  whitespace = true;
  indention = true;

  write(s: string): void {
    this.out += s;
    this.column += s.length;
  }

  lineBreak(): void {
    this.out += '\n';
    this.column = 0;
    this.whitespace = true;
    this.indention = true;
  }

  indentTo(indent: number): void {
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.lineBreak();
    if (this.column < indent) {
      this.whitespace = true;
      this.write(' '.repeat(indent - this.column));
    }
  }

  indicator(s: string, needWs: boolean): void {
    this.write(this.whitespace || !needWs ? s : ` ${s}`);
    this.whitespace = false;
    this.indention = false;
  }

  plain(text: string, indent: number, split: boolean): void {
    if (text === '') return;
    if (!this.whitespace) this.write(' ');
    this.whitespace = false;
    this.indention = false;
    let spaces = false;
    let start = 0;
    for (let end = 0; end <= text.length; end++) {
      const ch = end < text.length ? (text[end] as string) : undefined;
      if (spaces) {
        if (ch !== ' ') {
          if (start + 1 === end && this.column > WIDTH && split) {
            this.indentTo(indent);
            this.whitespace = false;
            this.indention = false;
          } else this.write(text.slice(start, end));
          start = end;
        }
      } else if (ch === undefined || ` ${BREAKS}`.includes(ch)) {
        this.write(text.slice(start, end));
        start = end;
      }
      if (ch !== undefined) spaces = ch === ' ';
    }
  }

  singleQuoted(text: string, indent: number, split: boolean): void {
    this.indicator("'", true);
    let spaces = false;
    let breaks = false;
    let start = 0;
    for (let end = 0; end <= text.length; end++) {
      const ch = end < text.length ? (text[end] as string) : undefined;
      if (spaces) {
        if (ch !== ' ') {
          if (start + 1 === end && this.column > WIDTH && split && start !== 0 && end !== text.length) this.indentTo(indent);
          else this.write(text.slice(start, end));
          start = end;
        }
      } else if (breaks) {
        if (ch === undefined || !BREAKS.includes(ch)) {
          if (text[start] === '\n') this.lineBreak();
          for (const br of text.slice(start, end)) {
            if (br === '\n') this.lineBreak();
            else {
              this.out += br;
              this.column = 0;
              this.whitespace = this.indention = true;
            }
          }
          this.indentTo(indent);
          start = end;
        }
      } else if (ch === undefined || ` ${BREAKS}'`.includes(ch)) {
        if (start < end) {
          this.write(text.slice(start, end));
          start = end;
        }
      }
      if (ch === "'") {
        this.write("''");
        start = end + 1;
      }
      if (ch !== undefined) {
        spaces = ch === ' ';
        breaks = BREAKS.includes(ch);
      }
    }
    this.indicator("'", false);
  }

  doubleQuoted(text: string, indent: number, split: boolean): void {
    const esc: Record<string, string> = { '\0': '0', '\x07': 'a', '\b': 'b', '\t': 't', '\n': 'n', '\v': 'v', '\f': 'f', '\r': 'r', '\x1b': 'e', '"': '"', '\\': '\\', '\u0085': 'N', '\u00a0': '_', '\u2028': 'L', '\u2029': 'P' };
    const plainChar = (ch: string): boolean => {
      const c = ch.charCodeAt(0);
      return (c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd);
    };
    this.indicator('"', true);
    if (this.libyaml) {
      this.doubleQuotedLibyaml(text, indent, split, esc, plainChar);
      this.indicator('"', false);
      return;
    }
    let start = 0;
    for (let end = 0; end <= text.length; end++) {
      const ch = end < text.length ? (text[end] as string) : undefined;
      if (ch === undefined || '"\\\u0085\u2028\u2029\ufeff'.includes(ch) || !plainChar(ch)) {
        if (start < end) {
          this.write(text.slice(start, end));
          start = end;
        }
        if (ch !== undefined) {
          const c = ch.charCodeAt(0);
          this.write(ch in esc ? `\\${esc[ch]}` : c <= 0xff ? `\\x${c.toString(16).toUpperCase().padStart(2, '0')}` : `\\u${c.toString(16).toUpperCase().padStart(4, '0')}`);
          start = end + 1;
        }
      }
      if (end > 0 && end < text.length - 1 && (ch === ' ' || start >= end) && this.column + (end - start) > WIDTH && split) {
        this.write(`${text.slice(start, end)}\\`);
        if (start < end) start = end;
        this.indentTo(indent);
        this.whitespace = false;
        this.indention = false;
        if (text[start] === ' ') this.write('\\');
      }
    }
    this.indicator('"', false);
  }

  /** libyaml folds a double-quoted scalar only at a space past the width (the space becomes the break). */
  private doubleQuotedLibyaml(text: string, indent: number, split: boolean, esc: Record<string, string>, plainChar: (ch: string) => boolean): void {
    const chars = [...text];
    let spaces = false;
    chars.forEach((ch, i) => {
      if (((ch.codePointAt(0) as number) <= 0xffff && !plainChar(ch)) || '"\\\u0085\u2028\u2029\ufeff'.includes(ch)) {
        const c = ch.codePointAt(0) as number;
        const hex = c.toString(16).toUpperCase();
        this.write(ch in esc ? `\\${esc[ch]}` : c <= 0xff ? `\\x${hex.padStart(2, '0')}` : c <= 0xffff ? `\\u${hex.padStart(4, '0')}` : `\\U${hex.padStart(8, '0')}`);
        spaces = false;
      } else if (ch === ' ') {
        if (split && !spaces && this.column > WIDTH && i !== 0 && i !== chars.length - 1) {
          this.indentTo(indent);
          if (chars[i + 1] === ' ') this.write('\\');
        } else this.write(' ');
        spaces = true;
      } else {
        this.write(ch);
        spaces = false;
      }
    });
  }

  scalar(text: string, indent: number, simpleKey: boolean): void {
    const a = analyze(text);
    const implicit = !needsQuotes(text);
    if (implicit && a.blockPlain && !(simpleKey && a.multiline)) this.plain(text, indent, !simpleKey);
    else if (a.singleQuoted && !(simpleKey && a.multiline)) this.singleQuoted(text, indent, !simpleKey);
    else this.doubleQuoted(text, indent, !simpleKey);
  }
}

type Node = unknown;

function isMap(v: Node): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function scalarText(v: Node, key?: string): string | undefined {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return '.nan';
    if (!Number.isFinite(v)) return v > 0 ? '.inf' : '-.inf';
    if (key === 'duration' || !Number.isInteger(v)) {
      const r = floatRepr(v).toLowerCase();
      return !r.includes('.') && r.includes('e') ? r.replace('e', '.0e') : r;
    }
    return intStr(v);
  }
  return undefined;
}

const FLOAT_KEYS = new Set(['duration']);

function sortedEntries(m: Record<string, unknown>): Array<[string, unknown]> {
  return Object.entries(m)
    .filter(([, x]) => x !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function node(w: Writer, v: Node, indent: number, inMapping: boolean, key?: string): void {
  const s = scalarText(v, key !== undefined && FLOAT_KEYS.has(key) ? key : undefined);
  if (s !== undefined) {
    // A scalar written plainly by its representer (null, bools, numbers).
    if (!w.whitespace) w.write(' ');
    w.write(s);
    w.whitespace = false;
    w.indention = false;
    return;
  }
  if (typeof v === 'string') {
    w.scalar(v, indent + 2, false);
    return;
  }
  if (Array.isArray(v)) {
    if (v.length === 0) {
      w.indicator('[]', true);
      return;
    }
    // Sequences inside a mapping are not indented (PyYAML's indentless sequences).
    const seqIndent = inMapping || key === '\0root' ? indent : indent + 2;
    for (const item of v) {
      w.indentTo(seqIndent);
      w.indicator('-', true);
      w.indention = true;
      node(w, item, seqIndent, false);
    }
    return;
  }
  if (isMap(v)) {
    const entries = w.keepOrder(v) ? Object.entries(v).filter(([, x]) => x !== undefined) : sortedEntries(v);
    if (entries.length === 0) {
      w.indicator('{}', true);
      return;
    }
    const mapIndent = key === '\0root' ? 0 : indent + 2;
    for (const [k, x] of entries) {
      w.indentTo(mapIndent);
      if (k === '' || k.length >= 128 || /[\n\u0085\u2028\u2029]/.test(k)) {
        // Not a simple key: PyYAML writes `? key` and `: value` on lines of their own.
        w.indicator('?', true);
        w.indention = true;
        w.scalar(k, mapIndent, false);
        w.indentTo(mapIndent);
        w.indicator(':', true);
        w.indention = true;
      } else {
        w.scalar(k, mapIndent, true);
        w.indicator(':', false);
      }
      node(w, x, mapIndent, true, k);
    }
    return;
  }
  w.scalar(String(v), indent + 2, false);
}

/**
 * PyYAML's safe_dump of one document in block style, ending with a newline. `libyaml` emits as
 * yaml.CSafeDumper does (what Salt's yaml outputter, serializer and Jinja filter use when libyaml is there).
 */
export function dumpYaml(data: unknown, opts: { libyaml?: boolean; keepOrder?: (m: object) => boolean } = {}): string {
  const w = new Writer(opts.libyaml ?? false, opts.keepOrder);
  node(w, data, 0, false, '\0root');
  return `${w.out}\n`;
}
