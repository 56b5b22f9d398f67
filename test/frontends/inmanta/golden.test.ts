// Golden fixtures (test/harness/golden.ts): every test/fixtures/inmanta/<case>/ project is compiled by the
// built CLI (`cairn inmanta compile DIR --out json`, in-process) and its document compared: the printed
// lines, and the error's kind, message, file and line.
//
// - expected.json was recorded from the real compiler (inmanta-core 15 with std 7.0.1; oracle.test.ts
//   re-records it), so CAIRN_ACCEPT never rewrites it.
// - A case where cairn differs on purpose (docs/inmanta.md says why) keeps the real compiler's output in
//   expected-real.json and cairn's in expected-cairn.json, with cairn's diagnostic (and its causes: the
//   template's file and line, the refused path) in expected-cairn.stderr; CAIRN_ACCEPT rewrites those two.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { assertNoStack, cairn } from '../../cli/cli-helpers.js';
import { goldenSuite } from '../../harness/golden.js';

const FIXTURES = resolve(import.meta.dirname, '../../fixtures/inmanta');
const REAL = new Set(['expected.json', 'expected-real.json']);

goldenSuite({
  title: 'inmanta compile',
  root: FIXTURES,
  isCase: (dir) => existsSync(join(dir, 'expected.json')) || existsSync(join(dir, 'expected-cairn.json')),
  // Projects of other tests: deploys, and a model that never ends without an instance budget.
  shared: ['deploy', 'deploy-reload', 'runaway-implementation'],
  expected: (name) => REAL.has(name) || name === 'expected-cairn.json' || name === 'expected-cairn.stderr',
  recorded: (name) => REAL.has(name),
  describe: ({ dir }) => (existsSync(join(dir, 'expected-cairn.json')) ? '(differs from the real compiler on purpose)' : ''),
  run: ({ name, dir }, expect) => {
    const strip = (text: string): string => text.split(`${dir}/`).join('');
    const r = cairn(['inmanta', 'compile', dir, '--out', 'json']);
    assertNoStack(r.stderr);
    const got = JSON.parse(r.stdout) as { ok: boolean; printed: string[]; error: unknown };
    assert.equal(r.code, got.ok ? 0 : 1, `${name}: the exit code follows ok\n${r.stderr}`);
    if (!expect.has('expected-cairn.json')) {
      expect.json('expected.json', got, `${name}: compile --out json`);
      return;
    }
    assert.ok(!expect.has('expected.json'), `${name} is either golden or a difference`);
    const real = expect.jsonOf('expected-real.json') as { ok: boolean; printed: string[] } | undefined;
    assert.ok(real, `${name}: a difference keeps the real compiler's output in expected-real.json`);
    expect.json('expected-cairn.json', got, `${name}: compile --out json`);
    assert.notDeepEqual({ ok: got.ok, printed: got.printed }, { ok: real.ok, printed: real.printed }, `${name}: not a difference any more: make it golden`);
    const text = cairn(['inmanta', 'compile', dir]);
    assertNoStack(text.stderr);
    expect.text('expected-cairn.stderr', strip(text.stderr), `${name}: the diagnostic and its causes`, { absentIsEmpty: true });
  },
});
