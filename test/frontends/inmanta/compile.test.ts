// Golden fixtures: every test/fixtures/inmanta/<case>/ with an expected.json is compiled and compared
// (printed lines, and the error's kind, message, file and line as `compile --out json` reports them).
// Every expected.json was recorded from the real compiler (inmanta-core 15 with std 7.0.1).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { compileProject } from '../../../src/frontends/inmanta/compiler.js';

const FIXTURES = resolve(import.meta.dirname, '../../fixtures/inmanta');
const cases = readdirSync(FIXTURES).filter((d) => existsSync(join(FIXTURES, d, 'expected.json')));

test('there are golden cases', () => assert.ok(cases.length >= 20));

// Every fixture, basics and entities included, must print the same lines in the same order as the real
// compiler: plugin calls, index queries, attribute reads and conditions are separate scheduler steps.
for (const name of cases) {
  test(`fixture ${name}`, () => {
    const dir = join(FIXTURES, name);
    const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8'));
    const r = compileProject(dir);
    const strip = (s: string) => s.split(`${dir}/`).join('');
    const error = r.error
      ? { kind: r.error.kind, message: strip(r.error.msg), file: r.error.span ? relative(dir, r.error.span.file) : null, line: r.error.span?.line ?? null }
      : null;
    assert.deepEqual({ ok: r.ok, printed: r.printed, error }, expected);
  });
}
