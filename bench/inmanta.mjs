// Run with: npm run build && node bench/inmanta.mjs [--runs R] [--sizes 1000,10000,100000]
//
// Two Inmanta workloads, each timed as whole `cairn` processes, round-robin (one of each case per round),
// median of R rounds (default 3), wall and CPU time (user + system, from rusage) side by side:
//
// 1. Compile: a generated project of N entity instances (N = 1,000, 10,000 and 100,000 by default) with an
//    index, a bidirectional relation, an implementation with a condition and a for loop over a relation.
//    The compile should grow about linearly: each ratio between sizes 10x apart should be <= 12.
// 2. No-op deploy: N fs::File resources (N = 1,000 and 10,000) converged once, then deployed again next to
//    the graph file's no-op apply of the same N files. Target: Inmanta <= 1.5x the graph file.
//
// Last line (machine-readable; sizes as given, ratios of medians):
//   bench-inmanta: compile_<N>_s=W ... compile_<N>_cpu_s=C ... ratio_<B>_<A>=W/W ratio_<B>_<A>_cpu=C/C ...
//     deploy_<N>_ratio=W/W deploy_<N>_ratio_cpu=C/C ...
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { interleaved } from './timing.mjs';

const root = new URL('..', import.meta.url).pathname;
const cairn = join(root, 'bin/cairn.js');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const RUNS = Number(arg('--runs', '3'));
const SIZES = arg('--sizes', '1000,10000,100000').split(',').map(Number);
const DEPLOY_SIZES = SIZES.filter((n) => n <= 10000);
const work = mkdtempSync(join(tmpdir(), 'cairn-bench-inmanta-'));
const state = join(work, 'state');

/** A project with `n` Service instances spread over n/10 nodes, each node looping over its services. */
function compileProject(n) {
  const dir = join(work, `compile${n}`);
  mkdirSync(dir, { recursive: true });
  const hosts = Math.max(1, n / 10);
  // The first service of each node is privileged (port < 1024): every node gets its count, at every size.
  const src = `
entity Node:
  string name
  int count
end
index Node(name)
entity Service:
  string name
  int port
  string label
end
index Service(node, name)
Node.services [0:] -- Service.node [1]
implement Node using checkNode
implement Node using std::none when count > 100
implementation checkNode for Node:
  for s in self.services:
    s.label = "{{s.name}} on {{name}}"
  end
end
implement Service using std::none
implement Service using privileged when port < 1024
implementation privileged for Service:
  self.node.count = std::len(self.node.services)
end

for i in std::sequence(${hosts}):
  Node(name="node{{i}}")
end
for i in std::sequence(${n}):
  k = i % ${hosts}
  host = Node[name="node{{k}}"]
  Service(node=host, name="svc{{i}}", port=i < ${hosts} ? i % 1024 : 1024 + i % 4000)
end
last = Service[node=Node[name="node0"], name="svc0"]
`;
  writeFileSync(join(dir, 'main.cf'), src);
  return dir;
}

/** `n` fs::File resources, and the graph file of the same `n` files (each in its own directory). */
function deployProjects(n) {
  const range = Array.from({ length: n }, (_, i) => i + 1);
  const dir = join(work, `deploy${n}`);
  const files = join(dir, 'files');
  mkdirSync(files, { recursive: true });
  writeFileSync(
    join(dir, 'main.cf'),
    `import fs\nh = std::Host(name="node1", os=std::linux)\n${range.map((k) => `fs::File(host=h, path="${join(files, `f${k}.txt`)}", content="line ${k}", mode=644)`).join('\n')}\n`,
  );
  const graphFiles = join(work, `graph${n}-files`);
  mkdirSync(graphFiles, { recursive: true });
  const graph = join(work, `graph${n}.json`);
  writeFileSync(
    graph,
    JSON.stringify({ version: 1, nodes: range.map((k) => ({ id: `f${k}`, type: 'file', params: { path: join(graphFiles, `f${k}.txt`), content: `line ${k}\n`, mode: '0644' } })) }),
  );
  return {
    inmanta: { argv: [cairn, 'inmanta', 'deploy', dir, '--state-dir', state] },
    graph: { argv: [cairn, 'apply', graph, '--state-dir', state] },
  };
}

/** Converges once (not timed), so the timed runs are no-ops. */
function converge(argv) {
  const r = spawnSync(process.execPath, argv, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (r.status !== 0 && r.status !== 2) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
}

const f = (x) => x.toFixed(3);
const fields = [];
try {
  const compiles = interleaved(
    SIZES.map((n) => ({ argv: [cairn, 'inmanta', 'compile', compileProject(n)] })),
    RUNS,
  );
  console.log(`Inmanta compile, median of ${RUNS} rounds (wall / CPU):`);
  SIZES.forEach((n, i) => {
    const m = compiles[i];
    console.log(`  ${String(n).padStart(7)} instances  ${f(m.wall)} s  cpu ${f(m.cpu)} s  rss ${Number.isNaN(m.rss) ? 'n/a' : m.rss.toFixed(0)} MiB`);
    fields.push(`compile_${n}_s=${f(m.wall)}`, `compile_${n}_cpu_s=${f(m.cpu)}`);
  });
  for (let i = 1; i < SIZES.length; i++) {
    const [a, b] = [compiles[i - 1], compiles[i]];
    const [na, nb] = [SIZES[i - 1], SIZES[i]];
    console.log(`  ${nb}/${na}: wall ${(b.wall / a.wall).toFixed(2)}x  cpu ${(b.cpu / a.cpu).toFixed(2)}x  (target <= ${((12 * nb) / na / 10).toFixed(0)} for ${nb / na}x the input)`);
    fields.push(`ratio_${nb}_${na}=${(b.wall / a.wall).toFixed(2)}`, `ratio_${nb}_${na}_cpu=${(b.cpu / a.cpu).toFixed(2)}`);
  }
  console.log(`No-op deploy against the graph file's no-op apply, median of ${RUNS} rounds (wall / CPU):`);
  for (const n of DEPLOY_SIZES) {
    const { inmanta, graph } = deployProjects(n);
    converge(graph.argv);
    converge(inmanta.argv);
    const [g, x] = interleaved([graph, inmanta], RUNS);
    console.log(`  ${String(n).padStart(6)} files  inmanta ${f(x.wall)} s (cpu ${f(x.cpu)})  graph ${f(g.wall)} s (cpu ${f(g.cpu)})  ratio ${(x.wall / g.wall).toFixed(2)}  cpu ratio ${(x.cpu / g.cpu).toFixed(2)}  (target <= 1.5)`);
    fields.push(`deploy_${n}_ratio=${(x.wall / g.wall).toFixed(2)}`, `deploy_${n}_ratio_cpu=${(x.cpu / g.cpu).toFixed(2)}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(`bench-inmanta: ${fields.join(' ')}`);
