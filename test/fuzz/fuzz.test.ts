/**
 * Seeded, bounded fuzzing of every front end's loader: mutations of the valid fixtures (byte flips,
 * deletions, duplications, deep nesting, huge numbers, binary garbage) go through the same in-process
 * load/compile function the command uses. Each input must load or be refused with positioned
 * diagnostics: never an internal error, never a diagnostic without file:line:col, never a hang (a
 * watchdog stops an input that gives no answer for a long time and fails the test with its case).
 *
 * FUZZ_COUNT=N changes the number of inputs per front end (500 by default; FUZZ_COUNT=5000 for a long
 * run), FUZZ_SEED=N the seed; FUZZ_ONLY=target:i runs one case (the failure message names it).
 *
 * Why 500: input i depends only on (seed, i), so the default run is the first 500 inputs of any longer
 * run. Each input picks a seed file and a first mutation (one of 9 kinds); the first 500 inputs of seed 14
 * reach 96 to 100% of those (file, mutation) pairs per front end (graph 27/27, converge 54/54, zapusk
 * 104/108, otter 63/63, inmanta 78/81, salt 114/117); the first 1000 reach all of them.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import { workerBoot } from '../harness/compiled.js';
import type { Job, Message } from './worker.js';
import { targets } from './targets.js';

const COUNT = Number(process.env.FUZZ_COUNT ?? 500);
const SEED = Number(process.env.FUZZ_SEED ?? 14);
const ONLY = process.env.FUZZ_ONLY?.split(':');
/** An input with no answer after this long is a hang (normal inputs take milliseconds). */
const WATCHDOG_MS = 20_000;

interface Outcome {
  ran: number;
  refused: number;
  problems: string[];
}

function fuzz(job: Job): Promise<Outcome> {
  return new Promise((resolvePromise, reject) => {
    const boot = workerBoot(join(import.meta.dirname, 'worker.ts'));
    // A model that keeps constructing (an implementation instantiating its own entity, as mutations
    // make) ends at the instance budget; fuzz inputs are small, so a small budget ends them quickly.
    const worker = new Worker(boot, { eval: true, workerData: job, env: { ...process.env, CAIRN_INMANTA_MAX_INSTANCES: '20000' } });
    const out: Outcome = { ran: 0, refused: 0, problems: [] };
    let current: Extract<Message, { t: 'start' }> | undefined;
    let timer: NodeJS.Timeout | undefined;
    const finish = (): void => {
      clearTimeout(timer);
      resolvePromise(out);
    };
    worker.on('message', (m: Message) => {
      if (m.t === 'start') {
        current = m;
        clearTimeout(timer);
        timer = setTimeout(() => {
          out.problems.push(`${job.target}:${m.i} (${m.what}, in ${m.dir}): no answer after ${WATCHDOG_MS / 1000} s`);
          void worker.terminate().then(finish);
        }, WATCHDOG_MS);
      } else if (m.t === 'done') {
        clearTimeout(timer);
        out.ran++;
        if (m.refused) out.refused++;
        if (m.problem) out.problems.push(`${job.target}:${m.i} (${current?.what}): ${m.problem}`);
      } else finish();
    });
    worker.on('error', (e) => {
      clearTimeout(timer);
      out.problems.push(`${job.target}:${current?.i} (${current?.what}): the worker died: ${e.message}`);
      resolvePromise(out);
    });
    worker.on('exit', (code) => {
      if (code !== 0 && out.problems.length === 0) reject(new Error(`fuzz worker exited with ${code}`));
      finish();
    });
  });
}

// The front ends are fuzzed side by side, each in its own worker.
describe('fuzz', { concurrency: 3 }, () => {
  for (const t of targets) {
    if (ONLY && ONLY[0] !== t.name) continue;
    test(`fuzz ${t.name}: ${ONLY ? `case ${ONLY[1]}` : `${COUNT} mutated inputs`} (seed ${SEED})`, async () => {
      const r = await fuzz({ target: t.name, seed: SEED, count: ONLY ? Number(ONLY[1]) + 1 : COUNT, ...(ONLY ? { only: Number(ONLY[1]) } : {}) });
      assert.deepEqual(r.problems.slice(0, 10), [], `${r.problems.length} problem(s)`);
      assert.equal(r.ran, ONLY ? 1 : COUNT, 'every input ran');
      if (!ONLY) {
        // The mutations reach both sides: inputs that still load and inputs that are refused.
        assert.ok(r.refused > 0 && r.refused < r.ran, `${r.refused} of ${r.ran} inputs refused`);
      }
    });
  }
});
