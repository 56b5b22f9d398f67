// Bundles the CLI into dist/ so it starts fast: our own code in a few files, libraries loaded from
// node_modules, front ends split into chunks that load only when their command runs. The two small ESM
// libraries every run loads are bundled too: valibot is built to be tree-shaken (about 200 KB of it
// would otherwise be parsed for the few dozen functions the resource schemas use). The bundle is
// written beside dist/ and swapped in, so a CLI started during a rebuild never finds dist/ half-made.
import { renameSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const BUNDLED = new Set(['valibot', 'picocolors']);
const packageOf = (spec) => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');
/** Every other package stays in node_modules, loaded on first use. */
const externalPackages = {
  name: 'external-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (a) => (BUNDLED.has(packageOf(a.path)) ? undefined : { path: a.path, external: true }));
  },
};
const fresh = `${root}dist.build-${process.pid}`;
const old = `${root}dist.old-${process.pid}`;
try {
  await build({
    // version.js alone answers `cairn --version` without loading the CLI (bin/cairn.js).
    entryPoints: [`${root}src/cli/main.ts`, `${root}src/cli/version.ts`],
    outdir: fresh,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    plugins: [externalPackages],
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  try {
    renameSync(`${root}dist`, old);
  } catch {}
  renameSync(fresh, `${root}dist`);
} finally {
  rmSync(fresh, { recursive: true, force: true });
  rmSync(old, { recursive: true, force: true });
}
