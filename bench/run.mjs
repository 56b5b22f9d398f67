// Benchmarks cairn against the floor (bench/floor.mjs) in one run, whole process against whole process,
// and prints ratios, at N = 1,000, 10,000 and 100,000 (one run of each at 100,000: a few minutes, most of
// it the durable first writes). `--quick` measures N = 1,000 only; `--no-100k` leaves N = 100,000 out.
// Then every language's no-op against the graph file's at N = 1,000 and 10,000 (bench/lang-compare.mjs;
// `--no-languages` leaves them out). The last lines are machine-readable (the 10k ones only when
// N = 10,000 was measured):
//   bench-languages: salt=X converge=X otter=X zapusk=X inmanta=X
//   bench-languages10k: salt=X converge=X otter=X zapusk=X inmanta=X
//   bench: noop_ratio=X first_apply_ratio=Y rss_mb=Z
//   bench10k: noop_ratio=X rss_mb=Z
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareLanguages, LANGUAGES } from './lang-compare.mjs';
import { interleaved, measure } from './timing.mjs';

const root = new URL('..', import.meta.url).pathname;
const quick = process.argv.includes('--quick');
const sizes = quick ? [1000] : process.argv.includes('--no-100k') ? [1000, 10000] : [1000, 10000, 100000];
const RUNS = quick ? 5 : 7;
const cairn = join(root, 'bin/cairn.js');
const floor = join(root, 'bench/floor.mjs');
const work = mkdtempSync(join(tmpdir(), 'cairn-bench-'));

function makeGraph(dir, n, chain) {
  const target = join(dir, 'files');
  const nodes = [{ id: 'dir', type: 'directory', params: { path: target, mode: '0755' } }];
  for (let k = 1; k <= n; k++) {
    const node = { id: `f${k}`, type: 'file', params: { path: join(target, `f${k}.txt`), content: `line ${k}\n`, mode: '0644' }, require: [chain && k > 1 ? `f${k - 1}` : 'dir'] };
    nodes.push(node);
  }
  const file = join(dir, chain ? 'chain.json' : 'flat.json');
  writeFileSync(file, JSON.stringify({ version: 1, nodes }));
  return { file, target };
}

const f = (x) => x.toFixed(3);
const r2 = (x) => x.toFixed(2);
const tinyDir = join(work, 'tiny');
mkdirSync(tinyDir, { recursive: true });
const tiny = makeGraph(tinyDir, 1, false);
measure([cairn, 'apply', tiny.file, '--state-dir', join(tinyDir, 'state')]);
const [startup, version, tinyPlan] = interleaved(
  [{ argv: ['-e', '0'] }, { argv: [cairn, '--version'] }, { argv: [cairn, 'plan', tiny.file, '--state-dir', join(tinyDir, 'state')] }],
  RUNS,
);
console.log(
  `startup: node -e 0 ${f(startup.wall)} s, cairn --version ${f(version.wall)} s (ratio ${r2(version.wall / startup.wall)}), ` +
    `no-op plan of 1 file ${f(tinyPlan.wall)} s (ratio ${r2(tinyPlan.wall / startup.wall)})`,
);
const lines = [];
for (const n of sizes) {
  const dir = join(work, `n${n}`);
  mkdirSync(dir, { recursive: true });
  const state = join(dir, 'state');
  const flat = makeGraph(dir, n, false);
  const chain = makeGraph(dir, n, true);
  const clear = () => rmSync(flat.target, { recursive: true, force: true });
  // Medians of five at 10,000 (a no-op there is under half a second; a first apply some seconds, most of
  // it fsync, whose time on these disks moves the most), one run at 100,000.
  const runs = n >= 100000 ? 1 : n >= 10000 ? 5 : RUNS;
  const [floorApply, firstApply] = interleaved(
    [
      { argv: [floor, flat.file, 'apply'], before: clear },
      { argv: [cairn, 'apply', flat.file, '--state-dir', state], before: clear },
    ],
    runs,
  );
  const [floorCheck, noopPlan, noopApply, chainPlan, chainApply] = interleaved(
    [
      { argv: [floor, flat.file, 'check'] },
      { argv: [cairn, 'plan', flat.file, '--state-dir', state] },
      { argv: [cairn, 'apply', flat.file, '--state-dir', state] },
      { argv: [cairn, 'plan', chain.file, '--state-dir', state] },
      { argv: [cairn, 'apply', chain.file, '--state-dir', state] },
    ],
    runs,
  );
  const rss = Math.max(firstApply.rss, noopPlan.rss, noopApply.rss, chainPlan.rss, chainApply.rss);
  console.log(`N=${n}`);
  console.log(`  floor check ${f(floorCheck.wall)} s   floor first apply ${f(floorApply.wall)} s`);
  console.log(`  no-op plan  ${f(noopPlan.wall)} s  ratio ${r2(noopPlan.wall / floorCheck.wall)}`);
  console.log(`  no-op apply ${f(noopApply.wall)} s  ratio ${r2(noopApply.wall / floorCheck.wall)}`);
  console.log(`  first apply ${f(firstApply.wall)} s  ratio ${r2(firstApply.wall / floorApply.wall)}`);
  console.log(`  chain/flat  plan ${r2(chainPlan.wall / noopPlan.wall)}  no-op apply ${r2(chainApply.wall / noopApply.wall)}`);
  console.log(`  peak RSS    ${Number.isNaN(rss) ? 'n/a (python3 absent)' : `${rss.toFixed(0)} MiB`}`);
  const mb = (x) => (Number.isNaN(x) ? 'nan' : x.toFixed(0));
  if (n === 1000) lines[0] = `bench: noop_ratio=${r2(noopPlan.wall / floorCheck.wall)} first_apply_ratio=${r2(firstApply.wall / floorApply.wall)} rss_mb=${mb(rss)}`;
  if (n === 10000) lines[1] = `bench10k: noop_ratio=${r2(noopPlan.wall / floorCheck.wall)} rss_mb=${mb(rss)}`;
  if (n === 100000) console.log(`bench100k: noop_ratio=${r2(noopPlan.wall / floorCheck.wall)} rss_mb=${mb(rss)}`);
}
rmSync(work, { recursive: true, force: true });
// Each language against the graph file, 7 rounds at 1,000 files and 5 at 10,000 (a store each).
const languageLines = [];
if (!process.argv.includes('--no-languages')) {
  for (const n of sizes.filter((s) => s <= 10000)) {
    const ratios = compareLanguages(n, n >= 10000 ? 5 : RUNS);
    languageLines.push(`bench-languages${n === 1000 ? '' : '10k'}: ${LANGUAGES.map((l) => `${l}=${ratios[l] === undefined ? 'n/a' : r2(ratios[l])}`).join(' ')}`);
  }
}
for (const line of [...languageLines, ...lines]) if (line) console.log(line);
