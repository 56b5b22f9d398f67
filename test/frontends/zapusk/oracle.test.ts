// Differential test against zapusk-tool (pavelvasev/zapusk-tool on Debian's ruby), kept outside the
// repository: set ZAPUSK_TOOL to its src.v1/zapusk.rb. Skipped with a message when it is absent.
// Every fixture case runs through both; stdout must match line for line once colours, timings and paths
// are normalised. Known, intended differences are left out of the comparison: the text of an error line
// (ours says what and where in our words, the tool's is its Ruby exception text), our exit code for an error is 1 where the tool's is 5, and the lines we add (the list of files
// written and commands run, and the count line) are ours only. A case whose output differs on purpose
// (the seed decides where the tool disagrees) says why in its differs.txt and is compared by its goldens only.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { caseEnv, caseNames, FIXTURES, normalize, readRuns, runTool, runZapusk } from './zapusk-helpers.js';
import { isOurLine } from './zapusk-helpers.js';

const TOOL = process.env.ZAPUSK_TOOL ?? '';
const ruby = spawnSync('ruby', ['--version'], { encoding: 'utf8' });
const skip = TOOL === '' || !existsSync(TOOL) ? 'no zapusk-tool: set ZAPUSK_TOOL to its src.v1/zapusk.rb to run this test' : ruby.status !== 0 ? 'ruby is not installed' : false;
if (skip) console.log(`# SKIPPED zapusk-tool differential tests: ${skip}`);

function comparable(text: string): string {
  return text
    .replace(/\x1b\[[0-9;]*m/g, '')
    .split('\n')
    .filter((l) => !isOurLine(l))
    .map((l) => (l.startsWith('*** ERROR: ') ? '*** ERROR: (text)' : l))
    .join('\n');
}

for (const name of caseNames()) {
  const caseDir = join(FIXTURES, name);
  const differs = existsSync(join(caseDir, 'differs.txt')) ? readFileSync(join(caseDir, 'differs.txt'), 'utf8').trim() : undefined;
  test(`zapusk-tool agrees on fixture ${name}`, { skip: skip || (differs !== undefined && `differs on purpose: ${differs}`) }, () => {
    const ours = caseEnv(caseDir);
    const theirs = caseEnv(caseDir);
    try {
      const oursRuns = readRuns(caseDir, ours);
      readRuns(caseDir, theirs).forEach((run, i) => {
        if (run.args.includes('--dry-run') || run.args[1] === 'plan') return;
        const mine = runZapusk(oursRuns[i]?.args ?? [], ours);
        const tool = runTool(TOOL, run.args, theirs);
        const where = `${name} run ${i + 1}`;
        assert.equal(comparable(normalize(mine.stdout, ours)), comparable(tool.out), where);
        assert.equal(mine.code === 0, tool.code === 0, `${where}: success`);
      });
    } finally {
      rmSync(ours.tmp, { recursive: true, force: true });
      rmSync(theirs.tmp, { recursive: true, force: true });
    }
  });
}
