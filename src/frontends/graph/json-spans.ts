/**
 * Positions of values in a JSON text by key path, for the diagnostics of a graph file that JSON.parse
 * has already read. Each object or array is indexed (its keys or items and where their values start)
 * the first time a path goes through it, by one scan of its text, so that positioning every node of a
 * large graph costs about as much as reading it, without building a document tree of the whole file.
 */
import { LineMap, type Span } from '../../core/diag.js';

type PathKey = string | number;
const QUOTE = 34;
const BACKSLASH = 92;

export class JsonSpans {
  private readonly objects = new Map<number, Map<string, number>>();
  private readonly arrays = new Map<number, number[]>();
  private lines: LineMap | undefined;

  constructor(
    private readonly file: string,
    private readonly text: string,
  ) {}

  /** Where the value at `path` starts, or undefined when the path leads nowhere. */
  spanOf(path: readonly PathKey[]): Span | undefined {
    let at: number | undefined = this.ws(0);
    for (const key of path) {
      const c = this.text[at];
      if (c === '{' && typeof key === 'string') at = this.objectAt(at).get(key);
      else if (c === '[' && typeof key === 'number') at = this.arrayAt(at)[key];
      else return undefined;
      if (at === undefined) return undefined;
    }
    if (at >= this.text.length) return undefined;
    this.lines ??= new LineMap(this.file, this.text);
    const { line, col } = this.lines.span(at);
    return { file: this.file, line, col };
  }

  private ws(i: number): number {
    const t = this.text;
    while (i < t.length) {
      const c = t.charCodeAt(i);
      if (c !== 32 && c !== 9 && c !== 10 && c !== 13) break;
      i++;
    }
    return i;
  }

  /** The offset just past the string literal starting at `i`. */
  private stringEnd(i: number): number {
    const t = this.text;
    for (let j = i + 1; j < t.length; j++) {
      const c = t.charCodeAt(j);
      if (c === BACKSLASH) j++;
      else if (c === QUOTE) return j + 1;
    }
    return t.length;
  }

  /** The offset just past the value starting at `i`. */
  private valueEnd(i: number): number {
    const t = this.text;
    const c = t[i];
    if (c === '"') return this.stringEnd(i);
    if (c === '{' || c === '[') {
      let depth = 0;
      for (let j = i; j < t.length; j++) {
        const d = t[j];
        if (d === '"') j = this.stringEnd(j) - 1;
        else if (d === '{' || d === '[') depth++;
        else if ((d === '}' || d === ']') && --depth === 0) return j + 1;
      }
      return t.length;
    }
    let j = i;
    while (j < t.length && !',]} \t\r\n'.includes(t[j] as string)) j++;
    return j;
  }

  /** The first value start of each key of the object at `start` (the first of a repeated key). */
  private objectAt(start: number): Map<string, number> {
    let keys = this.objects.get(start);
    if (keys) return keys;
    keys = new Map();
    const t = this.text;
    let i = this.ws(start + 1);
    while (i < t.length && t[i] === '"') {
      const end = this.stringEnd(i);
      const literal = t.slice(i, end);
      const key = literal.includes('\\') ? (JSON.parse(literal) as string) : literal.slice(1, -1);
      i = this.ws(end);
      if (t[i] !== ':') break;
      const value = this.ws(i + 1);
      if (!keys.has(key)) keys.set(key, value);
      i = this.ws(this.valueEnd(value));
      if (t[i] !== ',') break;
      i = this.ws(i + 1);
    }
    this.objects.set(start, keys);
    return keys;
  }

  /** The value start of each item of the array at `start`. */
  private arrayAt(start: number): number[] {
    let items = this.arrays.get(start);
    if (items) return items;
    items = [];
    const t = this.text;
    let i = this.ws(start + 1);
    while (i < t.length && t[i] !== ']') {
      items.push(i);
      i = this.ws(this.valueEnd(i));
      if (t[i] !== ',') break;
      i = this.ws(i + 1);
    }
    this.arrays.set(start, items);
    return items;
  }
}
