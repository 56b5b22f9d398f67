/**
 * The seed's effect-reference example (names fixed, input made deterministic). converge itself cannot load
 * it (`function "results" not defined`), so the expected text follows the seed: a plan shows the node that
 * uses `results` as `Unresolvable`, does not count it as a change and adds the trailing line; a healthcheck
 * puts it in a warning state; an apply renders it from what the apply printed.
 */
import assert from 'node:assert/strict';
import { copyFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cairn } from '../../cli/cli-helpers.js';
import { FIX, tempDir } from './fixture-helpers.js';

const F = join(FIX, 'seed-effect');

test('the seed effect-reference example: unresolvable in plan and healthcheck, rendered by apply', () => {
  const dir = tempDir();
  copyFileSync(join(F, 'main.hcl'), join(dir, 'main.hcl'));
  const run = (verb: string) => cairn(['converge', verb, 'main.hcl', '--state-dir', join(dir, '.state')], { cwd: dir });
  const steps: Array<[string, string]> = [
    ['plan', 'plan.txt'],
    ['healthcheck', 'health.txt'],
    ['apply', 'apply.txt'],
    ['plan', 'replan.txt'],
  ];
  for (const [verb, file] of steps) {
    const r = run(verb);
    assert.equal(r.stdout, readFileSync(join(F, file), 'utf8'), `${verb} (${file})`);
    assert.equal(r.code, 0, r.stderr);
    if (file === 'plan.txt') assert.deepEqual(readdirSync(dir).sort(), ['.state', 'main.hcl']);
  }
  const hash = '900150983cd24fb0d6963f7d28e17f72';
  assert.equal(readFileSync(join(dir, `checksum-${hash}`), 'utf8'), hash);
  assert.equal(readFileSync(join(dir, 'random.md5'), 'utf8'), hash);
});

test('plan --detailed-exitcode counts an unresolvable node as something that may change', () => {
  const dir = tempDir();
  copyFileSync(join(F, 'main.hcl'), join(dir, 'main.hcl'));
  cairn(['converge', 'apply', 'main.hcl', '--state-dir', join(dir, '.state')], { cwd: dir });
  const r = cairn(['converge', 'plan', 'main.hcl', '--detailed-exitcode', '--state-dir', join(dir, '.state')], { cwd: dir });
  assert.match(r.stdout, /Summary: 0 errors, 0 changes\n1 node\(s\) depend on effectful results and may change\n$/);
  assert.equal(r.code, 2);
});
