// Run with: npm run build && node bench/inmanta.mjs
//
// The Inmanta compile workload of issue 8: a generated project of N entity instances (N = 1,000 and 10,000)
// with an index, a bidirectional relation, an implementation with a condition and a for loop over a
// relation. Times the whole `cairn inmanta compile DIR` process for each size next to a plain `node -e 0`
// start, round-robin (one of each per round), median of RUNS rounds.
//   last line: bench-inmanta: node_s=A n1000_s=B n10000_s=C scale_ratio=C/B start_ratio=B/A
// The compile should grow about linearly: scale_ratio ≤ 12.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const cairn = join(root, 'bin/cairn.js');
const RUNS = 5;
const work = mkdtempSync(join(tmpdir(), 'cairn-bench-inmanta-'));

/** A project with `n` Service instances spread over n/10 hosts, each host looping over its services. */
function project(n) {
  const dir = join(work, `n${n}`);
  mkdirSync(dir, { recursive: true });
  const hosts = Math.max(1, n / 10);
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
  Service(node=host, name="svc{{i}}", port=i % 4000)
end
last = Service[node=Node[name="node0"], name="svc0"]
`;
  writeFileSync(join(dir, 'main.cf'), src);
  return dir;
}

function once(argv) {
  const t = performance.now();
  const r = spawnSync(process.execPath, argv, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const wall = (performance.now() - t) / 1000;
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return wall;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const small = project(1000);
const large = project(10000);
const start = [];
const t1k = [];
const t10k = [];
try {
  for (let i = 0; i < RUNS; i++) {
    start.push(once(['-e', '0']));
    t1k.push(once([cairn, 'inmanta', 'compile', small]));
    t10k.push(once([cairn, 'inmanta', 'compile', large]));
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
const node = median(start);
const a = median(t1k);
const b = median(t10k);
const f = (x) => x.toFixed(3);
console.log(`node -e 0:                   ${f(node)} s`);
console.log(`compile 1,000 instances:     ${f(a)} s  (${f(a / node)}x node -e 0)`);
console.log(`compile 10,000 instances:    ${f(b)} s  (${f(b / a)}x the 1,000 compile; target <= 12)`);
console.log(`bench-inmanta: node_s=${f(node)} n1000_s=${f(a)} n10000_s=${f(b)} scale_ratio=${f(b / a)} start_ratio=${f(a / node)}`);
