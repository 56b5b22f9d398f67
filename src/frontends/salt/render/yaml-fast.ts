/**
 * A fast reader for the plain block YAML most SLS files are (mappings, sequences, one-line scalars):
 * the general parser costs ~50 ms per 4,000 lines, this a few. Anything it is not sure about (anchors,
 * tags, block scalars, multi-line or complex flow values, comments after values, repeated keys, tabs,
 * whitespace other than spaces around a line's text or before a value) makes it give up, and the caller
 * uses the full parser, which also produces the error messages. The lines are scanned once into three
 * parallel lists (indent, text, offset), with no object per line.
 */

class GiveUp extends Error {}

type Resolve = (plain: string) => unknown;

const CONTROL = /[\u0000-\u001f]/;
const JSON_ESCAPES = /\\[^"\\/bfnrtu]/;

/** JavaScript's whitespace other than the space (what trim() would also strip); tabs and CRs are refused before. */
function otherSpace(c: number): boolean {
  // Printable ASCII, most characters of an SLS file, is answered by the first test.
  if (c > 0x20 && c < 0x7f) return false;
  return (
    (c >= 0x09 && c <= 0x0d) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}

function isSpace(c: number): boolean {
  return c === 0x20 || otherSpace(c);
}

/** The characters a plain scalar may not start with (YAML indicators); `-`, `?` and `:` may when a non-space follows. */
const INDICATOR = new Uint8Array(128);
for (const ch of ',[]{}#&*!|>\'"%@`') INDICATOR[ch.charCodeAt(0)] = 1;
for (const ch of '-?:') INDICATOR[ch.charCodeAt(0)] = 2;

/** What /^[^-?:,[\]{}#&*!|>'"%@`\s]|^[-?:][^\s]/ says of a plain scalar's start. */
function plainStart(raw: string): boolean {
  if (raw.length === 0) return false;
  const c = raw.charCodeAt(0);
  if (isSpace(c)) return false;
  const kind = c < 128 ? INDICATOR[c] : 0;
  if (kind === 0) return true;
  if (kind === 1 || raw.length < 2) return false;
  return !isSpace(raw.charCodeAt(1));
}

function scalar(raw: string, resolve: Resolve): unknown {
  const c = raw.charCodeAt(0);
  if (c === 0x22 /* " */) {
    // No escapes, no quote inside, no control character: the text between the quotes, as JSON.parse reads it.
    if (raw.length >= 2 && raw.indexOf('"', 1) === raw.length - 1 && !raw.includes('\\') && !CONTROL.test(raw)) return raw.slice(1, -1);
    if (!raw.endsWith('"') || raw.length < 2 || JSON_ESCAPES.test(raw) || /[^\\]"./.test(raw.slice(0, -1))) throw new GiveUp();
    try {
      return JSON.parse(raw);
    } catch {
      throw new GiveUp();
    }
  }
  if (c === 0x27 /* ' */) {
    if (raw.length < 2 || raw.charCodeAt(raw.length - 1) !== 0x27) throw new GiveUp();
    const body = raw.slice(1, -1);
    if (!body.includes("'")) return body;
    if (body.replace(/''/g, '').includes("'")) throw new GiveUp();
    return body.replace(/''/g, "'");
  }
  if (c === 0x5b /* [ */) {
    if (raw === '[]') return [];
    const body = raw.slice(1, -1);
    if (!raw.endsWith(']') || /[[\]{}'"]/.test(body)) throw new GiveUp();
    return body.split(',').map((s) => s.trim()).filter((s, i, all) => s !== '' || i < all.length - 1).map((s) => scalar(s, resolve));
  }
  if (raw === '{}') return {};
  if (!plainStart(raw) || raw.includes(': ') || raw.charCodeAt(raw.length - 1) === 0x3a || raw.includes(' #')) throw new GiveUp();
  return resolve(raw);
}

/** Where a `key: value` / `key:` line's key ends, or -1 when the text is not a mapping entry. */
function keyEnd(text: string): number {
  const q = text.charCodeAt(0);
  if (q === 0x22 || q === 0x27) {
    const end = text.indexOf(text[0] as string, 1) + 1;
    if (end <= 0 || text.charCodeAt(end) !== 0x3a) throw new GiveUp();
    return end;
  }
  const i = text.indexOf(': ');
  if (i >= 0) {
    // A key written with spaces before its colon is left to the full parser.
    if (i > 0 && isSpace(text.charCodeAt(i - 1))) throw new GiveUp();
    return i;
  }
  if (text.charCodeAt(text.length - 1) === 0x3a) {
    if (text.length > 1 && isSpace(text.charCodeAt(text.length - 2))) throw new GiveUp();
    return text.length - 1;
  }
  return -1;
}

/** The value after the key's colon ('' for none). */
function valueAfter(text: string, end: number): string {
  let i = end + 1;
  if (i >= text.length) return '';
  if (text.charCodeAt(i) !== 0x20) throw new GiveUp();
  while (text.charCodeAt(i) === 0x20) i++;
  if (i < text.length && otherSpace(text.charCodeAt(i))) throw new GiveUp();
  return text.slice(i);
}

interface TopKey {
  key: string;
  offset: number;
  nonString?: string;
}

class Reader {
  i = 0;
  readonly indents: number[] = [];
  readonly texts: string[] = [];
  readonly offsets: number[] = [];
  /** The lines the top-level mapping read (ascending) and each one's key, in two lists. */
  readonly rootLines: number[] = [];
  readonly rootKeys: unknown[] = [];

  constructor(private readonly resolve: Resolve) {}

  /** Splits the text into its content lines (not blank, not a comment). */
  scan(text: string): void {
    if (text.includes('\t') || text.includes('\r')) throw new GiveUp();
    // Where each '#' is, found once (comment lines hold them; any other line with one is given up on).
    const hashes: number[] = [];
    for (let h = text.indexOf('#'); h >= 0; h = text.indexOf('#', h + 1)) hashes.push(h);
    let nextHash = 0;
    let start = 0;
    const n = text.length;
    while (start <= n) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = n;
      let i = start;
      while (i < end && text.charCodeAt(i) === 0x20) i++;
      if (i < end) {
        const c = text.charCodeAt(i);
        if (otherSpace(c)) throw new GiveUp();
        if (c !== 0x23 /* # */) {
          while (nextHash < hashes.length && (hashes[nextHash] as number) < i) nextHash++;
          if (nextHash < hashes.length && (hashes[nextHash] as number) < end) throw new GiveUp();
          if (c === 0x25 /* % */ || (c === 0x2d && text.startsWith('---', i)) || (c === 0x2e && text.startsWith('...', i))) throw new GiveUp();
          let j = end;
          while (text.charCodeAt(j - 1) === 0x20) j--;
          if (otherSpace(text.charCodeAt(j - 1))) throw new GiveUp();
          this.indents.push(i - start);
          this.texts.push(text.slice(i, j));
          this.offsets.push(i);
        }
      }
      start = end + 1;
    }
  }

  private isItem(line: number): boolean {
    const t = this.texts[line] as string;
    return t.charCodeAt(0) === 0x2d /* - */ && (t.length === 1 || t.charCodeAt(1) === 0x20);
  }

  block(indent: number, root = false): unknown {
    if (this.i >= this.texts.length || this.indents[this.i] !== indent) throw new GiveUp();
    return this.isItem(this.i) ? this.seq(indent) : this.map(indent, undefined, root);
  }

  private nested(parentIndent: number, seqAllowedAtSame: boolean): unknown {
    if (this.i >= this.texts.length) return null;
    const next = this.indents[this.i] as number;
    if (next > parentIndent) return this.block(next);
    if (seqAllowedAtSame && next === parentIndent && this.isItem(this.i)) return this.seq(parentIndent);
    return null;
  }

  private map(indent: number, firstText: string | undefined, root: boolean): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    let text = firstText;
    let count = 0;
    for (;;) {
      if (text === undefined) {
        if (this.i >= this.texts.length) break;
        const at = this.indents[this.i] as number;
        if (at < indent) break;
        if (at > indent || this.isItem(this.i)) throw new GiveUp();
        text = this.texts[this.i] as string;
      }
      const line = this.i++;
      const end = keyEnd(text);
      if (end < 0) throw new GiveUp();
      const key = scalar(text.slice(0, end), this.resolve);
      if (typeof key === 'object' || typeof key === 'number') throw new GiveUp();
      const k = String(key);
      if (k === '<<' || k === '__proto__') throw new GiveUp();
      // A repeated key: the top-level mapping (thousands of keys) counts its keys once at its end instead
      // of asking for each one; a smaller mapping asks.
      if (root) {
        this.rootLines.push(line);
        this.rootKeys.push(key);
        count++;
      } else if (Object.hasOwn(out, k)) throw new GiveUp();
      const value = valueAfter(text, end);
      out[k] = value === '' ? this.nested(indent, true) : scalar(value, this.resolve);
      text = undefined;
    }
    if (root && Object.keys(out).length !== count) throw new GiveUp();
    return out;
  }

  private seq(indent: number): unknown[] {
    const out: unknown[] = [];
    for (;;) {
      if (this.i >= this.texts.length) break;
      const at = this.indents[this.i] as number;
      if (at !== indent || !this.isItem(this.i)) {
        if (at > indent) throw new GiveUp();
        break;
      }
      const text = this.texts[this.i] as string;
      let r = 1;
      while (text.charCodeAt(r) === 0x20) r++;
      const rest = text.slice(r);
      const c = rest.charCodeAt(0);
      if (rest === '') {
        this.i++;
        out.push(this.nested(indent, false));
      } else if (c === 0x2d && (rest.length === 1 || rest.charCodeAt(1) === 0x20)) {
        throw new GiveUp();
      } else if (c !== 0x22 && c !== 0x27 && c !== 0x5b && keyEnd(rest) >= 0) {
        out.push(this.map(indent + r, rest, false));
      } else {
        this.i++;
        out.push(scalar(rest, this.resolve));
      }
    }
    return out;
  }

  done(): boolean {
    return this.i >= this.texts.length;
  }

  /** Every line at indent 0 that reads as a `key:` entry, with its key (the top-level mapping's keys). */
  topKeys(): TopKey[] {
    const out: TopKey[] = [];
    // Both go down the lines in order: the next line the top-level mapping read is the only one to try.
    let r = 0;
    for (let l = 0; l < this.texts.length; l++) {
      if (this.indents[l] !== 0) continue;
      while (r < this.rootLines.length && (this.rootLines[r] as number) < l) r++;
      let key: unknown;
      if (this.rootLines[r] === l) key = this.rootKeys[r];
      else {
        const text = this.texts[l] as string;
        const end = keyEnd(text);
        if (end < 0) continue;
        valueAfter(text, end);
        key = scalar(text.slice(0, end), this.resolve);
      }
      const entry: TopKey = { key: String(key), offset: this.offsets[l] as number };
      if (typeof key !== 'string') entry.nonString = key === null ? 'NoneType' : typeof key === 'boolean' ? 'bool' : Number.isInteger(key) ? 'int' : 'float';
      out.push(entry);
    }
    return out;
  }
}

/** The document's data and its top-level keys, or undefined to use the full parser. */
export function fastLoad(text: string, resolve: Resolve): { data: unknown; topKeys: { key: string; offset: number; nonString?: string }[] } | undefined {
  try {
    const r = new Reader(resolve);
    r.scan(text);
    if (r.texts.length === 0) return { data: {}, topKeys: [] };
    if (r.indents[0] !== 0) return undefined;
    const data = r.block(0, true);
    if (!r.done()) return undefined;
    const topKeys = typeof data === 'object' && data !== null && !Array.isArray(data) ? r.topKeys() : [];
    return { data, topKeys };
  } catch (e) {
    if (e instanceof GiveUp) return undefined;
    throw e;
  }
}
