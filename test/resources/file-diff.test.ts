import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { applyPatch, structuredPatch } from 'diff';
import { hashPrefix, MAX_DIFF_BYTES, nativeHashPrefix, scriptHashPrefix, unifiedDiff } from '../../src/resources/file/diff.js';

/** The whole-text diff, formatted as before the middle was cut out: the reference for small inputs. */
function reference(a: string, b: string): string {
  const p = structuredPatch('', '', a, b, '', '', { context: 3 });
  const range = (s: number, n: number): string => (n === 1 ? String(s) : `${n === 0 ? s - 1 : s},${n}`);
  let out = '--- \n+++ \n';
  for (const h of p.hunks) out += `@@ -${range(h.oldStart, h.oldLines)} +${range(h.newStart, h.newLines)} @@\n${h.lines.map((l) => `${l}\n`).join('')}`;
  return out;
}

function rng(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
}

for (const [what, unique] of [
  ['lines are unique: the same hunks as diffing the whole text', true],
  ['lines repeat: a patch that turns the old text into the new', false],
] as const)
test(`diffing only the changed middle, ${what}`, async () => {
  const r = rng(7);
  let serial = 0;
  for (let round = 0; round < 300; round++) {
    const n = Math.floor(r() * 40);
    const word = (p: string): string => (unique ? `${p}${serial++}` : `${p}${Math.floor(r() * 6)}`);
    const a = Array.from({ length: n }, () => word('l'));
    const b = [...a];
    for (let e = Math.floor(r() * 4); e > 0; e--) {
      const at = Math.floor(r() * (b.length + 1));
      if (r() < 0.5) b.splice(at, 1);
      else b.splice(at, 0, word('n'));
    }
    const endA = r() < 0.3 ? '' : '\n';
    const endB = r() < 0.3 ? '' : '\n';
    const ta = a.length ? a.join('\n') + endA : '';
    const tb = b.length ? b.join('\n') + endB : '';
    if (ta === tb) continue;
    const d = await unifiedDiff(Buffer.from(ta), Buffer.from(tb));
    if (unique) assert.equal(d, reference(ta, tb), JSON.stringify([ta, tb]));
    else assert.equal(applyPatch(ta, d), tb, JSON.stringify([ta, tb, d]));
  }
});

test('a one-line change deep in a long file is diffed with its real line numbers', async () => {
  const a = Array.from({ length: 20000 }, (_, i) => `line ${i}\n`);
  const b = [...a];
  b[15000] = 'changed\n';
  const d = await unifiedDiff(Buffer.from(a.join('')), Buffer.from(b.join('')));
  assert.equal(d, '--- \n+++ \n@@ -14998,7 +14998,7 @@\n line 14997\n line 14998\n line 14999\n-line 15000\n+changed\n line 15001\n line 15002\n line 15003\n');
});

test('a change too large to diff is summarised by sizes and sha256 prefixes', async () => {
  const h = (b: Buffer): string => createHash('sha256').update(b).digest('hex').slice(0, 12);
  // Every line differs: the edit length exceeds the work budget, so no line diff is attempted.
  const a = Buffer.from(Array.from({ length: 60000 }, (_, i) => `a${i}\n`).join(''));
  const b = Buffer.from(Array.from({ length: 60000 }, (_, i) => `b${i}\n`).join(''));
  assert.ok(a.length + b.length < MAX_DIFF_BYTES);
  assert.equal(await unifiedDiff(a, b), `large file changed: ${a.length} bytes → ${b.length} bytes, sha256 ${h(a)}… → ${h(b)}…`);
  const big = Buffer.alloc(MAX_DIFF_BYTES, 'x');
  const big2 = Buffer.from(big);
  big2[10] = 0x79;
  assert.equal(await unifiedDiff(big, big2), `large file changed: ${big.length} bytes → ${big2.length} bytes, sha256 ${h(big)}… → ${h(big2)}…`);
  assert.equal(await unifiedDiff(Buffer.from([0, 1]), Buffer.from('text')), 'Replace binary file');
});

test('the JavaScript sha256 of a small run gives the digest the crypto module gives', () => {
  const texts = ['', 'x', 'line 1\n', 'é ü 中文 🙂', 'lone \ud800 surrogate', 'a'.repeat(55), 'a'.repeat(56), 'a'.repeat(64), 'b'.repeat(10_000)];
  for (const t of texts) {
    assert.equal(scriptHashPrefix(t), createHash('sha256').update(t).digest('hex').slice(0, 12), JSON.stringify(t.slice(0, 20)));
    assert.equal(scriptHashPrefix(t), nativeHashPrefix(t));
    const bytes = new Uint8Array(Buffer.from(t));
    assert.equal(scriptHashPrefix(bytes), nativeHashPrefix(bytes));
  }
  // The known vector: sha256("abc").
  assert.equal(scriptHashPrefix('abc'), 'ba7816bf8f01');
  // hashPrefix agrees with both, before and after it hands over to the crypto module.
  for (let i = 0; i < 200; i++) assert.equal(hashPrefix(`content ${i}\n`), nativeHashPrefix(`content ${i}\n`));
  assert.equal(hashPrefix('c'.repeat(100_000)), nativeHashPrefix('c'.repeat(100_000)));
});
