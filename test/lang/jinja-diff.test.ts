/** Differential test: renders the whole corpus with CPython Jinja2 (render.py) and with cairn, case by case. */

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { type CaseResult, FIXTURES, loadCorpus, mismatch, renderCase } from './jinja-corpus.js';

function oracleMissing(): string | undefined {
  const probe = spawnSync('python3', ['-c', 'import jinja2, yaml; print(jinja2.__version__)'], { encoding: 'utf8' });
  if (probe.error) return 'python3 is not installed';
  if (probe.status !== 0) return 'python3 lacks jinja2 (or PyYAML)';
  return undefined;
}

const missing = oracleMissing();

test('corpus renders the same as CPython Jinja2', { skip: missing ? `skipped: ${missing}; the differential Jinja test needs CPython Jinja2` : false }, () => {
  const run = spawnSync('python3', [join(FIXTURES, 'render.py')], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  assert.equal(run.status, 0, `render.py failed: ${run.stderr}`);
  const oracle = JSON.parse(run.stdout) as Record<string, CaseResult>;
  const cases = loadCorpus();
  assert.ok(cases.length >= 300);
  const failures: string[] = [];
  let messageDiffs = 0;
  for (const c of cases) {
    const want = oracle[c.name];
    assert.ok(want, `oracle has no result for ${c.name}`);
    const got = renderCase(c);
    const m = mismatch(c, want, got);
    if (m) failures.push(m);
    else if ('error' in want && 'error' in got) {
      const ours = got.error.replace(/^\S+: JINJA\d+ /, '');
      if (!want.error.endsWith(ours)) messageDiffs++;
    }
  }
  if (messageDiffs > 0) console.log(`note: ${messageDiffs} error cases fail with a differently worded message`);
  assert.equal(failures.length, 0, `${failures.length} of ${cases.length} cases differ from Jinja2:\n${failures.join('\n')}`);
});
