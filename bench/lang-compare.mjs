// Every language against the graph file on the same work, whole process against whole process: N files
// managed by Salt (file.managed), Converge (file.content), OtterScript (Ensure-File), Zapusk ([file] steps)
// and Inmanta (fs::File), each converged once and then timed as a no-op next to the graph file's no-op
// apply of the same N files, round-robin. Used by bench/languages.mjs and by `npm run bench` (bench/run.mjs).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { interleaved } from './timing.mjs';

const root = new URL('..', import.meta.url).pathname;
const cairn = join(root, 'bin/cairn.js');
export const LANGUAGES = ['salt', 'converge', 'otter', 'zapusk', 'inmanta'];

/**
 * Times each language's no-op of `n` files against the graph file's, `runs` rounds each, printing a line per
 * language with `log`. Each language and the graph file keep a run store of their own, unless `shared`
 * (one for all, as on a machine where every front end runs, so that each no-op also folds the others'
 * rows into the drift index). Returns the ratios (language wall / graph wall) by name; a language that
 * cannot run the work is reported and has none.
 */
export function compareLanguages(n, runs, { shared = false, log = console.log } = {}) {
  const work = mkdtempSync(join(tmpdir(), 'cairn-bench-lang-'));
  const before = process.env.CAIRN_STATE_DIR;
  try {
    return compareIn(work, n, runs, shared, log);
  } finally {
    if (before === undefined) delete process.env.CAIRN_STATE_DIR;
    else process.env.CAIRN_STATE_DIR = before;
    rmSync(work, { recursive: true, force: true });
  }
}

function compareIn(work, n, runs, shared, log) {
  const storeOf = (name) => join(work, shared ? 'state' : `state-${name}`);
  const files = (lang) => join(work, `${lang}-files`);
  const range = Array.from({ length: n }, (_, i) => i + 1);

  function setup(lang, name, text) {
    const dir = join(work, lang);
    mkdirSync(dir, { recursive: true });
    mkdirSync(files(lang), { recursive: true });
    writeFileSync(join(dir, name), text);
    return dir;
  }

  const graphFile = join(work, 'graph.json');
  writeFileSync(
    graphFile,
    JSON.stringify({ version: 1, nodes: range.map((k) => ({ id: `f${k}`, type: 'file', params: { path: join(files('graph'), `f${k}.txt`), content: `line ${k}\n`, mode: '0644' } })) }),
  );
  mkdirSync(files('graph'));

  const salt = setup('salt', 'bench.sls', range.map((k) => `f${k}:\n  file.managed:\n    - name: ${join(files('salt'), `f${k}.txt`)}\n    - contents: "line ${k}"\n    - mode: '0644'\n`).join(''));
  writeFileSync(join(salt, 'top.sls'), "base:\n  '*':\n    - bench\n");
  const converge = setup('converge', 'main.hcl', range.map((k) => `file.content "f${k}" {\n  destination = "${join(files('converge'), `f${k}.txt`)}"\n  content = "line ${k}"\n}\n\n`).join(''));
  const otter = setup('otter', 'plan.otter', range.map((k) => `Ensure-File otter-files/f${k}.txt (Text: line ${k});\n`).join(''));
  const zapusk = join(work, 'zapusk');
  mkdirSync(files('zapusk'), { recursive: true });
  mkdirSync(join(zapusk, 'prog.zdb'), { recursive: true });
  writeFileSync(join(zapusk, 'prog.zdb/main.ini'), range.map((k) => `######## f${k}\n[file]\npath=${join(files('zapusk'), `f${k}.txt`)}\ncontent=line ${k}\n`).join(''));
  const inmanta = setup(
    'inmanta',
    'main.cf',
    `import fs\nh = std::Host(name="node1", os=std::linux)\n${range.map((k) => `fs::File(host=h, path="${join(files('inmanta'), `f${k}.txt`)}", content="line ${k}", mode=644)`).join('\n')}\n`,
  );

  const languages = [
    { name: 'salt', what: 'Salt file.managed', argv: [cairn, 'salt', 'state.apply', '--file-root', salt, '--state-dir', storeOf('salt')] },
    { name: 'converge', what: 'Converge file.content', argv: [cairn, 'converge', 'apply', join(converge, 'main.hcl'), '--state-dir', storeOf('converge')] },
    { name: 'otter', what: 'OtterScript Ensure-File', argv: [cairn, 'otter', 'run', join(otter, 'plan.otter'), '--root', work, '--state-dir', storeOf('otter'), '--mode', 'execute'] },
    { name: 'zapusk', what: 'Zapusk [file] steps', argv: [cairn, 'zapusk', join(zapusk, 'prog.zdb'), 'apply'] },
    { name: 'inmanta', what: 'Inmanta fs::File', argv: [cairn, 'inmanta', 'deploy', inmanta, '--state-dir', storeOf('inmanta')] },
  ];
  const graph = { argv: [cairn, 'apply', graphFile, '--state-dir', storeOf('graph')] };
  // Zapusk takes its store from the environment only.
  for (const c of [...languages, graph]) c.before = () => (process.env.CAIRN_STATE_DIR = storeOf(c.name ?? 'graph'));

  /** Converges once (not timed); a language that cannot run the work is reported and left out. */
  function converged({ argv, before }) {
    before();
    const r = spawnSync(process.execPath, argv, { encoding: 'utf8', cwd: work, maxBuffer: 1 << 30 });
    return r.status === 0 || r.status === 2 ? undefined : `exit ${r.status}: ${(r.stderr || r.stdout).split('\n').slice(0, 3).join(' | ')}`;
  }
  converged(graph);
  const ok = [];
  for (const l of languages) {
    const why = converged(l);
    if (why) log(`${l.what}: cannot run (${why})`);
    else ok.push(l);
  }
  const f = (x) => x.toFixed(3);
  const ratios = {};
  log(`N=${n} files, no-op, median of ${runs} runs, each language against the graph file in the same rounds (${shared ? 'one store for all' : 'a store each'})`);
  for (const l of ok) {
    const [g, x] = interleaved([graph, l], runs);
    ratios[l.name] = x.wall / g.wall;
    log(`  ${l.what.padEnd(24)} ${f(x.wall)} s  graph ${f(g.wall)} s  ratio ${(x.wall / g.wall).toFixed(2)}  rss ${Number.isNaN(x.rss) ? 'n/a' : x.rss.toFixed(0)} MiB`);
  }
  return ratios;
}
