import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeArgs } from '../harness/compiled.js';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const holderScript = fileURLToPath(new URL('./fixtures/lock-holder.ts', import.meta.url));

export function tempDir(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-store-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The pid of a process that has already exited. */
export function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' });
  if (r.pid === undefined) throw new Error('could not spawn node');
  return r.pid;
}

export interface Holder {
  readonly child: ChildProcessWithoutNullStreams;
  /** Resolves with the first stdout line that starts with `prefix`. */
  line(prefix: string): Promise<string>;
  readonly stderr: () => string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs fixtures/lock-holder.ts on `dir` in its own node process. */
export function startHolder(dir: string, ...args: string[]): Holder {
  const child = spawn(process.execPath, [...nodeArgs(holderScript), dir, ...args], { cwd: repoRoot });
  let out = '';
  let err = '';
  const waiters: Array<{ prefix: string; resolve: (l: string) => void }> = [];
  const check = (): void => {
    for (const w of [...waiters]) {
      const line = out.split('\n').find((l) => l.startsWith(w.prefix));
      if (line !== undefined) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  };
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
    check();
  });
  child.stderr.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    stderr: () => err,
    exited,
    line: (prefix) =>
      new Promise<string>((resolve, reject) => {
        waiters.push({ prefix, resolve });
        check();
        void exited.then(({ code, signal }) =>
          reject(new Error(`holder exited (${code ?? signal}) before "${prefix}"; stdout: ${out} stderr: ${err}`)),
        );
      }),
  };
}
