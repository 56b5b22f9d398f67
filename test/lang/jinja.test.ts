import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DiagnosticError } from '../../src/core/diag.js';
import { compileTemplate, Environment, PyCallable, renderTemplate, toJs, toPy } from '../../src/lang/jinja/index.js';
import { type CaseResult, FIXTURES, loadCorpus, mismatch, renderCase } from './jinja-corpus.js';

const render = (src: string, ctx: Record<string, unknown> = {}, opts: Partial<Parameters<typeof renderTemplate>[2]> = {}): string =>
  renderTemplate(src, ctx, { file: 't.sls', ...opts });

function diagOf(fn: () => unknown): { line: number; col: number; code: string; message: string } {
  try {
    fn();
  } catch (e) {
    assert.ok(DiagnosticError.is(e), `expected a DiagnosticError, got ${String(e)}`);
    const d = e.diagnostics[0]!;
    assert.ok(d.span, 'diagnostic has a span');
    return { line: d.span.line, col: d.span.col, code: d.code, message: d.message };
  }
  assert.fail('expected an error');
}

test('corpus: every case matches the output recorded from CPython Jinja2', () => {
  const expected = JSON.parse(readFileSync(join(FIXTURES, 'expected.json'), 'utf8')) as Record<string, CaseResult>;
  const cases = loadCorpus();
  assert.ok(cases.length >= 300, `corpus has ${cases.length} cases`);
  const failures: string[] = [];
  for (const c of cases) {
    const want = expected[c.name];
    if (!want) {
      failures.push(`${c.name}: no expected value (run test/fixtures/jinja/render.py --write)`);
      continue;
    }
    const m = mismatch(c, want, renderCase(c));
    if (m) failures.push(m);
  }
  assert.equal(failures.length, 0, `${failures.length} of ${cases.length} cases differ:\n${failures.join('\n')}`);
});

test('values print as Python prints them', () => {
  assert.equal(render("{{ [1, 'a', None] }} {{ {'a': 1} }} {{ True }} {{ 1.0 }} {{ 10/4 }} {{ 10//4 }}"), "[1, 'a', None] {'a': 1} True 1.0 2.5 2");
  assert.equal(render('{{ x }} {{ y }}', { x: 2.5, y: [null, true, { k: 'v' }] }), "2.5 [None, True, {'k': 'v'}]");
});

test('callable globals and Salt-style function dicts', () => {
  const pillar = { web: { port: 8080 } };
  const salt = {
    'pillar.get': (key: unknown, dflt: unknown = '') => {
      let cur: unknown = pillar;
      for (const part of String(key).split(':')) {
        if (cur && typeof cur === 'object' && part in cur) cur = (cur as Record<string, unknown>)[part];
        else return dflt;
      }
      return cur;
    },
  };
  assert.equal(render("{{ salt['pillar.get']('web:port') }} {{ salt['pillar.get']('x:y', 'd') }}", { salt }), '8080 d');
  const env = new Environment({ globals: { double: (n: unknown) => Number(n) * 2 }, filters: { shout: (s: unknown) => `${String(s)}!` } });
  assert.equal(env.render('{{ double(4) }} {{ "hi"|shout }}', {}, 'g.j2'), '8 hi!');
  const kw = new Environment({ globals: { f: new PyCallable('f', (args, kwargs) => `${args.length}:${[...kwargs.keys()].join(',')}`) } });
  assert.equal(kw.render('{{ f(1, 2, a=3) }}', {}, 'k.j2'), '2:a');
});

test('compiled templates render many times with different contexts', () => {
  const env = new Environment();
  const t = env.compile('{% for x in xs %}{{ x }}{% endfor %}', 'loop.j2');
  assert.equal(t.render({ xs: [1, 2] }), '12');
  assert.equal(t.render({ xs: ['a'] }), 'a');
  assert.equal(compileTemplate('{{ 1 }}', 'same.j2'), compileTemplate('{{ 1 }}', 'same.j2'));
});

