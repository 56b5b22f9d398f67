// Runaway programs end with a clear positioned error, exit 1, never an abort or an endless run: a Jinja
// loop over range(10**9), loops nested past the iteration budget, a self-recursive macro, a string built
// too long; an Inmanta std::sequence of a huge count and nesting past the limit; a Zapusk chain of
// params. (OtterScript's $Range and self-recursive module, and Inmanta's implementation that constructs
// its own entity, are golden fixtures of their own front ends.)
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { assertNoStack, cairn, type CliResult, tempDir } from './cli-helpers.js';

function salt(sls: string, env: Record<string, string> = {}): CliResult & { dir: string } {
  const dir = tempDir();
  mkdirSync(join(dir, 'srv'));
  writeFileSync(join(dir, 'srv/top.sls'), "base:\n  '*':\n    - run\n");
  writeFileSync(join(dir, 'srv/run.sls'), sls);
  return { dir, ...cairn(['salt', 'state.show_sls', 'run', '--file-root', 'srv', '--state-dir', join(dir, 'state')], { cwd: dir, env }) };
}

function refused(r: CliResult, pattern: RegExp): void {
  assertNoStack(r.stdout + r.stderr);
  assert.doesNotMatch(r.stdout + r.stderr, /internal error|Fatal|invalid size/);
  assert.match(r.stderr, pattern);
  assert.equal(r.code, 1);
}

test('Salt: a Jinja loop over range(10**9) is refused at the range() call', () => {
  const r = salt('{% for i in range(10**9) %}\nx{{ i }}:\n  test.nop\n{% endfor %}\n');
  refused(r, /srv\/run\.sls:1:18: SALTR002 Jinja error: OverflowError: range\(\) would make 1000000000 items; at most 1000000 are allowed\n 1 \| \{% for i in range\(10\*\*9\) %\}/);
});

test('Salt: loops nested past the iteration budget stop at the loop that went over', () => {
  const r = salt('{% for i in range(1000) %}\n{% for j in range(1000) %}{% endfor %}\n{% endfor %}\nx:\n  test.nop\n', { CAIRN_JINJA_MAX_ITERATIONS: '5000' });
  refused(r, /srv\/run\.sls:2:\d+: SALTR002 Jinja error: loops ran more than 5000 times in one render/);
});

test('Salt: loops under the budget run whole', () => {
  const r = salt('{% set n = namespace(c=0) %}{% for i in range(300) %}{% for j in range(300) %}{% set n.c = n.c + 1 %}{% endfor %}{% endfor %}\nx:\n  test.nop:\n    - name: "{{ n.c }}"\n');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /90000/);
});

test('Salt: a macro that calls itself without end hits the recursion limit, as Python does', () => {
  const r = salt('{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}\nx:\n  test.nop:\n    - name: "{{ f(1) }}"\n');
  refused(r, /srv\/run\.sls:1:\d+: SALTR002 Jinja error: RecursionError: maximum recursion depth exceeded/);
});

test('Salt: a string multiplied past the size budget is refused where it is built', () => {
  const r = salt("x:\n  test.nop:\n    - name: \"{{ 'ab' * 10**9 }}\"\n");
  refused(r, /srv\/run\.sls:3:\d+: SALTR002 Jinja error: MemoryError: a sequence of 2000000000 items is more than the 16777216 a template may build/);
});

function inmanta(model: string): CliResult {
  const dir = tempDir();
  writeFileSync(join(dir, 'main.cf'), model);
  const r = cairn(['inmanta', 'compile', dir]);
  return { ...r, stderr: r.stderr.split(`${dir}/`).join('') };
}

test('Inmanta: std::sequence of a huge count is a positioned error, not an abort', () => {
  const r = inmanta('x = std::sequence(10000000000)\nstd::print(std::len(x))\n');
  refused(r, /^main\.cf:1:5: RuntimeException std::sequence would make 10000000000 items; at most 1000000 are allowed/m);
  const ok = inmanta('std::print(std::len(std::sequence(1000)))\n');
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.stdout, '1000\n');
});

test('Inmanta: brackets or a chain of `not` nested past the limit are a positioned syntax error', () => {
  refused(inmanta(`x = ${'('.repeat(5000)}1${')'.repeat(5000)}\n`), /^main\.cf:1:205: ParserException Syntax error: nesting deeper than 200 levels is not supported here/m);
  refused(inmanta(`x = ${'not '.repeat(50000)}true\n`), /^main\.cf:1:\d+: ParserException Syntax error: nesting deeper than 200 levels is not supported here/m);
  const ok = inmanta(`x = ${'('.repeat(150)}1${')'.repeat(150)}\nstd::print(x)\n`);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.stdout, '1\n');
});

function zapusk(params: string[]): CliResult {
  const dir = tempDir();
  mkdirSync(join(dir, 'p.zdb'));
  writeFileSync(join(dir, 'p.zdb/main.ini'), `################# params\n${params.join('\n')}\n\n################# show\n[info]\napply=[{{last}}]\n`);
  return cairn(['zapusk', 'p.zdb', 'plan', '--state-dir', join(dir, 'state')], { cwd: dir });
}

test('Zapusk: a chain of 2,000 params, each referring to the one before, computes', () => {
  const chain = ['p0=end', ...Array.from({ length: 1999 }, (_, i) => `p${i + 1}={{p${i}}}`), 'last={{p1999}}'];
  const r = zapusk(chain);
  assertNoStack(r.stdout + r.stderr);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /\[end\]/);
});

test('Zapusk: params that double the one before are stopped where the value grows too long', () => {
  const chain = ['p0=xx', ...Array.from({ length: 59 }, (_, i) => `p${i + 1}={{p${i}}}{{p${i}}}`), 'last={{p59}}'];
  const r = zapusk(chain);
  refused(r, /p\.zdb\/main\.ini:26:12: Z023 the value of p24 grows past 16777216 characters \(params of p\)\n 26 \| p24=\{\{p23\}\}\{\{p23\}\}/);
});
