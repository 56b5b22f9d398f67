// Does every front end grow near-linearly with its input? For each front end's natural unit (states,
// `names:` items, includes, requisites, resources, operations, steps, characters of a value, graph nodes,
// a cycle's nodes, Inmanta instances) this times one whole `cairn` process at 1,000, 10,000 and 100,000
// units (CPU = user + system from rusage, wall, peak RSS, bytes printed) and prints the 10k/1k and
// 100k/10k ratios of CPU time. A ratio above 12 (for 10x the input) is flagged as superlinear.
//   npm run build && node bench/scaling.mjs [--quick] [--only SUBSTR] [--sizes 1000,10000]
// `--quick` skips 100,000. Salt cases go through render + compile (state.show_lowstate, which renders
// Jinja + YAML, expands `names`, follows includes and builds the low chunks), except the requisite
// chain, which needs the state runner: state.apply test=True over test.nop states.
// Last line: bench-scaling: worst_ratio=X at <case> <size>/<size> (flagged=N)
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const cairn = join(root, 'bin/cairn.js');
const argValue = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const quick = process.argv.includes('--quick');
const only = argValue('--only');
const sizes = argValue('--sizes')?.split(',').map(Number) ?? (quick ? [1000, 10000] : [1000, 10000, 100000]);
const LIMIT = 12;
const work = mkdtempSync(join(tmpdir(), 'cairn-bench-scaling-'));
const range = (n) => Array.from({ length: n }, (_, i) => i + 1);

// One child process: CPU (user + system) and peak RSS of the child from rusage, wall, exit code and the
// bytes it printed (stdout + stderr, read as it goes so that a big message costs no memory here).
const MEASURE = `
import resource, subprocess, sys, time, threading
t = time.perf_counter()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
count = [0, 0]; head = [b'']
def drain(f, i):
    while True:
        b = f.read(65536)
        if not b: break
        if i == 1 and len(head[0]) < 400: head[0] += b[:400]
        count[i] += len(b)
ts = [threading.Thread(target=drain, args=(p.stdout, 0)), threading.Thread(target=drain, args=(p.stderr, 1))]
for x in ts: x.start()
for x in ts: x.join()
code = p.wait()
wall = time.perf_counter() - t
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(r.ru_utime + r.ru_stime, wall, r.ru_maxrss, code, count[0] + count[1])
sys.stdout.write(head[0].decode('utf8', 'replace'))
`;

