/**
 * The sweep: small programs run step by step through cairn and compared with what converge printed for the
 * same steps (recorded from the real binary; see sweep-lib.ts for the layout and sweep-record.ts to record).
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { assertNoStack, cairn } from '../../cli/cli-helpers.js';
import { expectedFor, fixtures, materialize, normalize, type Recorded, steps, SWEEP } from './sweep-lib.js';

for (const name of fixtures()) {
  test(`converge sweep ${name}`, () => {
    const recorded = JSON.parse(readFileSync(join(SWEEP, name, 'recorded.json'), 'utf8')) as Recorded[];
    const dir = materialize(name);
    try {
      steps(name).forEach((step, i) => {
        const want = recorded[i];
        assert.equal(want?.step, step.line, `${name}: recorded.json does not match steps`);
        const r = cairn(['converge', step.verb, join(dir, 'main.hcl'), ...step.args, '--state-dir', join(dir, '.cairn-state')], { cwd: dir });
        assertNoStack(r.stderr);
        const expected = expectedFor(name, i, step, want, dir);
        assert.equal(normalize(r.stdout, step.verb), normalize(expected.text, step.verb), `${name} step ${i + 1} (${step.line}) output`);
        assert.equal(r.code, expected.code, `${name} step ${i + 1} (${step.line}) exit code\n${r.stderr}`);
        // A load failure: converge prints nothing on stdout; cairn gives a positioned diagnostic.
        if (want?.fatal !== undefined && expected.text === '') assert.match(r.stderr, /^.+:\d+:\d+: [A-Z]+\d+ /m, `${name} step ${i + 1}: positioned diagnostic`);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

describe('converge sweep layout', () => {
  test('there are recorded programs', () => {
    assert.ok(fixtures().length > 0);
  });
});
