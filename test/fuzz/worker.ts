/**
 * Runs one fuzz target in a worker thread, so the test's watchdog can stop an input that never ends.
 * Tells the parent when each input starts and how it ended: `ok` (loaded, or refused with positioned
 * diagnostics) or the problem (an internal error, or a diagnostic without a file:line:col).
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import type { Diagnostic } from '../../src/core/diag.js';
import { mutate, prng } from './mutate.js';
import { FIXTURES, targets } from './targets.js';

export interface Job {
  readonly target: string;
  readonly seed: number;
  readonly count: number;
  /** Only this input (reproduces one case). */
  readonly only?: number;
}

export type Message = { t: 'start'; i: number; what: string; dir: string } | { t: 'done'; i: number; refused: boolean; problem?: string } | { t: 'end' };

function filesOf(dir: string, base = dir): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) for (const [k, v] of filesOf(p, base)) out.set(k, v);
    else out.set(relative(base, p), readFileSync(p));
  }
  return out;
}

function unpositioned(d: Diagnostic): boolean {
  const s = d.span;
  return !s || s.file === '' || !Number.isInteger(s.line) || !Number.isInteger(s.col) || s.line < 1 || s.col < 1;
}

function describe(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message.slice(0, 300)}\n${(e.stack ?? '').split('\n').slice(1, 6).join('\n')}`;
  return `thrown non-error: ${String(e).slice(0, 300)}`;
}

async function main(job: Job): Promise<void> {
  const target = targets.find((t) => t.name === job.target);
  if (!target) throw new Error(`no fuzz target ${job.target}`);
  const root = join(tmpdir(), `cairn-fuzz-${target.name}-${process.pid}-${Date.now()}`);
  // One working copy per seed folder: an input overwrites one file of it and puts it back after.
  const seeds = target.seeds.map((s, k) => {
    const files = filesOf(join(FIXTURES, s));
    const dir = join(root, `seed${k}`);
    for (const [rel, content] of files) {
      mkdirSync(dirname(join(dir, rel)), { recursive: true });
      writeFileSync(join(dir, rel), content);
    }
    return { name: s, files, dir, mutable: [...files.keys()].filter(target.mutable).sort() };
  });
  const post = (m: Message): void => parentPort?.postMessage(m);
  let kept = 0;
  for (let i = 0; i < job.count; i++) {
    if (job.only !== undefined && i !== job.only) continue;
    // One PRNG per input: case i is the same whatever ran before it.
    const r = prng(job.seed * 1_000_003 + i);
    const seed = seeds[Math.floor(r() * seeds.length)] as (typeof seeds)[number];
    const file = seed.mutable[Math.floor(r() * seed.mutable.length)] as string;
    writeFileSync(join(seed.dir, file), mutate(r, seed.files.get(file) as Buffer));
    post({ t: 'start', i, what: `${seed.name}/${file}`, dir: seed.dir });
    let problem: string | undefined;
    let refused = false;
    try {
      const diags = await target.run(seed.dir);
      refused = diags.some((d) => d.severity !== 'warning');
      const bad = diags.filter((d) => d.severity !== 'warning' && unpositioned(d));
      if (bad.length > 0) problem = `diagnostic without a position: ${bad.map((d) => `${d.code} ${d.message.slice(0, 200)}`).join(' | ')}`;
    } catch (e) {
      problem = `internal error: ${describe(e)}`;
    }
    // A failing input is kept for the report (at most a few); the working copy gets the seed back.
    if (problem && kept++ < 10) {
      const keep = join(root, `case-${i}`);
      cpSync(seed.dir, keep, { recursive: true });
      problem = `${problem} (input kept in ${keep})`;
    }
    writeFileSync(join(seed.dir, file), seed.files.get(file) as Buffer);
    post({ t: 'done', i, refused, ...(problem ? { problem } : {}) });
  }
  for (const s of seeds) rmSync(s.dir, { recursive: true, force: true });
  if (readdirSync(root).length === 0) rmSync(root, { recursive: true, force: true });
  post({ t: 'end' });
}

void main(workerData as Job);
