// Benchmarks cairn against the floor (bench/floor.mjs) in one run, whole process against whole process,
// and prints ratios. `--quick` measures N = 1,000 only. The last line is machine-readable:
//   bench: noop_ratio=X first_apply_ratio=Y rss_mb=Z
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { interleaved } from './timing.mjs';

const root = new URL('..', import.meta.url).pathname;
const quick = process.argv.includes('--quick');
const sizes = quick ? [1000] : [1000, 10000];
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
let last;
const [startup, version] = interleaved([{ argv: ['-e', '0'] }, { argv: [cairn, '--version'] }], RUNS);
console.log(`startup: node -e 0 ${f(startup.wall)} s, cairn --version ${f(version.wall)} s`);
for (const n of sizes) {
  const dir = join(work, `n${n}`);
  mkdirSync(dir, { recursive: true });
  const state = join(dir, 'state');
  const flat = makeGraph(dir, n, false);
  const chain = makeGraph(dir, n, true);
  const clear = () => rmSync(flat.target, { recursive: true, force: true });
  const runs = n >= 10000 ? 3 : RUNS;
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
  last ??= { noop: noopPlan.wall / floorCheck.wall, first: firstApply.wall / floorApply.wall, rss };
}
rmSync(work, { recursive: true, force: true });
console.log(`bench: noop_ratio=${r2(last.noop)} first_apply_ratio=${r2(last.first)} rss_mb=${Number.isNaN(last.rss) ? 'nan' : last.rss.toFixed(0)}`);
