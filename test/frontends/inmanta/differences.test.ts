// Fixtures where cairn deliberately differs from the real compiler (docs/inmanta.md says why): each has the
// real compiler's recorded output in expected-real.json, and what cairn does in expected-cairn.json, which
// also lists the causes of the error (the template's file and line, the refused path).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { compileProject } from '../../../src/frontends/inmanta/compiler.js';

const FIXTURES = resolve(import.meta.dirname, '../../fixtures/inmanta');
const cases = readdirSync(FIXTURES).filter((d) => existsSync(join(FIXTURES, d, 'expected-cairn.json')));

test('every deliberate difference keeps the real output beside it', () => {
  assert.ok(cases.length >= 2);
  for (const name of cases) {
    assert.ok(existsSync(join(FIXTURES, name, 'expected-real.json')), name);
    assert.ok(!existsSync(join(FIXTURES, name, 'expected.json')), `${name} is either golden or a difference`);
  }
});

for (const name of cases) {
  test(`difference ${name}`, () => {
    const dir = join(FIXTURES, name);
    const expected = JSON.parse(readFileSync(join(dir, 'expected-cairn.json'), 'utf8'));
    const real = JSON.parse(readFileSync(join(dir, 'expected-real.json'), 'utf8'));
    const r = compileProject(dir);
    const strip = (s: string) => s.split(`${dir}/`).join('');
    const error = r.error
      ? {
          kind: r.error.kind,
          message: strip(r.error.msg),
          file: r.error.span ? relative(dir, r.error.span.file) : null,
          line: r.error.span?.line ?? null,
          causes: r.error.causes.map((c) => strip(c.msg)),
        }
      : null;
    const got = { ok: r.ok, printed: r.printed, error };
    assert.deepEqual(got, expected);
    assert.notDeepEqual({ ok: got.ok, printed: got.printed }, { ok: real.ok, printed: real.printed }, 'not a difference any more: make it golden');
  });
}
