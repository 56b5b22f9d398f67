/**
 * Runs the built CLI (dist/) as a user would, in temp dirs: in this process by default (a worker thread
 * with the CLI loaded once, see test/harness/in-process.ts), or as its own process with cairnSpawned() for
 * what only a real process shows (bin/cairn.js, signals, a closed pipe, locks held by another process).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runInProcess } from '../harness/in-process.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const CAIRN = join(ROOT, 'bin/cairn.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  env?: Record<string, string>;
}

function cliEnv(options: CliOptions): NodeJS.ProcessEnv {
  return { ...process.env, NO_COLOR: '1', FORCE_COLOR: '', ...options.env };
}

function needDist(): void {
  if (!existsSync(join(ROOT, 'dist/cairn.cjs'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
}

/** `cairn ARGS…` run in this process (the CLI's runCli entry), with its exit code, stdout and stderr. */
export function cairn(args: readonly string[], options: CliOptions = {}): CliResult {
  needDist();
  return runInProcess(ROOT, CAIRN, args, options.cwd ?? ROOT, cliEnv(options));
}

/** `node bin/cairn.js ARGS…` as its own process: for what only a real process shows. */
export function cairnSpawned(args: readonly string[], options: CliOptions = {}): CliResult {
  needDist();
  const r = spawnSync(process.execPath, [CAIRN, ...args], { cwd: options.cwd ?? ROOT, encoding: 'utf8', env: cliEnv(options) });
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
