/** Runs the built CLI (dist/) as a user would, in temp dirs. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
export const CAIRN = join(ROOT, 'bin/cairn.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function cairn(args: readonly string[], options: { cwd?: string; env?: Record<string, string> } = {}): CliResult {
  if (!existsSync(join(ROOT, 'dist/main.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  const r = spawnSync(process.execPath, [CAIRN, ...args], {
    cwd: options.cwd ?? ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '', ...options.env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export function tempDir(prefix = 'cairn-cli-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Writes a graph file and returns its path. */
export function writeGraph(dir: string, nodes: unknown[], name = 'graph.json'): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify({ version: 1, nodes }, null, 2));
  return file;
}

export function assertNoStack(text: string): void {
  if (/\n\s+at .+:\d+:\d+\)?/.test(text)) throw new Error(`a stack trace reached the user:\n${text}`);
}
