// Every fixture case: each run's exit code, stdout and stderr against the expected files beside it
// (N.out, N.err), written from what zapusk-tool prints for the same program. CAIRN_ACCEPT=1 rewrites them
// (test/harness/golden.ts). The same runs in zapusk-tool's own argument style
// (`apply --zdb_dir P --state_dir S --a k=v`) must print the same.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { assertNoStack } from '../../cli/cli-helpers.js';
import { goldenSuite } from '../../harness/golden.js';
import { caseEnv, FIXTURES, normalize, readRuns, runZapusk, toolArgs } from './zapusk-helpers.js';

goldenSuite({
  title: 'zapusk fixture',
  root: FIXTURES,
  isCase: (dir) => existsSync(join(dir, 'runs.txt')),
  expected: (name) => /^\d+\.(out|err)$/.test(name),
  run: ({ name, dir }, expect) => {
    const env = caseEnv(dir);
    try {
      const runs = readRuns(dir, env);
      runs.forEach((run, i) => {
        const r = runZapusk(run.args, env);
        const where = `${name} run ${i + 1} (${run.args.slice(1).join(' ')})`;
        assertNoStack(r.stderr);
        expect.text(`${i + 1}.out`, normalize(r.stdout, env), `${where}: stdout`, { absentIsEmpty: true });
        expect.text(`${i + 1}.err`, normalize(r.stderr, env), `${where}: stderr`, { absentIsEmpty: true });
        assert.equal(r.code, run.exit, `${where}: exit code\n${r.stdout}\n${r.stderr}`);
      });
      // The same runs in zapusk-tool's argument style, in a fresh state.
      rmSync(env.tmp, { recursive: true, force: true });
      const tool = caseEnv(dir);
      try {
        readRuns(dir, tool).forEach((run, i) => {
          if (run.args.includes('--lib')) return;
          const r = runZapusk(toolArgs(run.args), tool);
          const where = `${name} run ${i + 1} (${toolArgs(run.args).join(' ')})`;
          expect.text(`${i + 1}.out`, normalize(r.stdout, tool), `${where}: stdout`, { absentIsEmpty: true });
          expect.text(`${i + 1}.err`, normalize(r.stderr, tool), `${where}: stderr`, { absentIsEmpty: true });
          assert.equal(r.code, run.exit, `${where}: exit code`);
        });
      } finally {
        rmSync(tool.tmp, { recursive: true, force: true });
      }
    } finally {
      rmSync(env.tmp, { recursive: true, force: true });
    }
  },
});
