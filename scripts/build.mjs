// Bundles the CLI into dist/ so it starts fast. Our code and the small libraries every run loads
// (valibot, commander, @noble/hashes' sha256) go into one CommonJS file, dist/cairn.cjs; a
// front end's modules in it are initialised only when its command runs (each `import()` becomes a lazy
// initialiser), and the other packages stay in node_modules, required on first use. CommonJS rather than ES modules because then
// bin/cairn.js can hand V8 a code cache (dist/cairn.cjs.cache and one per front end, written here by
// training runs): start-up then skips parsing and compiling what every run needs. The bundle is written
// beside dist/ and swapped in, so a CLI started during a rebuild never finds dist/ half-made.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const BUNDLED = new Set(['valibot', 'commander', '@noble/hashes']);
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

// The training runs: after one of them, bin/cairn.js writes V8's code cache of everything that process
// compiled. The general cache (dist/cairn.cjs.cache, every command but a front end's) comes from a no-op
// plan of a one-file graph; each front end gets its own (dist/cairn.cjs.FRONT-END.cache) from a no-op of
// one file in its language, so that its start-up deserializes its own code and not the other four's.
// Each training converges its one file first, then runs again as the no-op that writes the cache; the
// front ends train side by side. Without a cache (or when V8 rejects it) the CLI works the same, only
// slower to start.
const work = mkdtempSync(join(tmpdir(), 'cairn-build-'));
try {
  const files = join(work, 'files');
  mkdirSync(files);
  const put = (rel, text) => {
    mkdirSync(join(work, rel, '..'), { recursive: true });
    writeFileSync(join(work, rel), text);
    return join(work, rel);
  };
  const graph = put('graph.json', JSON.stringify({ version: 1, nodes: [{ id: 'f', type: 'file', params: { path: join(files, 'f'), content: 'x\n' } }] }));
  const salt = join(work, 'salt');
  put('salt/top.sls', "base:\n  '*':\n    - files\n");
  put('salt/files.sls', `f:\n  file.managed:\n    - name: ${join(files, 's')}\n    - contents: "x"\n    - mode: '0644'\n`);
  const hcl = put('converge/main.hcl', `file.content "f" {\n  destination = "${join(files, 'c')}"\n  content = "x"\n}\n`);
  const otter = put('otter/plan.otter', 'Ensure-File files/o (Text: x);\n');
  const zdb = join(work, 'prog.zdb');
  put('prog.zdb/main.ini', `######## f\n[file]\npath=${join(files, 'z')}\ncontent=x\n`);
  const inmanta = join(work, 'inmanta');
  put('inmanta/main.cf', `import fs\nh = std::Host(name="node1", os=std::linux)\nfs::File(host=h, path="${join(files, 'i')}", content="x", mode=644)\n`);
  const trainings = [
    { cache: 'cairn.cjs.cache', args: ['plan', graph], first: ['apply', graph] },
    { cache: 'cairn.cjs.salt.cache', args: ['salt', 'state.apply', '--file-root', salt] },
    { cache: 'cairn.cjs.converge.cache', args: ['converge', 'apply', hcl] },
    { cache: 'cairn.cjs.otter.cache', args: ['otter', 'run', otter, '--root', work, '--mode', 'execute'] },
    { cache: 'cairn.cjs.zapusk.cache', args: ['zapusk', zdb, 'apply'] },
    { cache: 'cairn.cjs.inmanta.cache', args: ['inmanta', 'deploy', inmanta] },
  ];
  const run = (args, i, extra = {}) =>
    new Promise((done) => {
      const env = { ...process.env, NO_COLOR: '1', CAIRN_STATE_DIR: join(work, `state-${i}`), ...extra };
      delete env.CAIRN_STORE;
      const child = spawn(process.execPath, [join(root, 'bin/cairn.js'), ...args], { env, cwd: work, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (status) => done({ status, stderr }));
    });
  await Promise.all(
    trainings.map(async (t, i) => {
      await run(t.first ?? t.args, i);
      const r = await run(t.args, i, { CAIRN_CODE_CACHE_WRITE: '1' });
      if (r.status !== 0) throw new Error(`the training run \`cairn ${t.args.join(' ')}\` failed (exit ${r.status}):\n${r.stderr}`);
      if (!existsSync(join(root, 'dist', t.cache))) throw new Error(`the training run \`cairn ${t.args.join(' ')}\` wrote no ${t.cache}`);
    }),
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
