// Run: npm run build && node bench/otter.mjs
//
// The OtterScript workload: one plan with 1,000 Ensure-File operations (plus their directory), run by
// `cairn otter run` in collect mode (all in sync) and in execute mode (files absent, then all present),
// each timed as a whole process next to the core's own graph-file run of the same 1,000 files
// (`cairn plan` / `cairn apply GRAPH.json`), round-robin in one run, median of 5.
//   last line: bench-otter: collect_ratio=X execute_ratio=Y execute_noop_ratio=Z
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { interleaved as timedRounds } from './timing.mjs';

const root = new URL('..', import.meta.url).pathname;
const cairn = join(root, 'bin/cairn.js');
const N = 1000;
const RUNS = 5;
const work = mkdtempSync(join(tmpdir(), 'cairn-bench-otter-'));
const target = join(work, 'files');
const state = join(work, 'state');
mkdirSync(state, { recursive: true });

let plan = 'Ensure-Directory files;\n';
const nodes = [{ id: 'dir', type: 'directory', params: { path: target } }];
for (let k = 1; k <= N; k++) {
  plan += `Ensure-File files/f${k}.txt (Text: line ${k});\n`;
  nodes.push({ id: `f${k}`, type: 'file', params: { path: join(target, `f${k}.txt`), content: `line ${k}` }, require: ['dir'] });
}
const script = join(work, 'plan.otter');
writeFileSync(script, plan);
const graph = join(work, 'graph.json');
writeFileSync(graph, JSON.stringify({ version: 1, nodes }));

/** Median wall seconds per case, measured round-robin. */
const interleaved = (cases) => timedRounds(cases, RUNS).map((m) => m.wall);

const clear = () => rmSync(target, { recursive: true, force: true });
const otter = (mode) => [cairn, 'otter', 'run', script, '--root', work, '--state-dir', state, '--mode', mode];

const [graphFirst, otterFirst] = interleaved([
  { argv: [cairn, 'apply', graph, '--state-dir', state], before: clear },
  { argv: otter('execute'), before: clear },
]);
const [graphPlan, otterCollect, graphNoop, otterNoop] = interleaved([
  { argv: [cairn, 'plan', graph, '--state-dir', state] },
  { argv: otter('collect') },
  { argv: [cairn, 'apply', graph, '--state-dir', state] },
  { argv: otter('execute') },
]);
rmSync(work, { recursive: true, force: true });

const f = (x) => x.toFixed(3);
const r2 = (x) => x.toFixed(2);
console.log(`N=${N} Ensure-File operations, median of ${RUNS}`);
console.log(`  collect (in sync)     otter ${f(otterCollect)} s   graph plan  ${f(graphPlan)} s   ratio ${r2(otterCollect / graphPlan)}`);
console.log(`  execute (first)       otter ${f(otterFirst)} s   graph apply ${f(graphFirst)} s   ratio ${r2(otterFirst / graphFirst)}`);
console.log(`  execute (in sync)     otter ${f(otterNoop)} s   graph apply ${f(graphNoop)} s   ratio ${r2(otterNoop / graphNoop)}`);
console.log(`bench-otter: collect_ratio=${r2(otterCollect / graphPlan)} execute_ratio=${r2(otterFirst / graphFirst)} execute_noop_ratio=${r2(otterNoop / graphNoop)}`);
