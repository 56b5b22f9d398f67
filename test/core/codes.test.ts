// The diagnostic catalogue: every code used in the sources is declared there, and the docs page matches it.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { CATALOGUE, isCode } from '../../src/core/codes.js';
import { catalogueMarkdown } from '../../src/engine/explain.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');

function files(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) files(p, out);
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** String literals that look like diagnostic codes: letters then three digits (F001, CV020, SALTR003). */
export function literalCodes(text: string): string[] {
  return [...text.matchAll(/['"`]([A-Z][A-Z]{0,5}\d{3})['"`]/g)].map((m) => m[1] as string);
}

test('every code literal in src/ is declared in the catalogue', () => {
  const missing: string[] = [];
  for (const file of files(SRC)) {
    if (file.endsWith('core/codes.ts')) continue;
    for (const code of literalCodes(readFileSync(file, 'utf8'))) if (!isCode(code)) missing.push(`${relative(ROOT, file)}: ${code}`);
  }
  assert.deepEqual(missing, []);
});

test('the scan finds codes and the check rejects an undeclared one', () => {
  assert.deepEqual(literalCodes(`error('G006', 'x'); fail(l, 0, "HCL011", 'y'); const a = 'G6'; const b = 'ABC1234';`), ['G006', 'HCL011']);
  assert.equal(isCode('G006'), true);
  assert.equal(isCode('G999'), false);
});

test('every code is declared once, with a title and advice', () => {
  const source = readFileSync(join(SRC, 'core/codes.ts'), 'utf8');
  const declared = [...source.matchAll(/^\s{2}(\w+): \{ area:/gm)].map((m) => m[1] as string);
  assert.equal(new Set(declared).size, declared.length, 'no code is declared twice');
  assert.deepEqual(new Set(declared), new Set(Object.keys(CATALOGUE)));
  for (const [code, e] of Object.entries(CATALOGUE)) assert.ok(e.title && e.help && e.area, code);
});

test('docs/diagnostics.md is the catalogue (regenerate with npm run docs)', () => {
  assert.equal(readFileSync(join(ROOT, 'docs/diagnostics.md'), 'utf8'), catalogueMarkdown());
});
