// Converge front end against the core's own graph-file run of the same work, whole process against whole
// process, in one run. Run with:
//   npm run build && node bench/converge.mjs [--runs N]
// N = 1,000 file.content nodes: a first apply (files absent), a no-op plan and a no-op apply, each next to
// the same 1,000 files as a core graph file (`cairn apply|plan graph.json`). Commands are timed
// round-robin so that machine load weighs on both alike; the medians and their ratios are printed.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { interleaved as timedRounds } from './timing.mjs';

const root = new URL('..', import.meta.url).pathname;
const cairn = join(root, 'bin/cairn.js');
const N = 1000;
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 5;
const work = mkdtempSync(join(tmpdir(), 'cairn-bench-cv-'));

/** Median wall seconds per case, measured round-robin. */
const interleaved = (cases) => timedRounds(cases, RUNS).map((m) => m.wall);

const hclDir = join(work, 'hcl-files');
const coreDir = join(work, 'core-files');
mkdirSync(hclDir);
mkdirSync(coreDir);
let hcl = '';
const nodes = [];
for (let k = 1; k <= N; k++) {
  hcl += `file.content "f${k}" {\n  destination = "${join(hclDir, `f${k}.txt`)}"\n  content = "line ${k}"\n}\n\n`;
  nodes.push({ id: `f${k}`, type: 'file', params: { path: join(coreDir, `f${k}.txt`), content: `line ${k}`, new_mode: '0600' } });
}
const hclFile = join(work, 'main.hcl');
const graphFile = join(work, 'graph.json');
writeFileSync(hclFile, hcl);
writeFileSync(graphFile, JSON.stringify({ version: 1, nodes }));
const state = join(work, 'state');
const clear = (dir) => () => {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
};

const [coreFirst, cvFirst] = interleaved([
  { argv: [cairn, 'apply', graphFile, '--state-dir', state], before: clear(coreDir) },
  { argv: [cairn, 'converge', 'apply', hclFile, '--state-dir', state], before: clear(hclDir) },
]);
const [corePlan, cvPlan, coreApply, cvApply] = interleaved([
  { argv: [cairn, 'plan', graphFile, '--state-dir', state] },
  { argv: [cairn, 'converge', 'plan', hclFile, '--state-dir', state] },
  { argv: [cairn, 'apply', graphFile, '--state-dir', state] },
  { argv: [cairn, 'converge', 'apply', hclFile, '--state-dir', state] },
]);
rmSync(work, { recursive: true, force: true });

const f = (x) => x.toFixed(3);
const r = (a, b) => (a / b).toFixed(2);
console.log(`N=${N} file.content nodes, median of ${RUNS} runs`);
console.log(`  first apply  core ${f(coreFirst)} s  converge ${f(cvFirst)} s  ratio ${r(cvFirst, coreFirst)}`);
console.log(`  no-op plan   core ${f(corePlan)} s  converge ${f(cvPlan)} s  ratio ${r(cvPlan, corePlan)}`);
console.log(`  no-op apply  core ${f(coreApply)} s  converge ${f(cvApply)} s  ratio ${r(cvApply, coreApply)}`);
console.log(`bench: converge_first_apply_ratio=${r(cvFirst, coreFirst)} converge_plan_ratio=${r(cvPlan, corePlan)} converge_apply_ratio=${r(cvApply, coreApply)}`);
