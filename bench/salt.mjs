// The Salt workload of notes/salt.md section 4: one SLS with 1,000 file.managed states. Measures the whole
// `cairn salt state.apply` process (first apply and no-op re-apply) next to the core's graph-file no-op of
// the same 1,000 files, interleaved, median of 5. Uses the rendered file roots when the renderer can load
// them, else the same states as compiled high data (--high-data), and says which.
//   last line: bench-salt: noop_s=X first_s=Y graph_noop_s=Z noop_ratio=R
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const cairn = join(root, 'bin/cairn.js');
const N = 1000;
const RUNS = 5;
const work = mkdtempSync(join(tmpdir(), 'cairn-bench-salt-'));
const target = join(work, 'files');
const roots = join(work, 'salt');
const state = join(work, 'state');
mkdirSync(roots, { recursive: true });

let sls = '';
const states = {};
const nodes = [];
for (let k = 1; k <= N; k++) {
  const path = join(target, `f${k}.txt`);
  sls += `f${k}:\n  file.managed:\n    - name: ${path}\n    - contents: "content ${k}"\n    - makedirs: True\n`;
  states[`f${k}`] = { __sls__: 'bench', __env__: 'base', file: [{ name: path }, { contents: `content ${k}` }, { makedirs: true }, 'managed', { order: 10000 + k - 1 }] };
  nodes.push({ id: `f${k}`, type: 'file', params: { path, content: `content ${k}\n`, makedirs: true } });
}
writeFileSync(join(roots, 'bench.sls'), sls);
writeFileSync(join(roots, 'top.sls'), "base:\n  '*':\n    - bench\n");
const high = join(work, 'high.json');
writeFileSync(high, JSON.stringify({ states }));
const graph = join(work, 'graph.json');
writeFileSync(graph, JSON.stringify({ version: 1, nodes }));

const probe = spawnSync(process.execPath, [cairn, 'salt', 'state.show_lowstate', '--file-root', roots, '--out', 'json'], { encoding: 'utf8' });
const rendered = probe.status === 0;
const source = rendered ? ['--file-root', roots] : ['--high-data', high];
const saltArgv = [cairn, 'salt', 'state.apply', ...source, '--state-dir', state, '--out', 'json'];

function once(argv, before) {
  before?.();
  const t = performance.now();
  const r = spawnSync(process.execPath, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
  const wall = (performance.now() - t) / 1000;
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return wall;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const clear = () => rmSync(target, { recursive: true, force: true });
const first = [];
const noop = [];
const graphNoop = [];
for (let i = 0; i < RUNS; i++) {
  first.push(once(saltArgv, clear));
  noop.push(once(saltArgv));
  graphNoop.push(once([cairn, 'apply', graph, '--state-dir', state]));
}
rmSync(work, { recursive: true, force: true });
const f = (x) => x.toFixed(3);
const m = { first: median(first), noop: median(noop), graph: median(graphNoop) };
console.log(`salt workload: ${N} file.managed in one SLS (${rendered ? 'rendered from file roots' : 'from compiled high data; the renderer could not load the tree'})`);
console.log(`  cairn salt state.apply first apply ${f(m.first)} s   (real salt-call: 6.55 s)`);
console.log(`  cairn salt state.apply no-op       ${f(m.noop)} s   (real salt-call: 62.2 s)`);
console.log(`  cairn apply graph no-op            ${f(m.graph)} s   ratio salt/graph ${(m.noop / m.graph).toFixed(2)}`);
console.log(`bench-salt: noop_s=${f(m.noop)} first_s=${f(m.first)} graph_noop_s=${f(m.graph)} noop_ratio=${(m.noop / m.graph).toFixed(2)}`);
