/**
 * A fast reader for the plain block YAML most SLS files are (mappings, sequences, one-line scalars):
 * the general parser costs ~50 ms per 4,000 lines, this a few. Anything it is not sure about (anchors,
 * tags, block scalars, multi-line or complex flow values, comments after values, repeated keys, tabs,
 * whitespace other than spaces around a line's text or before a value) makes it give up, and the caller
 * uses the full parser, which also produces the error messages. The lines are scanned once into three
 * parallel lists of numbers (indent, start, end of the text): no object and no string per line, only
 * the keys and values are cut out of the source.
 */

class GiveUp extends Error {}

type Resolve = (plain: string) => unknown;

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

/**
 * Whether a double-quoted scalar (raw, its quotes included) has nothing between its quotes but characters
 * that stand for themselves: no quote, no backslash, no control character. One pass over a short text,
 * where a search for each costs more.
 */
function plainQuoted(raw: string): boolean {
  const last = raw.length - 1;
  if (last < 1 || raw.charCodeAt(last) !== 0x22) return false;
  for (let i = 1; i < last; i++) {
    const ch = raw.charCodeAt(i);
    if (ch === 0x22 || ch === 0x5c || ch < 0x20) return false;
  }
  return true;
}

/** Whether a text holds `: ` or ` #` (what a plain scalar may not), by one pass looking at its spaces. */
function colonOrHash(raw: string): boolean {
  const n = raw.length;
  for (let i = 0; i < n; i++) {
    if (raw.charCodeAt(i) !== 0x20) continue;
    if ((i > 0 && raw.charCodeAt(i - 1) === 0x3a) || (i + 1 < n && raw.charCodeAt(i + 1) === 0x23)) return true;
  }
  return false;
}

/** Whether a text holds a single quote. */
function hasSingleQuote(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === 0x27) return true;
  return false;
}

