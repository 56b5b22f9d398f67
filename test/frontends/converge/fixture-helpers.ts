/** Shared by the converge CLI tests: fixture text, temp dirs, and `cairn converge` with the fixtures' params. */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cairn, tempDir as temp } from '../../cli/cli-helpers.js';

export const FIX = resolve(import.meta.dirname, '../../fixtures/converge');

// Fixed-length temp dirs: the expected text is tabwriter-aligned around the path.
export function tempDir(): string {
  return temp('cairn-cv-', '/tmp');
}

export function expected(name: string, dir: string): string {
  return readFileSync(join(FIX, name), 'utf8').replaceAll('@DIR@', dir);
}

export function run(args: string[], dir: string) {
  return cairn(['converge', ...args, '-p', `dir=${dir}`, '--state-dir', join(dir, '.state')]);
}
