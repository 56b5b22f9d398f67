/**
 * Runs one fuzz target in a worker thread, so the test's watchdog can stop an input that never ends.
 * Tells the parent when each input starts and how it ended: `ok` (loaded, or refused with positioned
 * diagnostics) or the problem (an internal error, or a diagnostic without a file:line:col).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
  const seeds = target.seeds.map((s) => ({ name: s, files: filesOf(join(FIXTURES, s)) }));
  const root = join(tmpdir(), `cairn-fuzz-${target.name}-${process.pid}-${Date.now()}`);
  const post = (m: Message): void => parentPort?.postMessage(m);
  for (let i = 0; i < job.count; i++) {
    if (job.only !== undefined && i !== job.only) continue;
    // One PRNG per input: case i is the same whatever ran before it.
    const r = prng(job.seed * 1_000_003 + i);
    const seed = seeds[Math.floor(r() * seeds.length)] as (typeof seeds)[number];
    const mutable = [...seed.files.keys()].filter(target.mutable).sort();
    const file = mutable[Math.floor(r() * mutable.length)] as string;
    const dir = join(root, String(i));
    for (const [rel, content] of seed.files) {
      mkdirSync(dirname(join(dir, rel)), { recursive: true });
      writeFileSync(join(dir, rel), rel === file ? mutate(r, content) : content);
    }
    post({ t: 'start', i, what: `${seed.name}/${file}`, dir });
    let problem: string | undefined;
    let refused = false;
    try {
      const diags = await target.run(dir);
      refused = diags.some((d) => d.severity !== 'warning');
      const bad = diags.filter((d) => d.severity !== 'warning' && unpositioned(d));
      if (bad.length > 0) problem = `diagnostic without a position: ${bad.map((d) => `${d.code} ${d.message.slice(0, 200)}`).join(' | ')}`;
    } catch (e) {
      problem = `internal error: ${describe(e)}`;
    }
    post({ t: 'done', i, refused, ...(problem ? { problem } : {}) });
    // A failing input is kept for the report; the others go.
    if (!problem) rmSync(dir, { recursive: true, force: true });
  }
  if (readdirSync(root).length === 0) rmSync(root, { recursive: true, force: true });
  post({ t: 'end' });
}

void main(workerData as Job);
