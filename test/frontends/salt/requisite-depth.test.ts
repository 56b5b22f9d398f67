/**
 * A chain of states each requiring the next runs depth first, as Salt's call_chunk does; past a fixed
 * depth the run stops with a positioned S204 (Salt stops with RecursionError), never a stack overflow.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { MAX_REQUISITE_NESTING } from '../../../src/frontends/salt/run/index.js';
import { hasRequisites } from '../../../src/frontends/salt/run/salt-state.js';
import { cairn, tempDir } from '../../cli/cli-helpers.js';

/** States s1 … sN, each requiring the one after it, so the first one runs them all from inside its call. */
function chain(n: number): string {
  const dir = join(tempDir(), `chain${n}`);
  mkdirSync(dir, { recursive: true });
  let sls = '';
  for (let k = 1; k <= n; k++) sls += `s${k}:\n  test.nop:\n${k < n ? `    - require:\n      - test: s${k + 1}\n` : '    []\n'}`;
  writeFileSync(join(dir, 'bench.sls'), sls);
  writeFileSync(join(dir, 'top.sls'), "base:\n  '*':\n    - bench\n");
  return dir;
}

test('a chain as deep as the limit runs, innermost state first', () => {
  const dir = chain(MAX_REQUISITE_NESTING);
  const r = cairn(['salt', 'state.apply', 'test=True', '--file-root', dir, '--state-dir', join(dir, 'state'), '--out', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const ran = JSON.parse(r.stdout).local as Record<string, { __run_num__: number }>;
  assert.equal(Object.keys(ran).length, MAX_REQUISITE_NESTING);
  assert.equal(ran[`test_|-s${MAX_REQUISITE_NESTING}_|-s${MAX_REQUISITE_NESTING}_|-nop`]?.__run_num__, 0);
  assert.equal(ran['test_|-s1_|-s1_|-nop']?.__run_num__, MAX_REQUISITE_NESTING - 1);
});

test('one state deeper stops the run with S204 at that state, printing no return', () => {
  const n = MAX_REQUISITE_NESTING + 1;
  const dir = chain(n);
  const r = cairn(['salt', 'state.apply', 'test=True', '--file-root', dir, '--state-dir', join(dir, 'state'), '--out', 'json']);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, '');
  assert.ok(r.stderr.startsWith(`${join(dir, 'bench.sls')}:${4 * n - 3}:1: S204 requisites nest more than ${MAX_REQUISITE_NESTING} states deep at ID 's${n}' in SLS 'bench'`), r.stderr);
  assert.doesNotMatch(r.stderr, /internal error|RangeError|at .*\.js:\d+/);
});

test('hasRequisites is true for a chunk with any requisite check_requisite looks at, and only then', () => {
  const base = { state: 'test', fun: 'nop', name: 'x', __id__: 'x', __sls__: 's', __env__: 'base', order: 10000 };
  assert.equal(hasRequisites(base), false);
  for (const key of ['require', 'require_any', 'watch', 'watch_any', 'prereq', 'onfail', 'onfail_any', 'onfail_all', 'onchanges', 'onchanges_any', 'prerequired']) {
    assert.equal(hasRequisites({ ...base, [key]: [] }), true, key);
  }
  for (const key of ['listen', 'listen_in', 'use', 'require_in', 'watch_in', 'onfail_stop', 'prereq_in', '__prereq__']) {
    assert.equal(hasRequisites({ ...base, [key]: [] }), false, key);
  }
});