function scalar(raw: string, resolve: Resolve): unknown {
  const c = raw.charCodeAt(0);
  if (c === 0x22 /* " */) {
    // No escapes, no quote inside, no control character: the text between the quotes, as JSON.parse reads it.
    if (plainQuoted(raw)) return raw.slice(1, -1);
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
    if (!hasSingleQuote(body)) return body;
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
  if (!plainStart(raw) || raw.charCodeAt(raw.length - 1) === 0x3a || colonOrHash(raw)) throw new GiveUp();
  return resolve(raw);
}

interface TopKey {
  key: string;
  offset: number;
  nonString?: string;
}

class Reader {
  i = 0;
  /** Each content line's indent, and where its text (without indent and trailing spaces) starts and ends in the source: no string per line. */
  readonly indents: number[] = [];
  readonly starts: number[] = [];
  readonly ends: number[] = [];
  /** The lines the top-level mapping read (ascending) and each one's key, in two lists. */
  readonly rootLines: number[] = [];
  readonly rootKeys: unknown[] = [];
  /** The top-level mapping's entries in a Map instead of an object, when asked for (see fastLoad). */
  rootEntries: Map<string, unknown> | undefined;
  private src = '';
  /** The first ': ' at or after colonFrom is at colonAt (-1: none): lines are read in order, so a search goes on from the last one's answer instead of scanning again. */
  private colonFrom = 0;
  private colonAt = -2;

  constructor(
    private readonly resolve: Resolve,
    private readonly asEntries = false,
  ) {}

  /** Splits the text into its content lines (not blank, not a comment). */
  scan(text: string): void {
    if (text.includes('\t') || text.includes('\r')) throw new GiveUp();
    this.src = text;
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
          // A directive, or a document marker (`---`, `...`), told by the characters themselves (most lines
          // of an SLS are sequence items, which start with a `-`).
          if (c === 0x25 /* % */ || ((c === 0x2d || c === 0x2e) && text.charCodeAt(i + 1) === c && text.charCodeAt(i + 2) === c)) throw new GiveUp();
          let j = end;
          while (text.charCodeAt(j - 1) === 0x20) j--;
          if (otherSpace(text.charCodeAt(j - 1))) throw new GiveUp();
          this.indents.push(i - start);
          this.starts.push(i);
          this.ends.push(j);
        }
      }
      start = end + 1;
    }
  }

  /** The first ': ' at or after `from` in the source, or -1. */
  private colonSpace(from: number): number {
    if (from < this.colonFrom || this.colonAt === -2 || (this.colonAt >= 0 && from > this.colonAt)) {
      this.colonFrom = from;
      this.colonAt = this.src.indexOf(': ', from);
    }
    return this.colonAt;
  }

  /** Where the key of a `key: value` / `key:` text (from s to e) ends in the source, or -1 when the text is not a mapping entry. */
  private keyEnd(s: number, e: number): number {
    const src = this.src;
    const q = src.charCodeAt(s);
    if (q === 0x22 || q === 0x27) {
      const close = src.indexOf(src[s] as string, s + 1);
      if (close < 0 || close >= e || src.charCodeAt(close + 1) !== 0x3a || close + 1 >= e) throw new GiveUp();
      return close + 1;
    }
    const i = this.colonSpace(s);
    if (i >= 0 && i + 2 <= e) {
      // A key written with spaces before its colon is left to the full parser.
      if (i > s && isSpace(src.charCodeAt(i - 1))) throw new GiveUp();
      return i;
    }
    if (src.charCodeAt(e - 1) === 0x3a) {
      if (e - s > 1 && isSpace(src.charCodeAt(e - 2))) throw new GiveUp();
      return e - 1;
    }
    return -1;
  }

  /** The value after the key's colon at `end`, up to `e` ('' for none). */
  private valueAfter(end: number, e: number): string {
    const src = this.src;
    let i = end + 1;
    if (i >= e) return '';
    if (src.charCodeAt(i) !== 0x20) throw new GiveUp();
    while (src.charCodeAt(i) === 0x20) i++;
    if (i < e && otherSpace(src.charCodeAt(i))) throw new GiveUp();
    return src.slice(i, e);
  }

  private isItem(line: number): boolean {
    const s = this.starts[line] as number;
    return this.src.charCodeAt(s) === 0x2d /* - */ && ((this.ends[line] as number) - s === 1 || this.src.charCodeAt(s + 1) === 0x20);
  }

  block(indent: number, root = false): unknown {
    if (this.i >= this.starts.length || this.indents[this.i] !== indent) throw new GiveUp();
    return this.isItem(this.i) ? this.seq(indent) : this.map(indent, -1, root);
  }

  private nested(parentIndent: number, seqAllowedAtSame: boolean): unknown {
    if (this.i >= this.starts.length) return null;
    const next = this.indents[this.i] as number;
    if (next > parentIndent) return this.block(next);
    if (seqAllowedAtSame && next === parentIndent && this.isItem(this.i)) return this.seq(parentIndent);
    return null;
  }

  /** A block mapping at `indent`; its first entry starts at `firstStart` inside the current line (a sequence item's), or -1. */
  private map(indent: number, firstStart: number, root: boolean): Record<string, unknown> | Map<string, unknown> {
    // The top-level mapping goes into a Map when its entries are asked for (thousands of keys: a Map takes
    // them for less than an object, which turns into a dictionary).
    const entries = root && this.asEntries ? new Map<string, unknown>() : undefined;
    const out: Record<string, unknown> = {};
    let s = firstStart;
    let count = 0;
    for (;;) {
      if (s < 0) {
        if (this.i >= this.starts.length) break;
        const at = this.indents[this.i] as number;
        if (at < indent) break;
        if (at > indent || this.isItem(this.i)) throw new GiveUp();
        s = this.starts[this.i] as number;
      }
      const line = this.i++;
      const e = this.ends[line] as number;
      const end = this.keyEnd(s, e);
      if (end < 0) throw new GiveUp();
      const key = scalar(this.src.slice(s, end), this.resolve);
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
      const value = this.valueAfter(end, e);
      const v = value === '' ? this.nested(indent, true) : scalar(value, this.resolve);
      if (entries !== undefined) entries.set(k, v);
      else out[k] = v;
      s = -1;
    }
    if (entries !== undefined) {
      if (entries.size !== count) throw new GiveUp();
      return entries;
    }
    if (root && Object.keys(out).length !== count) throw new GiveUp();
    return out;
  }

  private seq(indent: number): unknown[] {
    const out: unknown[] = [];
    const src = this.src;
    for (;;) {
      if (this.i >= this.starts.length) break;
      const at = this.indents[this.i] as number;
      if (at !== indent || !this.isItem(this.i)) {
        if (at > indent) throw new GiveUp();
        break;
      }
      const s = this.starts[this.i] as number;
      const e = this.ends[this.i] as number;
      let r = s + 1;
      while (r < e && src.charCodeAt(r) === 0x20) r++;
      const c = src.charCodeAt(r);
      if (r >= e) {
        this.i++;
        out.push(this.nested(indent, false));
      } else if (c === 0x2d && (e - r === 1 || src.charCodeAt(r + 1) === 0x20)) {
        throw new GiveUp();
      } else if (c !== 0x22 && c !== 0x27 && c !== 0x5b && this.keyEnd(r, e) >= 0) {
        out.push(this.map(indent + r - s, r, false));
      } else {
        this.i++;
        out.push(scalar(src.slice(r, e), this.resolve));
      }
    }
    return out;
  }

  done(): boolean {
    return this.i >= this.starts.length;
  }

  /** Every line at indent 0 that reads as a `key:` entry, with its key (the top-level mapping's keys). */
  topKeys(): TopKey[] {
    const out: TopKey[] = [];
    // Both go down the lines in order: the next line the top-level mapping read is the only one to try.
    let r = 0;
    for (let l = 0; l < this.starts.length; l++) {
      if (this.indents[l] !== 0) continue;
      while (r < this.rootLines.length && (this.rootLines[r] as number) < l) r++;
      let key: unknown;
      if (this.rootLines[r] === l) key = this.rootKeys[r];
      else {
        const s = this.starts[l] as number;
        const e = this.ends[l] as number;
        const end = this.keyEnd(s, e);
        if (end < 0) continue;
        this.valueAfter(end, e);
        key = scalar(this.src.slice(s, end), this.resolve);
      }
      const entry: TopKey = { key: String(key), offset: this.starts[l] as number };
      if (typeof key !== 'string') entry.nonString = key === null ? 'NoneType' : typeof key === 'boolean' ? 'bool' : Number.isInteger(key) ? 'int' : 'float';
      out.push(entry);
    }
    return out;
  }
}