test('toPy and toJs convert between JS and Python values', () => {
  const v = { a: [1, 2.5, null, 'x'], b: { c: true } };
  assert.deepEqual(toJs(toPy(v)), v);
});

test('loader resolves include and import', () => {
  const files: Record<string, string> = { 'macros.sls': '{% macro pkg(n) %}{{ n }}: pkg.installed{% endmacro %}', 'part.sls': 'part {{ v }}' };
  const out = render("{% from 'macros.sls' import pkg %}{{ pkg('vim') }}\n{% include 'part.sls' %}", { v: 1 }, { loader: (n) => files[n] });
  assert.equal(out, 'vim: pkg.installed\npart 1');
});

test('strict undefined mode fails on printing an undefined value', () => {
  assert.equal(render('[{{ nope }}]'), '[]');
  const d = diagOf(() => render('a\n[{{ nope }}]', {}, { undefined: 'strict' }));
  assert.equal(d.line, 2);
  assert.match(d.message, /'nope' is undefined/);
});

test('syntax errors carry file, line and column', () => {
  const d1 = diagOf(() => render('line1\n{% for x in y %}\n{% endif %}'));
  assert.deepEqual([d1.line, d1.col, d1.code], [3, 4, 'JINJA001']);
  assert.match(d1.message, /^Encountered unknown tag 'endif'\. Jinja was looking for the following tags: 'endfor' or 'else'\./);
  const d2 = diagOf(() => render('{% if x %}\nbody'));
  assert.equal(d2.code, 'JINJA001');
  assert.match(d2.message, /^Unexpected end of template\./);
  const d3 = diagOf(() => render('ok\n  {{ 1 + }}'));
  assert.deepEqual([d3.line, d3.code, d3.message], [2, 'JINJA001', "unexpected 'end of print statement'"]);
  const d4 = diagOf(() => render('{% endfor %}'));
  assert.deepEqual([d4.line, d4.col, d4.message], [1, 4, "Encountered unknown tag 'endfor'."]);
  const d5 = diagOf(() => render('a\nb {{ x'));
  assert.equal(d5.message, "unexpected end of template, expected 'end of print statement'.");
});

test('runtime errors carry the line of the failing expression', () => {
  const d1 = diagOf(() => render('a\nb\n  {{ pillar.missing.deeper }}', { pillar: {} }));
  assert.deepEqual([d1.line, d1.code, d1.message], [3, 'JINJA002', "'dict object' has no attribute 'missing'"]);
  const d2 = diagOf(() => render('x\n{{ undefined_fn() }}'));
  assert.deepEqual([d2.line, d2.col, d2.message], [2, 16, "'undefined_fn' is undefined"]);
  const d3 = diagOf(() => render("{% for i in [1] %}\n\n{{ 'a' + i }}{% endfor %}"));
  assert.deepEqual([d3.line, d3.code, d3.message], [3, 'JINJA003', 'can only concatenate str (not "int") to str']);
  const files: Record<string, string> = { 'm.sls': '{% macro bad() %}\n{{ nope.x }}{% endmacro %}' };
  const d4 = (() => {
    try {
      render("{% import 'm.sls' as m %}{{ m.bad() }}", {}, { loader: (n) => files[n] });
    } catch (e) {
      return (e as DiagnosticError).diagnostics[0]!;
    }
    return undefined;
  })();
  assert.equal(d4?.span?.file, 'm.sls');
  assert.equal(d4?.span?.line, 2);
  const d5 = diagOf(() => render("{% include 'missing.sls' %}", {}, { loader: () => undefined }));
  assert.equal(d5.code, 'JINJA004');
});

test('the formatted diagnostic shows file:line:col', () => {
  try {
    render('a\n{{ nope.x }}');
    assert.fail('expected an error');
  } catch (e) {
    assert.ok(DiagnosticError.is(e));
    assert.match(e.message, /^t\.sls:2:\d+: JINJA002 'nope' is undefined$/);
  }
});
