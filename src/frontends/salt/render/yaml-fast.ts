/**
 * A fast reader for the plain block YAML most SLS files are (mappings, sequences, one-line scalars):
 * the general parser costs ~50 ms per 4,000 lines, this a few. Anything it is not sure about (anchors,
 * tags, block scalars, multi-line or complex flow values, comments after values, repeated keys, tabs)
 * makes it give up, and the caller uses the full parser, which also produces the error messages.
 */

class GiveUp extends Error {}

export interface FastLine {
  readonly indent: number;
  readonly text: string;
  /** Offset of the first non-space character in the document. */
  readonly offset: number;
}

type Resolve = (plain: string) => unknown;

const CONTROL = /[\u0000-\u001f]/;
const JSON_ESCAPES = /\\[^"\\/bfnrtu]/;
const PLAIN_START = /^[^-?:,[\]{}#&*!|>'"%@`\s]|^[-?:][^\s]/;

function scalar(raw: string, resolve: Resolve): unknown {
  if (raw === '[]') return [];
  if (raw === '{}') return {};
  if (raw.startsWith('"')) {
    // No escapes, no quote inside, no control character: the text between the quotes, as JSON.parse reads it.
    if (raw.length >= 2 && raw.indexOf('"', 1) === raw.length - 1 && !raw.includes('\\') && !CONTROL.test(raw)) return raw.slice(1, -1);
    if (!raw.endsWith('"') || raw.length < 2 || JSON_ESCAPES.test(raw) || /[^\\]"./.test(raw.slice(0, -1))) throw new GiveUp();
    try {
      return JSON.parse(raw);
    } catch {
      throw new GiveUp();
    }
  }
  if (raw.startsWith("'")) {
    const body = raw.slice(1, -1);
    if (!raw.endsWith("'") || raw.length < 2 || body.replace(/''/g, '').includes("'")) throw new GiveUp();
    return body.replace(/''/g, "'");
  }
  if (raw.startsWith('[')) {
    const body = raw.slice(1, -1);
    if (!raw.endsWith(']') || /[[\]{}'"]/.test(body)) throw new GiveUp();
    return body.split(',').map((s) => s.trim()).filter((s, i, all) => s !== '' || i < all.length - 1).map((s) => scalar(s, resolve));
  }
  if (!PLAIN_START.test(raw) || raw.includes(': ') || raw.endsWith(':') || raw.includes(' #')) throw new GiveUp();
  return resolve(raw);
}

/** Splits `key: value` / `key:`; undefined when the text is not a mapping entry. */
function splitEntry(text: string): { key: string; value: string } | undefined {
  let keyEnd: number;
  if (text.startsWith('"') || text.startsWith("'")) {
    const q = text[0] as string;
    keyEnd = text.indexOf(q, 1) + 1;
    if (keyEnd <= 0 || text[keyEnd] !== ':') throw new GiveUp();
  } else {
    const i = text.indexOf(': ');
    keyEnd = i >= 0 ? i : text.endsWith(':') ? text.length - 1 : -1;
    if (keyEnd < 0) return undefined;
  }
  const after = text.slice(keyEnd + 1);
  if (after !== '' && !after.startsWith(' ')) throw new GiveUp();
  return { key: text.slice(0, keyEnd), value: after.trim() };
}

export function fastLines(text: string): FastLine[] {
  if (text.includes('\t') || text.includes('\r')) throw new GiveUp();
  const out: FastLine[] = [];
  let offset = 0;
  for (const line of text.split('\n')) {
    const body = line.trimStart();
    if (body !== '' && !body.startsWith('#')) {
      if (body.includes('#')) throw new GiveUp();
      if (body.startsWith('---') || body.startsWith('...') || body.startsWith('%')) throw new GiveUp();
      out.push({ indent: line.length - body.length, text: body.trimEnd(), offset: offset + line.length - body.length });
    }
    offset += line.length + 1;
  }
  return out;
}

class Reader {
  i = 0;
  constructor(private readonly lines: FastLine[], private readonly resolve: Resolve) {}

  block(indent: number): unknown {
    const first = this.lines[this.i];
    if (!first || first.indent !== indent) throw new GiveUp();
    return first.text === '-' || first.text.startsWith('- ') ? this.seq(indent) : this.map(indent);
  }

  private nested(parentIndent: number, seqAllowedAtSame: boolean): unknown {
    const next = this.lines[this.i];
    if (next && next.indent > parentIndent) return this.block(next.indent);
    if (seqAllowedAtSame && next && next.indent === parentIndent && (next.text === '-' || next.text.startsWith('- '))) return this.seq(parentIndent);
    return null;
  }

  private map(indent: number, firstText?: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    let text = firstText;
    for (;;) {
      if (text === undefined) {
        const line = this.lines[this.i];
        if (!line || line.indent < indent) break;
        if (line.indent > indent || line.text.startsWith('- ') || line.text === '-') throw new GiveUp();
        text = line.text;
      }
      this.i++;
      const e = splitEntry(text);
      if (!e) throw new GiveUp();
      const key = scalar(e.key, this.resolve);
      if (typeof key === 'object' || typeof key === 'number') throw new GiveUp();
      const k = String(key);
      if (Object.hasOwn(out, k) || k === '<<' || k === '__proto__') throw new GiveUp();
      out[k] = e.value === '' ? this.nested(indent, true) : scalar(e.value, this.resolve);
      text = undefined;
    }
    return out;
  }

  private seq(indent: number): unknown[] {
    const out: unknown[] = [];
    for (;;) {
      const line = this.lines[this.i];
      if (!line || line.indent !== indent || !(line.text === '-' || line.text.startsWith('- '))) {
        if (line && line.indent > indent) throw new GiveUp();
        break;
      }
      const rest = line.text.slice(1).trimStart();
      if (rest === '') {
        this.i++;
        out.push(this.nested(indent, false));
      } else if (rest.startsWith('- ') || rest === '-') {
        throw new GiveUp();
      } else if (!rest.startsWith('"') && !rest.startsWith("'") && !rest.startsWith('[') && splitEntry(rest)) {
        out.push(this.map(indent + (line.text.length - rest.length), rest));
      } else {
        this.i++;
        out.push(scalar(rest, this.resolve));
      }
    }
    return out;
  }

  done(): boolean {
    return this.i >= this.lines.length;
  }
}

/** The document's data and its top-level keys, or undefined to use the full parser. */
export function fastLoad(text: string, resolve: Resolve): { data: unknown; topKeys: { key: string; offset: number; nonString?: string }[] } | undefined {
  try {
    const lines = fastLines(text);
    if (lines.length === 0) return { data: {}, topKeys: [] };
    const first = lines[0] as FastLine;
    if (first.indent !== 0) return undefined;
    const r = new Reader(lines, resolve);
    const data = r.block(0);
    if (!r.done()) return undefined;
    const topKeys: { key: string; offset: number; nonString?: string }[] = [];
    if (typeof data === 'object' && data !== null && !Array.isArray(data)) {
      for (const l of lines) {
        if (l.indent !== 0) continue;
        const e = splitEntry(l.text);
        if (!e) continue;
        const key = scalar(e.key, resolve);
        const entry: { key: string; offset: number; nonString?: string } = { key: String(key), offset: l.offset };
        if (typeof key !== 'string') entry.nonString = key === null ? 'NoneType' : typeof key === 'boolean' ? 'bool' : Number.isInteger(key) ? 'int' : 'float';
        topKeys.push(entry);
      }
    }
    return { data, topKeys };
  } catch (e) {
    if (e instanceof GiveUp) return undefined;
    throw e;
  }
}
