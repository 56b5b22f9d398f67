// Bundles the CLI into dist/ so it starts fast. Our code and the small libraries every run loads
// (valibot, picocolors, commander) go into one CommonJS file, dist/cairn.cjs; a front end's modules in it
// are initialised only when its command runs (each `import()` becomes a lazy initialiser), and the other
// packages stay in node_modules, required on first use. CommonJS rather than ES modules because then
// bin/cairn.js can hand V8 a code cache (dist/cairn.cjs.cache, written here by one training run of a
// tiny plan): start-up then skips parsing and compiling what every run needs. The bundle is written
// beside dist/ and swapped in, so a CLI started during a rebuild never finds dist/ half-made.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const BUNDLED = new Set(['valibot', 'picocolors', 'commander']);
const packageOf = (spec) => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');
/** Every other package stays in node_modules, loaded on first use. */
const externalPackages = {
  name: 'external-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (a) => (BUNDLED.has(packageOf(a.path)) ? undefined : { path: a.path, external: true }));
  },
};
/**
 * commander requires child_process when it loads, for the one thing it spawns (an executable subcommand,
 * which cairn has none of); loading it is a few milliseconds of every start-up. Its three spawn calls go
 * through a stand-in that requires child_process when one is made.
 */
const COMMANDER_SPAWN = "const childProcess = require('node:child_process');";
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(b) {
    b.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, (a) => {
      const text = readFileSync(a.path, 'utf8');
      if (!text.includes(COMMANDER_SPAWN) || /childProcess\.(?!spawn\()/.test(text)) throw new Error(`commander changed: ${a.path} no longer loads child_process as the build expects`);
      return { contents: text.replace(COMMANDER_SPAWN, "const childProcess = { spawn: (...a) => require('node:child_process').spawn(...a) };"), loader: 'js' };
    });
  },
};
const fresh = `${root}dist.build-${process.pid}`;
const old = `${root}dist.old-${process.pid}`;
const common = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  plugins: [externalPackages, lazyChildProcess],
  // import.meta in our code (a createRequire base, a package's path): CommonJS has the file's own path
  // and require.resolve.
  define: { 'import.meta.url': '__cairn_module_url', 'import.meta.resolve': '__cairn_resolve' },
  banner: {
    js: 'var __cairn_module_url = require("node:url").pathToFileURL(__filename).href;\n' +
      'var __cairn_resolve = (spec) => require("node:url").pathToFileURL(require.resolve(spec)).href;',
  },
  charset: 'ascii',
  // A package loaded on first use is required (through esbuild's ES-module interop) rather than imported:
  // Node 20 drops a vm.Script's dynamic-import callback when the script comes from a code cache.
  supported: { 'dynamic-import': false },
  logLevel: 'warning',
};
/**
 * bin/cairn.js reads the bundle as latin1, which skips UTF-8 decoding of 1.6 MB and is exact for ASCII.
 * esbuild's `charset: 'ascii'` escapes string literals but not template literals, regular expressions or
 * comments, so what is left is written as a \u escape, which means the same character in each of those
 * (our code has no String.raw template with such a character).
 */
function asciiOnly(file) {
  const text = readFileSync(file, 'utf8');
  const escaped = text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (escaped !== text) writeFileSync(file, escaped);
}

try {
  await build({ ...common, entryPoints: { cairn: `${root}src/cli/main.ts` }, outdir: fresh, outExtension: { '.js': '.cjs' }, sourcemap: 'linked' });
  asciiOnly(join(fresh, 'cairn.cjs'));
  // version.cjs alone answers `cairn --version` without loading the CLI (bin/cairn.js).
  await build({ ...common, entryPoints: { version: `${root}src/cli/version.ts` }, outdir: fresh, outExtension: { '.js': '.cjs' } });

  try {
    renameSync(`${root}dist`, old);
  } catch {}
  renameSync(fresh, `${root}dist`);
} finally {
  rmSync(fresh, { recursive: true, force: true });
  rmSync(old, { recursive: true, force: true });
}

// The training run: a no-op plan of a one-file graph, after which bin/cairn.js writes V8's code cache
// of everything that run compiled. Before it, in the same process (CAIRN_CODE_CACHE_TRAIN), a no-op
// of one file in Salt (file.managed), OtterScript (Ensure-File), Zapusk ([file]) and Converge
// (file.content), so that a front end's own code is compiled from the cache too.
// Without the cache (or when V8 rejects it) the CLI works the same, only slower to start.
const work = mkdtempSync(join(tmpdir(), 'cairn-build-'));
try {
  const graph = join(work, 'graph.json');
  mkdirSync(join(work, 'files'));
  writeFileSync(graph, JSON.stringify({ version: 1, nodes: [{ id: 'f', type: 'file', params: { path: join(work, 'files/f'), content: 'x\n' } }] }));
  const env = { ...process.env, NO_COLOR: '1', CAIRN_STATE_DIR: join(work, 'state') };
  delete env.CAIRN_STORE;
  const run = (mode, extra = {}) =>
    spawnSync(process.execPath, [join(root, 'bin/cairn.js'), mode, graph], { env: { ...env, ...extra }, encoding: 'utf8' });
  run('apply');
  const salt = join(work, 'salt');
  mkdirSync(salt);
  writeFileSync(join(salt, 'top.sls'), "base:\n  '*':\n    - files\n");
  writeFileSync(join(salt, 'files.sls'), `f:\n  file.managed:\n    - name: ${join(work, 'files/s')}\n    - contents: "x"\n    - mode: '0644'\n`);
  const otter = join(work, 'otter');
  mkdirSync(otter);
  writeFileSync(join(otter, 'plan.otter'), `Ensure-File ${join(work, 'files/o')} (Text: x);\n`);
  mkdirSync(join(work, 'prog.zdb'));
  writeFileSync(join(work, 'prog.zdb/main.ini'), `######## z\n[file]\npath=${join(work, 'files/z')}\ncontent=x\n`);
  writeFileSync(join(work, 'main.hcl'), `file.content "c" {\n  destination = "${join(work, 'files/c')}"\n  content = "x"\n}\n`);
  const training = [
    ['salt', 'state.apply', '--file-root', salt],
    ['otter', 'run', join(otter, 'plan.otter'), '--root', otter, '--mode', 'execute'],
    ['zapusk', join(work, 'prog.zdb'), 'apply'],
    ['converge', 'apply', join(work, 'main.hcl')],
  ];
  for (const args of training) spawnSync(process.execPath, [join(root, 'bin/cairn.js'), ...args], { env, encoding: 'utf8' });
  const r = run('plan', { CAIRN_CODE_CACHE_WRITE: '1', CAIRN_CODE_CACHE_TRAIN: JSON.stringify(training) });
  if (r.status !== 0) throw new Error(`the training run failed (exit ${r.status}):\n${r.stderr}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
