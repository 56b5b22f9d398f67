// Every fixture case: each run's exit code, stdout and stderr against the expected files beside it
// (N.out, N.err), written from what zapusk-tool prints for the same program. ZAPUSK_UPDATE=1 rewrites them.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { assertNoStack } from '../../cli/cli-helpers.js';
import { caseEnv, caseNames, FIXTURES, normalize, readRuns, runZapusk, toolArgs } from './zapusk-helpers.js';

const update = process.env.ZAPUSK_UPDATE === '1';

for (const name of caseNames()) {
  test(`zapusk fixture ${name}`, () => {
    const caseDir = join(FIXTURES, name);
    const env = caseEnv(caseDir);
    try {
      readRuns(caseDir, env).forEach((run, i) => {
        const r = runZapusk(run.args, env);
        const where = `${name} run ${i + 1} (${run.args.slice(1).join(' ')})`;
        assertNoStack(r.stderr);
        const got = { out: normalize(r.stdout, env), err: normalize(r.stderr, env) };
        for (const kind of ['out', 'err'] as const) {
          const file = join(caseDir, `${i + 1}.${kind}`);
          if (update) {
            if (got[kind] !== '') writeFileSync(file, got[kind]);
            else rmSync(file, { force: true });
          } else {
            const want = existsSync(file) ? readFileSync(file, 'utf8') : '';
            assert.equal(got[kind], want, `${where}: std${kind}`);
          }
        }
        assert.equal(r.code, run.exit, `${where}: exit code\n${r.stdout}\n${r.stderr}`);
      });
    } finally {
      rmSync(env.tmp, { recursive: true, force: true });
    }
  });
}

// The same runs in zapusk-tool's own argument style (`apply --zdb_dir P --state_dir S --a k=v`) print the same.
for (const name of caseNames()) {
  test(`zapusk fixture ${name}, zapusk-tool's argument style`, () => {
    const caseDir = join(FIXTURES, name);
    const env = caseEnv(caseDir);
    try {
      readRuns(caseDir, env).forEach((run, i) => {
        if (run.args.includes('--lib')) return;
        const r = runZapusk(toolArgs(run.args), env);
        const where = `${name} run ${i + 1} (${toolArgs(run.args).join(' ')})`;
        for (const kind of ['out', 'err'] as const) {
          const file = join(caseDir, `${i + 1}.${kind}`);
          const want = existsSync(file) ? readFileSync(file, 'utf8') : '';
          assert.equal(normalize(kind === 'out' ? r.stdout : r.stderr, env), want, `${where}: std${kind}`);
        }
        assert.equal(r.code, run.exit, `${where}: exit code`);
      });
    } finally {
      rmSync(env.tmp, { recursive: true, force: true });
    }
  });
}
