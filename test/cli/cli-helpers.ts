/** Runs the built CLI (dist/) as a user would, in temp dirs. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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

const made: string[] = [];
process.on('exit', () => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** A fresh temp dir under `base` (the system's by default), removed when the test process ends. */
export function tempDir(prefix = 'cairn-cli-', base = tmpdir()): string {
  const d = mkdtempSync(join(base, prefix));
  made.push(d);
  return d;
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
