/**
 * The sweep: small programs run step by step through cairn and compared with what converge printed for the
 * same steps (recorded from the real binary; see sweep-lib.ts for the layout and sweep-record.ts to record).
 * The cases run in-process through the one golden harness (test/harness/golden.ts), which also finds
 * orphans: an `N-VERB.txt` no step reads, a folder that is not a program. The expected files come from
 * converge, so CAIRN_ACCEPT never rewrites them.
 */
import assert from 'node:assert/strict';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { assertNoStack, cairn } from '../../cli/cli-helpers.js';
import { goldenSuite } from '../../harness/golden.js';
import { materialize, normalize, outName, type Recorded, steps, SWEEP, workDir } from './sweep-lib.js';

// Every program runs in the same work dir, emptied after each: runs in one working directory share one
// reading of this machine's facts (test/cli/cli-helpers.ts), where a fresh dir per program would read
// them again for each. The dir is gone when the process ends.
const WORK = workDir();
process.on('exit', () => rmSync(WORK, { recursive: true, force: true }));

goldenSuite({
  title: 'converge sweep',
  root: SWEEP,
  recorded: true,
  expected: (n) => n === 'recorded.json' || /^\d+-[a-z]+(\.cairn)?\.txt$/.test(n),
  run: ({ name }, expect) => {
    const recorded = expect.jsonOf('recorded.json') as Recorded[];
    const dir = materialize(name, WORK);
    try {
      steps(name).forEach((step, i) => {
        const want = recorded[i];
        assert.equal(want?.step, step.line, `${name}: recorded.json does not match steps`);
        const r = cairn(['converge', step.verb, join(dir, 'main.hcl'), ...step.args, '--state-dir', join(dir, '.cairn-state')], { cwd: dir });
        assertNoStack(r.stderr);
        // converge's recording, or cairn's own text where it differs on purpose (the recording stays beside it).
        const theirs = outName(i, step);
        const ours = theirs.replace(/\.txt$/, '.cairn.txt');
        const recordedText = expect.textOf(theirs);
        const text = (expect.has(ours) ? expect.textOf(ours) : recordedText) ?? assert.fail(`${name}: ${theirs} is missing`);
        const expected = { text: text.replaceAll('@DIR@', dir), code: want?.cairnCode ?? want?.code };
        assert.equal(normalize(r.stdout, step.verb), normalize(expected.text, step.verb), `${name} step ${i + 1} (${step.line}) output`);
        assert.equal(r.code, expected.code, `${name} step ${i + 1} (${step.line}) exit code\n${r.stderr}`);
        // A load failure: converge prints nothing on stdout; cairn gives a positioned diagnostic.
        if (want?.fatal !== undefined && expected.text === '') assert.match(r.stderr, /^.+:\d+:\d+: [A-Z]+\d+ /m, `${name} step ${i + 1}: positioned diagnostic`);
      });
    } finally {
      for (const entry of readdirSync(dir)) rmSync(join(dir, entry), { recursive: true, force: true });
    }
  },
});
