// Bundles the CLI into dist/ so it starts fast: our own code in a few files, libraries loaded from
// node_modules, front ends split into chunks that load only when their command runs.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';

const root = new URL('..', import.meta.url).pathname;
rmSync(`${root}dist`, { recursive: true, force: true });
await build({
  entryPoints: [`${root}src/cli/main.ts`],
  outdir: `${root}dist`,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
});
