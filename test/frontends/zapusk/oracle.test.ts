// Differential test against zapusk-tool (pavelvasev/zapusk-tool on Debian's ruby), kept outside the
// repository: set ZAPUSK_TOOL to its src.v1/zapusk.rb. Skipped with a message when it is absent.
// Both run the same fixture programs; stdout must match line for line once colours, timings and paths
// are normalised. Known, intended differences: our error line names the step, our exit code for an
// error is 1 where the tool's is 5, and guard (the tool hands a second user's command to the first user's
// program, which the spec does not have) is left out.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { caseEnv, FIXTURES, normalize, readRuns, runZapusk, toolArgs } from './zapusk-helpers.js';

const TOOL = process.env.ZAPUSK_TOOL ?? '';
const ruby = spawnSync('ruby', ['--version'], { encoding: 'utf8' });
const skip = TOOL === '' || !existsSync(TOOL) ? 'no zapusk-tool: set ZAPUSK_TOOL to its src.v1/zapusk.rb to run this test' : ruby.status !== 0 ? 'ruby is not installed' : false;

/** A root run: no variables of an enclosing zapusk run (the tool treats a set ZAPUSK_PADDING as nested). */
function rootEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('ZAPUSK_')) delete env[k];
  return env;
}

function comparable(text: string): string {
  return text
    .replace(/\x1b\[[0-9;]*m/g, '')
    .split('\n')
    .map((l) => (l.startsWith('*** ERROR: ') ? l.replace(/ \(step \[.*$/, '') : l))
    .join('\n');
}

for (const name of ['basic', 'steps', 'nested', 'files', 'failing', 'args', 'run']) {
  test(`zapusk-tool agrees on fixture ${name}`, { skip }, () => {
    const caseDir = join(FIXTURES, name);
    const ours = caseEnv(caseDir);
    const theirs = caseEnv(caseDir);
    try {
      const oursRuns = readRuns(caseDir, ours);
      readRuns(caseDir, theirs).forEach((run, i) => {
        const mine = runZapusk(oursRuns[i]?.args ?? [], ours);
        const tool = spawnSync('ruby', [TOOL, ...toolArgs(run.args)], { cwd: theirs.tmp, encoding: 'utf8', env: rootEnv() });
        const where = `${name} run ${i + 1}`;
        assert.equal(comparable(normalize(mine.stdout, ours)), comparable(normalize(tool.stdout, theirs)), where);
        assert.equal(mine.code === 0, tool.status === 0, `${where}: success`);
      });
    } finally {
      rmSync(ours.tmp, { recursive: true, force: true });
      rmSync(theirs.tmp, { recursive: true, force: true });
    }
  });
}