export interface FastLoad {
  /** The data; absent when `entries` holds it. */
  readonly data?: unknown;
  readonly topKeys: TopKey[];
  /** A mapping document's entries in document order, one per top key, in place of its data. */
  readonly entries?: Map<string, unknown>;
}

/**
 * The document's data and its top-level keys, or undefined to use the full parser. `asEntries`: a
 * mapping document, whose every top key the mapping read, comes as a Map of its entries (`entries`)
 * instead of an object, for a caller that goes over them in order (a 10,000-key object is a dictionary,
 * slower to fill, and its key list must be sorted back into insertion order).
 */
export function fastLoad(text: string, resolve: Resolve, asEntries = false): FastLoad | undefined {
  try {
    const r = new Reader(resolve, asEntries);
    r.scan(text);
    if (r.starts.length === 0) return asEntries ? { topKeys: [], entries: new Map() } : { data: {}, topKeys: [] };
    if (r.indents[0] !== 0) return undefined;
    const data = r.block(0, true);
    if (!r.done()) return undefined;
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return { data, topKeys: [] };
    const topKeys = r.topKeys();
    if (!(data instanceof Map)) return { data, topKeys };
    // A top-level line the mapping did not read as its key (an item of a sequence at indent 0 that reads
    // as `key: value`): the caller looks the keys up in the data.
    return topKeys.length === data.size ? { topKeys, entries: data } : { data: Object.fromEntries(data), topKeys };
  } catch (e) {
    if (e instanceof GiveUp) return undefined;
    throw e;
  }
}
