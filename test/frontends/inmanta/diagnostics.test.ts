// The built CLI on models that fail: every error is a positioned diagnostic with its source line, exit 1.
// Where the real compiler reports no location (an incomplete object, an empty optional read by a plugin
// argument) the diagnostic points at the constructor or the read, so the user sees where to look.
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { assertNoStack, cairn } from '../../cli/cli-helpers.js';

const FIXTURES = resolve(import.meta.dirname, '../../fixtures/inmanta');

function compile(name: string): { code: number | null; stderr: string } {
  const dir = join(FIXTURES, name);
  const r = cairn(['inmanta', 'compile', dir]);
  assertNoStack(r.stderr);
  return { code: r.code, stderr: r.stderr.split(`${dir}/`).join('') };
}

test('an incomplete object is shown at its constructor, with the code frame', () => {
  const r = compile('err-unset');
  assert.equal(r.code, 1);
  assert.match(r.stderr, /main\.cf:5:5: UnsetException The object __config__::A \(instantiated at main\.cf:5\) is not complete: attribute n \(main\.cf:2:10\) is not set\n 5 \| a = A\(\)\n +\| +\^/);
});

test('two incomplete objects: one positioned diagnostic each', () => {
  const r = compile('err-multi');
  assert.equal(r.code, 1);
  assert.match(r.stderr, /main\.cf:5:1: UnsetException/);
  assert.match(r.stderr, /main\.cf:6:1: UnsetException/);
});

test('an empty optional read by a plugin argument is shown where it is read', () => {
  const r = compile('err-opt');
  assert.equal(r.code, 1);
  assert.match(r.stderr, /main\.cf:6:12: OptionalValueException Optional variable accessed that has no value/);
  assert.match(r.stderr, /\n 6 \| std::print\(a\.b\)\n/);
});

test('a template error names the template file, line and column under the plugin call', () => {
  const r = compile('template-syntax-error');
  assert.equal(r.code, 1);
  assert.match(r.stderr, /main\.cf:3:11: ExternalException Exception in plugin std::template\ncaused by: libs\/web\/templates\/bad\.j2:2:\d+: .*\n 3 \| content = std::template\("web\/bad\.j2"\)/);
  const u = compile('template-undefined');
  assert.match(u.stderr, /main\.cf:2:11: WrappingRuntimeException Exception in plugin std::template\ncaused by: libs\/web\/templates\/t\.j2:2:\d+: 'missing' is undefined/);
});

test('a file path leading out of the module files folder is refused', () => {
  const r = compile('file-path-escape');
  assert.equal(r.code, 1);
  assert.match(r.stderr, /main\.cf:2:12: ExternalException Exception in plugin std::source\ncaused by: web\/\.\.\/\.\.\/\.\.\/secret\.txt is outside the files directory of module web/);
  assert.doesNotMatch(r.stderr, /secret\n/);
});

test('python plugins without a python interpreter: a clear error at the module plugins, nothing else runs', () => {
  const dir = join(FIXTURES, 'py-plugin-basic');
  const r = cairn(['inmanta', 'compile', dir], { env: { CAIRN_PYTHON: join(dir, 'no-such-python') } });
  assertNoStack(r.stderr);
  assert.equal(r.code, 1);
  const err = r.stderr.split(`${dir}/`).join('');
  assert.match(err, /libs\/util\/plugins\/__init__\.py:1:1: CompilerException Unable to load all plug-ins for module util:\n\t.*no-such-python was not found on PATH; plugins written in Python need it/);
  assert.equal(r.stdout, '');
});

test('a python plugin that raises: the plugin is named at the call, the Python exception is the cause', () => {
  const r = compile('py-plugin-raises');
  assert.equal(r.code, 1);
  assert.match(r.stderr, /main\.cf:2:5: ExternalException Exception in plugin util::check\ncaused by: ValueError: negative: -1\n 2 \| x = util::check\(-1\)/);
});

test('an implementation that constructs its own entity endlessly stops at the instance budget with a positioned error', () => {
  const dir = join(FIXTURES, 'runaway-implementation');
  const r = cairn(['inmanta', 'compile', dir], { env: { CAIRN_INMANTA_MAX_INSTANCES: '500' } });
  assertNoStack(r.stderr);
  assert.equal(r.code, 1);
  const err = r.stderr.split(`${dir}/`).join('');
  assert.match(err, /^main\.cf:5:5: RuntimeException The model constructs more than 500 instances: an implementation that keeps constructing its own entity never ends \(__config__::A constructed again, here by the implementation of __config__::A \(instantiated at main\.cf:5\)\)/);
  assert.match(err, /\n 5 \|     A\(\)\n/);
});

test('a python plugin result of the wrong type: the plugin at the call, the type check as the cause', () => {
  const r = compile('sweep-pyp-none-for-string');
  assert.equal(r.code, 1);
  assert.match(r.stderr, /main\.cf:2:5: WrappingRuntimeException Exception in plugin p::none_for_string\ncaused by: Invalid value 'null', expected string\n/);
});
