/**
 * `--profile`: stage times of one command, printed to stderr when it ends. Each `mark(stage)` closes the
 * stage that ran since the previous mark; when profiling is off a mark costs one branch.
 */
import { writeErr } from './stdio.js';

let last: number | undefined;
const stages: Array<[string, number]> = [];

/** Turns profiling on; the time from process start to here is the "startup" stage. */
export function startProfile(): void {
  if (last !== undefined) return;
  last = performance.now();
  stages.push(['startup', last]);
  process.once('exit', () => writeErr(formatProfile()));
}

export function profiling(): boolean {
  return last !== undefined;
}

/** Ends the stage called `stage` now. */
export function mark(stage: string): void {
  if (last === undefined) return;
  const now = performance.now();
  stages.push([stage, now - last]);
  last = now;
}

export function formatProfile(): string {
  const total = stages.reduce((s, [, ms]) => s + ms, 0);
  const rss = process.memoryUsage.rss() / (1024 * 1024);
  const lines = stages.map(([name, ms]) => `profile: ${name.padEnd(10)} ${ms.toFixed(1).padStart(9)} ms`);
  return `${lines.join('\n')}\nprofile: ${'total'.padEnd(10)} ${total.toFixed(1).padStart(9)} ms  rss ${rss.toFixed(0)} MiB\n`;
}
