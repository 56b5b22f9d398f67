/**
 * A TypeScript file of the tree started in its own thread or process. Under scripts/run-tests.mjs the
 * tree is compiled once (scripts/test-build.mjs, its folder in CAIRN_TEST_BUILD) and the compiled copy
 * runs without a loader; a test file run some other way (`node --import tsx --test FILE`) starts the .ts
 * file with tsx.
 */
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = resolve(import.meta.dirname, '../..');

/** The compiled copy of `tsFile` when this run has one. */
function compiledOf(tsFile: string): string | undefined {
  const build = process.env.CAIRN_TEST_BUILD;
  if (!build) return undefined;
  const js = join(build, relative(ROOT, tsFile).replace(/\.ts$/, '.js'));
  return existsSync(js) ? js : undefined;
}

/** Node arguments that run `tsFile` as a program: its compiled copy, or the .ts file under tsx. */
export function nodeArgs(tsFile: string): string[] {
  const js = compiledOf(tsFile);
  return js ? [js] : ['--import', 'tsx', tsFile];
}

/** Source for `new Worker(source, { eval: true })` that loads `tsFile` as a module in the worker. */
export function workerBoot(tsFile: string): string {
  const js = compiledOf(tsFile);
  if (js) return `import(${JSON.stringify(pathToFileURL(js).href)})`;
  // A worker thread does not inherit the TypeScript loader: it registers it, then loads the file.
  return `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(pathToFileURL(tsFile).href)}); })`;
}
