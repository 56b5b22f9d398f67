import assert from 'node:assert/strict';
import { test } from 'node:test';
import { literalCalls, parseTemplate, renderTemplate, stringArg, TemplateError } from '../../src/lang/gotemplate/index.js';

const funcs = {
  param: (n: unknown) => ({ name: 'web', port: 8080, list: ['a', 'b'], map: { y: 2, x: 1 } })[String(n) as 'name'],
  upper: (s: unknown) => String(s).toUpperCase(),
  strict: (s: unknown) => stringArg(s),
};
const r = (src: string, dot: unknown = null) => renderTemplate(src, funcs, dot);

test('text, actions, raw and quoted strings, pipelines', () => {
  assert.equal(r('plain'), 'plain');
  assert.equal(r('{{param `name`}}:{{param "port"}}'), 'web:8080');
  assert.equal(r('{{param `name` | upper}}'), 'WEB');
  assert.equal(r('{{printf "%s-%d-%q" "a" 3 "b"}}'), 'a-3-"b"');
  assert.equal(r('{{(param `name`) | len}}'), '3');
  assert.equal(r('{{param `list`}} {{param `map`}}'), '[a b] map[x:1 y:2]');
});

test('trim markers and comments', () => {
  assert.equal(r('a  {{- "b" -}}  c{{/* gone */}}'), 'abc');
});

test('if / else if / else, with, range, variables, comparisons', () => {
  assert.equal(r('{{if eq (param `port`) 80}}a{{else if gt (param `port`) 1000}}b{{else}}c{{end}}'), 'b');
  assert.equal(r('{{if and true (not false)}}y{{end}}{{if ""}}n{{end}}'), 'y');
  assert.equal(r('{{range $i, $v := param `list`}}{{$i}}={{$v}};{{end}}'), '0=a;1=b;');
  assert.equal(r('{{range $k, $v := param `map`}}{{$k}}{{$v}}{{end}}'), 'x1y2');
  assert.equal(r('{{range .}}x{{else}}empty{{end}}', []), 'empty');
  assert.equal(r('{{$x := param `name`}}{{$x}}{{with param `port`}}:{{.}}{{end}}'), 'web:8080');
  assert.equal(r('{{.a.b}} {{index . "a" "b"}}', { a: { b: 'deep' } }), 'deep deep');
});

test('errors carry an offset', () => {
  const offsetOf = (src: string) => {
    try {
      r(src);
    } catch (e) {
      if (e instanceof TemplateError) return e.offset;
      throw e;
    }
    return -1;
  };
  assert.equal(offsetOf('abc {{nope 1}}'), 6);
  assert.equal(offsetOf('{{if true}}x'), 2);
  assert.equal(offsetOf('ab {{"open'), 3);
  assert.throws(() => r('{{end}}'), /unexpected \{\{end\}\}/);
});

test('literalCalls finds lookups in every branch', () => {
  const calls = literalCalls(parseTemplate('{{if false}}{{lookup `a.b.c`}}{{else}}{{lookup "d.e.f" | printf "%s"}}{{end}}'), 'lookup');
  assert.deepEqual(calls.map((c) => c.arg), ['a.b.c', 'd.e.f']);
});

// As Go's fmt and text/template print them (checked against converge's templates).
test('printf marks a mismatched, missing or extra argument as Go does', () => {
  assert.equal(r('{{printf "%d" "3"}}'), '%!d(string=3)');
  assert.equal(r('{{printf "%t|%s" "true" 1}}'), '%!t(string=true)|%!s(int=1)');
  assert.equal(r('{{printf "%s"}}'), '%!s(MISSING)');
  assert.equal(r('{{printf "%s" "a" 2}}'), 'a%!(EXTRA int=2)');
  assert.equal(r('{{printf "%x %v %q" 255 (param `list`) "x"}}'), 'ff [a b] "x"');
});

test('a function given the wrong type of argument is a template error, not "error calling"', () => {
  assert.throws(() => r('{{strict (param `list`)}}'), (e: unknown) => e instanceof TemplateError && e.message === 'wrong type for value; expected string; got []string');
  assert.throws(() => r('{{strict 3}}'), /expected string; got int/);
  assert.equal(r('{{strict "ok"}}'), 'ok');
});

test('a function called without arguments can be followed by fields of its result', () => {
  const withInfo = { ...funcs, info: () => ({ OS: 'linux', Nested: { Name: 'x' } }) };
  assert.equal(renderTemplate('{{info.OS}}/{{info.Nested.Name}}', withInfo), 'linux/x');
  assert.throws(() => renderTemplate('{{info.OS.More}}', withInfo), /can't evaluate field More in linux/);
});

test('printf widths, precision and flags; print spacing; html, js and urlquery as Go writes them', () => {
  assert.equal(r('[{{printf `%5.2f` 2.5}}] [{{printf `%-4s|` `ab`}}] [{{printf `%03d` 7}}] [{{printf `%.2s` `abc`}}] [{{printf `%4d` -3}}]'), '[ 2.50] [ab  |] [007] [ab] [  -3]');
  assert.equal(r('{{print 1 2}}|{{print `a` 1 2 `b`}}'), '1 2|a1 2b');
  assert.equal(r("{{html `<a href='x'>&</a>`}}|{{js `it's \"q\" <b>=`}}|{{urlquery `a&b c/d`}}"), '&lt;a href=&#39;x&#39;&gt;&amp;&lt;/a&gt;|it\\\'s \\"q\\" \\u003Cb\\u003E\\u003D|a%26b+c%2Fd');
});

test('eq and ne refuse values of different kinds, as Go does', () => {
  assert.equal(r('{{eq 1 1}} {{eq `a` `b` `a`}} {{ne true false}}'), 'true true true');
  assert.throws(() => r('{{eq 1 `1`}}'), /incompatible types for comparison/);
  assert.throws(() => r('{{ne `x` 2}}'), /incompatible types for comparison/);
});
