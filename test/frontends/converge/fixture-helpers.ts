/** Shared by the converge CLI tests: fixture text, temp dirs, and `cairn converge` with the fixtures' params. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after } from 'node:test';
import { cairn } from '../../cli/cli-helpers.js';

export const FIX = resolve(import.meta.dirname, '../../fixtures/converge');

// Fixed-length temp dirs: the expected text is tabwriter-aligned around the path.
const dirs: string[] = [];
export function tempDir(): string {
  const d = mkdtempSync('/tmp/cairn-cv-');
  dirs.push(d);
  return d;
}
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

export function expected(name: string, dir: string): string {
  return readFileSync(join(FIX, name), 'utf8').replaceAll('@DIR@', dir);
}

export function run(args: string[], dir: string) {
  return cairn(['converge', ...args, '-p', `dir=${dir}`, '--state-dir', join(dir, '.state')]);
}