function measure(argv, cwd, okCodes) {
  const r = spawnSync('python3', ['-c', MEASURE, process.execPath, ...argv], { encoding: 'utf8', cwd, maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`measuring failed: ${r.stderr}`);
  const [first, ...rest] = r.stdout.split('\n');
  const [cpu, wall, rssKb, code, bytes] = first.trim().split(/\s+/).map(Number);
  if (!okCodes.includes(code)) throw new Error(`exit ${code}: ${argv.slice(1).join(' ')}\n${rest.join('\n').slice(0, 400)}`);
  return { cpu, wall, rss: rssKb / 1024, bytes };
}

/** A fresh folder per case and size. */
function dir(name, n) {
  const d = join(work, `${name}-${n}`);
  mkdirSync(d, { recursive: true });
  return d;
}
const write = (d, file, text) => {
  writeFileSync(join(d, file), text);
  return join(d, file);
};
const saltTop = (d, sls) => write(d, 'top.sls', `base:\n  '*':\n    - ${sls}\n`);
const lowstate = (d) => [cairn, 'salt', 'state.show_lowstate', '--file-root', d, '--out', 'quiet', '--state-dir', join(d, 'state')];
const graphNodes = (d, n, edge) =>
  range(n).map((k) => ({
    id: `f${k}`,
    type: 'file',
    params: { path: join(d, 'files', `f${k}.txt`), content: `line ${k}\n` },
    ...edge(k),
  }));

const cases = [
  {
    name: 'salt-jinja-states',
    unit: 'states from a Jinja loop, state.show_lowstate',
    make(d, n) {
      write(d, 'bench.sls', `{% for k in range(${n}) %}\nf{{ k }}:\n  file.managed:\n    - name: ${d}/files/f{{ k }}.txt\n    - contents: line {{ k }}\n{% endfor %}\n`);
      saltTop(d, 'bench');
      return lowstate(d);
    },
  },
  {
    name: 'salt-names',
    unit: '`names:` items of one state, state.show_lowstate',
    make(d, n) {
      write(d, 'bench.sls', `many:\n  file.managed:\n    - contents: x\n    - names:\n${range(n).map((k) => `      - ${d}/files/f${k}.txt\n`).join('')}`);
      saltTop(d, 'bench');
      return lowstate(d);
    },
  },
  {
    name: 'salt-includes',
    unit: 'included SLS files (one state each), state.show_lowstate',
    make(d, n) {
      mkdirSync(join(d, 'inc'));
      for (const k of range(n)) write(d, `inc/s${k}.sls`, `s${k}:\n  test.nop: []\n`);
      write(d, 'bench.sls', `include:\n${range(n).map((k) => `  - inc.s${k}\n`).join('')}`);
      saltTop(d, 'bench');
      return lowstate(d);
    },
  },
  {
    name: 'salt-require-chain',
    unit: 'test.nop states each requiring the one before, state.apply test=True',
    make(d, n) {
      write(d, 'bench.sls', range(n).map((k) => `s${k}:\n  test.nop:\n${k > 1 ? `    - require:\n      - test: s${k - 1}\n` : '    []\n'}`).join(''));
      saltTop(d, 'bench');
      return [cairn, 'salt', 'state.apply', 'test=True', '--file-root', d, '--out', 'quiet', '--state-dir', join(d, 'state')];
    },
  },
  {
    name: 'converge-resources',
    unit: 'file.content resources, converge plan',
    make(d, n) {
      const f = write(d, 'main.hcl', range(n).map((k) => `file.content "f${k}" {\n  destination = "${d}/files/f${k}.txt"\n  content = "line ${k}"\n}\n\n`).join(''));
      return [cairn, 'converge', 'plan', f, '--state-dir', join(d, 'state')];
    },
  },
  {
    name: 'converge-depends-chain',
    unit: 'file.content resources each depending on the next, converge plan',
    make(d, n) {
      const f = write(d, 'main.hcl', range(n).map((k) => `file.content "f${k}" {\n  destination = "${d}/files/f${k}.txt"\n  content = "line ${k}"\n${k < n ? `  depends = ["file.content.f${k + 1}"]\n` : ''}}\n\n`).join(''));
      return [cairn, 'converge', 'plan', f, '--state-dir', join(d, 'state')];
    },
  },
  {
    name: 'otter-operations',
    unit: 'Ensure-File operations, otter run --mode collect',
    make(d, n) {
      const f = write(d, 'plan.otter', range(n).map((k) => `Ensure-File files/f${k}.txt (Text: line ${k});\n`).join(''));
      return [cairn, 'otter', 'run', f, '--root', d, '--state-dir', join(d, 'state'), '--mode', 'collect'];
    },
  },
  {
    name: 'zapusk-steps',
    unit: '[file] steps, zapusk apply --dry-run',
    make(d, n) {
      mkdirSync(join(d, 'prog.zdb'));
      write(d, 'prog.zdb/main.ini', range(n).map((k) => `######## f${k}\n[file]\npath=${d}/files/f${k}.txt\ncontent=line ${k} {{word}}\nword=w${k}\n`).join(''));
      return [cairn, 'zapusk', join(d, 'prog.zdb'), 'apply', '--dry-run', '--state-dir', join(d, 'state'), '--state_dir', join(d, 'zstate')];
    },
  },
  {
    name: 'zapusk-long-value',
    unit: 'characters of one value (references and many unclosed `{`), zapusk apply --dry-run',
    make(d, n) {
      mkdirSync(join(d, 'prog.zdb'));
      const value = '{{x}} { '.repeat(Math.floor(n / 16)) + '{'.repeat(n - 8 * Math.floor(n / 16));
      write(d, 'prog.zdb/main.ini', `######## one\n[file]\npath=${d}/files/one.txt\nx=y\ncontent=${value}\n`);
      return [cairn, 'zapusk', join(d, 'prog.zdb'), 'apply', '--dry-run', '--state-dir', join(d, 'state'), '--state_dir', join(d, 'zstate')];
    },
  },
  {
    name: 'graph-nodes',
    unit: 'file nodes, plan',
    make(d, n) {
      const f = write(d, 'g.json', JSON.stringify({ version: 1, nodes: graphNodes(d, n, () => ({})) }));
      return [cairn, 'plan', f, '--state-dir', join(d, 'state')];
    },
  },
  {
    name: 'graph-require-chain',
    unit: 'file nodes each requiring the one before, plan',
    make(d, n) {
      const f = write(d, 'g.json', JSON.stringify({ version: 1, nodes: graphNodes(d, n, (k) => (k > 1 ? { require: [`f${k - 1}`] } : {})) }));
      return [cairn, 'plan', f, '--state-dir', join(d, 'state')];
    },
  },
  {
    name: 'graph-cycle',
    unit: 'nodes of one require cycle, plan (fails with G006)',
    codes: [1],
    make(d, n) {
      const f = write(d, 'g.json', JSON.stringify({ version: 1, nodes: graphNodes(d, n, (k) => ({ require: [`f${k > 1 ? k - 1 : n}`] })) }));
      return [cairn, 'plan', f, '--state-dir', join(d, 'state')];
    },
  },
  {
    name: 'inmanta-instances',
    unit: 'fs::File instances, inmanta compile (measured only)',
    make(d, n) {
      write(d, 'main.cf', `import fs\nh = std::Host(name="node1", os=std::linux)\n${range(n).map((k) => `fs::File(host=h, path="${d}/files/f${k}.txt", content="line ${k}", mode=644)`).join('\n')}\n`);
      return [cairn, 'inmanta', 'compile', d, '--state-dir', join(d, 'state')];
    },
  },
];

const f3 = (x) => x.toFixed(3).padStart(8);
const flagged = [];
let worst = { ratio: 0, at: 'none' };
console.log(`sizes ${sizes.join(', ')}; CPU s (user+sys) / wall s / peak RSS MiB / bytes printed; ratio of CPU per 10x input (limit ${LIMIT})`);
for (const c of cases) {
  if (only && !c.name.includes(only)) continue;
  console.log(`${c.name}: ${c.unit}`);
  let prev;
  for (const n of sizes) {
    const d = dir(c.name, n);
    let m;
    try {
      const argv = c.make(d, n);
      // The smallest size is noisy next to start-up: best of three.
      const runs = n <= 1000 ? 3 : 1;
      for (let i = 0; i < runs; i++) {
        const x = measure(argv, d, c.codes ?? [0, 2]);
        if (!m || x.cpu < m.cpu) m = x;
      }
    } catch (e) {
      console.log(`  ${String(n).padStart(6)}  cannot run: ${String(e.message).split('\n').slice(0, 3).join(' | ')}`);
      rmSync(d, { recursive: true, force: true });
      break;
    }
    rmSync(d, { recursive: true, force: true });
    let note = '';
    if (prev) {
      const ratio = m.cpu / prev.m.cpu;
      const at = `${c.name} ${n}/${prev.n}`;
      if (ratio > worst.ratio) worst = { ratio, at };
      if (ratio > LIMIT) flagged.push(at);
      note = `  ratio ${ratio.toFixed(2)}${ratio > LIMIT ? '  SUPERLINEAR' : ''}`;
    }
    console.log(`  ${String(n).padStart(6)}  cpu ${f3(m.cpu)}  wall ${f3(m.wall)}  rss ${m.rss.toFixed(0).padStart(5)}  out ${String(m.bytes).padStart(9)}${note}`);
    prev = { n, m };
  }
}
rmSync(work, { recursive: true, force: true });
if (flagged.length) console.log(`flagged: ${flagged.join(', ')}`);
console.log(`bench-scaling: worst_ratio=${worst.ratio.toFixed(2)} at ${worst.at} (flagged=${flagged.length})`);
