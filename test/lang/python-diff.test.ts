// The Python value library (src/lang/python) against CPython itself: float repr, PyYAML's implicit
// resolver and block emitter, and fnmatch, on a corpus of boundary values. Needs python3 with PyYAML
// (Debian's python3-yaml); without them the test skips with one loud line.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { floatRepr } from '../../src/lang/python/float.js';
import { fnmatch } from '../../src/lang/python/fnmatch.js';
import { dumpYaml } from '../../src/lang/python/yaml-emit.js';
import { needsQuotes } from '../../src/lang/python/yaml-resolve.js';

const PYTHON = process.env.PYTHON ?? 'python3';
const probe = spawnSync(PYTHON, ['-c', 'import yaml, fnmatch'], { encoding: 'utf8' });
const skip = probe.status === 0 ? false : `python3 with PyYAML is not available (${PYTHON}): the differential test of src/lang/python did not run`;
if (skip) console.log(`SKIP: ${skip}`);

const ORACLE = `
import json, sys, yaml, fnmatch
from yaml.resolver import Resolver
corpus = json.load(sys.stdin)
r = Resolver()
out = {
  'floats': [repr(float.fromhex(h)) for h in corpus['floats']],
  'quoted': [r.resolve(yaml.ScalarNode, s, (True, False)) != 'tag:yaml.org,2002:str' for s in corpus['scalars']],
  'dumps': [yaml.safe_dump(v, default_flow_style=False, allow_unicode=True) for v in corpus['documents']],
  'globs': [fnmatch.fnmatchcase(n, p) for n, p in corpus['globs']],
}
json.dump(out, sys.stdout)
`;

/** Floats go to Python as hex so both sides hold exactly the same double. */
function hex(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0x0p+0' : '0x0p+0';
  const buf = Buffer.alloc(8);
  buf.writeDoubleBE(x);
  const bits = buf.readBigUInt64BE();
  const sign = bits >> 63n ? '-' : '';
  const exp = Number((bits >> 52n) & 0x7ffn);
  const mant = (bits & ((1n << 52n) - 1n)).toString(16).padStart(13, '0');
  return exp === 0 ? `${sign}0x0.${mant}p-1022` : `${sign}0x1.${mant}p${exp - 1023}`;
}

const floats = [
  0.1, 0.2, 0.1 + 0.2, 1 / 3, -0, 0, 1, -1, 1e-4, 1e-5, 0.00012345, 9.999e-5, 1e15, 1e16, 9999999999999998, 1.5e16, 123456789012345680,
  1e22, 1e21, 1e-7, 5e-324, 1.7976931348623157e308, 2.5, 100, 1e100, -1e-300, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY,
  0.000123, 12345.678, 4.35, 2 ** 53, 2 ** 53 + 2, 1e-320,
];
const scalars = [
  'y', 'n', 'Y', 'N', 'yes', 'No', 'ON', 'off', 'true', 'False', '~', 'null', 'Null', 'NULL', '', '=', '<<', '1e3', '1.0e3', '1.0e+3', '.5', '+.inf', '.NaN',
  '0o7', '012', '0x1F', '0b101', '1_000', '1:20', '1:20.5', '-1:20', '2001-01-01', '2001-1-1 10:00:00', '2001-01-01T10:00:00Z', 'abc', '0', '-0', '+1', '1.',
  '.', '._', '1__', 'yes please', 'nan', 'inf', '.inf', '0.', '190:20:30',
];
const documents: unknown[] = [
  { a: 1, b: [1, 2, { c: 'x' }], d: null, e: true, f: 'yes', g: '', h: 'multi\nline\n', i: 'trailing ', j: "it's", k: 'a: b', l: '#c', m: 2.5 },
  ['y', 'n', 'on', '~', '012', '0o7', '- x', '?', '-', 'x #y', 'x#', '@at', '`tick', '%pct', '!bang', '&amp', '*star', '|bar', '>gt'],
  { 'key with spaces': { nested: { deeper: ['a', ['b', 'c'], {}] } }, empty_list: [], empty_map: {}, 'z': 'é ü 日本', 'tab\there': 'x\ty' },
  { long: 'word '.repeat(40).trim(), ctrl: 'bell\u0007', nbsp: 'a\u00a0b', quote: '"q"', backslash: 'a\\b', colon_end: 'x:', 'ends:': 'colon key' },
  [0.1, 1e-7, 2.5e-22, -0.5, 123456789, -3],
];
const globs: Array<[string, string]> = [
  ['a', '[^a]'], ['^', '[^a]'], ['b', '[!a]'], [']', '[]]'], ['a', '[]a]'], ['x', '[!]]'], [']', '[!]]'], ['a', '[z-a]'], ['qx', '[!z-a]x'], ['-', 'a[b-]'], ['a-', 'a[b-]'],
  ['d', '[a-c-e]'], ['-', '[a-c-e]'], ['e', '[a-c-e]'], ['\\x', '\\*'], ['[', '['], ['[a', '[a'], ['web1', 'web*'], ['web1', 'web?'], ['web12', 'web?'],
  ['a.b', 'a?b'], ['a\nb', 'a*b'], ['foo.sls', '*.sls'], ['ab', 'a**b'], ['a]', 'a]'], ['-', '[-a]'], ['a', '[-a]'], ['b', '[--a]'], ['.', '[!.]'],
  ['/', '*'], ['Web1', 'web*'], ['x', '[x-]'], ['é', '[é]'], ['a', '[\\]a]'], ['\\', '[\\]a]'],
];

test('src/lang/python matches CPython: float repr, YAML 1.1 resolve and emit, fnmatch', { skip }, () => {
  const corpus = { floats: floats.map(hex), scalars, documents, globs };
  const r = spawnSync(PYTHON, ['-c', ORACLE], { input: JSON.stringify(corpus), encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const want = JSON.parse(r.stdout) as { floats: string[]; quoted: boolean[]; dumps: string[]; globs: boolean[] };
  assert.deepEqual(floats.map(floatRepr), want.floats);
  assert.deepEqual(scalars.map((s) => [s, needsQuotes(s)]), scalars.map((s, i) => [s, want.quoted[i]]));
  documents.forEach((d, i) => assert.equal(dumpYaml(d), want.dumps[i], `document ${i}`));
  assert.deepEqual(globs.map(([n, p]) => [n, p, fnmatch(n, p)]), globs.map(([n, p], i) => [n, p, want.globs[i]]));
});

test('a whole number past 2**53 is written with its exact digits, as Python prints an int', () => {
  assert.equal(dumpYaml([2 ** 60]), '- 1152921504606846976\n');
});
