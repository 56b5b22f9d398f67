/**
 * Seeded mutations of valid input: byte flips, deletions, duplications, deep nesting, huge numbers and
 * binary garbage. The same seed always gives the same inputs, so a failure names a reproducible case.
 */

/** mulberry32: a small, fast, seeded PRNG (floats in [0, 1)). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Rand = () => number;
const int = (r: Rand, n: number): number => Math.floor(r() * n);
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[int(r, xs.length)] as T;

const OPENERS = ['{', '[', '(', '{{', '{%if 1%}', '{% for x in [1] %}', '"', "'", '- ', '  ', 'if true {', 'foreach $x in @a {', '[section]\n', '{`', '$Eval(', '((', 'entity A:\n', '<<EOF\n'];
const NUMBERS = ['1e309', '-1e309', '99999999999999999999999999999999', '-9223372036854775809', '0x7fffffffffffffffff', '1' + '0'.repeat(400), '1.7976931348623157e308', 'NaN', '-0', '0777777777777', '1_000', '10**9', '2**64'];
const TOKENS = ['}', ']', ')', '}}', '%}', '{%', '{#', '#}', '\\', '"', "'", '`', '$', '@', '%', ':', '=', ',', ';', '\n', '\t', '\r\n', '\u00a0', '\ufeff', 'null', 'true', 'end', '{%endif%}', '{%endfor%}', '-', '|', '>', '&', '*', '!', '#'];

function at(buf: Buffer, pos: number, insert: Buffer, remove = 0): Buffer {
  return Buffer.concat([buf.subarray(0, pos), insert, buf.subarray(Math.min(buf.length, pos + remove))]);
}

/** One mutation of `buf`. */
export function mutateOnce(r: Rand, buf: Buffer): Buffer {
  const pos = int(r, buf.length + 1);
  switch (int(r, 9)) {
    case 0: {
      // flip bits of a byte
      if (buf.length === 0) return Buffer.from([int(r, 256)]);
      const out = Buffer.from(buf);
      const i = int(r, buf.length);
      out[i] = (out[i] as number) ^ (1 << int(r, 8));
      return out;
    }
    case 1: {
      // replace a byte with one seen elsewhere in the input (keeps the text plausible)
      if (buf.length === 0) return buf;
      const out = Buffer.from(buf);
      out[int(r, buf.length)] = buf[int(r, buf.length)] as number;
      return out;
    }
    case 2:
      // delete a range
      return at(buf, pos, Buffer.alloc(0), 1 + int(r, r() < 0.8 ? 8 : 200));
    case 3: {
      // duplicate a range somewhere else
      const from = int(r, buf.length + 1);
      const piece = buf.subarray(from, from + 1 + int(r, 120));
      return at(buf, pos, Buffer.concat(Array.from({ length: 1 + int(r, r() < 0.9 ? 2 : 50) }, () => piece)));
    }
    case 4: {
      // deep nesting
      const opener = pick(r, OPENERS);
      const n = r() < 0.5 ? 1 + int(r, 40) : 200 + int(r, 3000);
      return at(buf, pos, Buffer.from(opener.repeat(n)));
    }
    case 5: {
      // a huge or odd number, replacing a run of digits when there is one near
      const text = buf.toString('latin1');
      const m = /\d+(\.\d+)?/g;
      m.lastIndex = pos;
      const hit = m.exec(text);
      const num = Buffer.from(pick(r, NUMBERS));
      return hit ? at(buf, hit.index, num, hit[0].length) : at(buf, pos, num);
    }
    case 6: {
      // binary garbage, including NUL, invalid UTF-8 and control characters
      const n = 1 + int(r, 32);
      return at(buf, pos, Buffer.from(Array.from({ length: n }, () => (r() < 0.3 ? pick(r, [0, 0xff, 0xfe, 0xc0, 0x80, 0x1b, 0x7f]) : int(r, 256)))));
    }
    case 7:
      // a token of one of the languages
      return at(buf, pos, Buffer.from(pick(r, TOKENS)), r() < 0.3 ? 1 : 0);
    default: {
      // swap two lines
      const lines = buf.toString('latin1').split('\n');
      if (lines.length < 2) return buf;
      const i = int(r, lines.length);
      const j = int(r, lines.length);
      [lines[i], lines[j]] = [lines[j] as string, lines[i] as string];
      return Buffer.from(lines.join('\n'), 'latin1');
    }
  }
}

/** One to four mutations. */
export function mutate(r: Rand, buf: Buffer): Buffer {
  let out = buf;
  const n = 1 + int(r, r() < 0.7 ? 2 : 4);
  for (let i = 0; i < n; i++) out = mutateOnce(r, out);
  return out;
}
