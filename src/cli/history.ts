/** `cairn history [RUN]`: the recorded runs of a state directory. */
import type { RunMode } from '../core/model.js';
import { countResults } from '../core/runtime.js';
import { defaultStateDir, getRun, listRuns, type RunSummary } from '../store/index.js';
import { UserError } from '../engine/errors.js';
import { formatResults, formatSummary } from '../engine/format-text.js';

function countsText(s: RunSummary): string {
  const c = s.counts;
  if (!c) return '-';
  const changed = s.mode === 'apply' || s.mode === 'simulate' ? `${c.changed} changed` : `${c.pending} ${s.mode === 'collect' ? 'drifted' : 'to change'}`;
  return `${c.ok} ok, ${changed}, ${c.failed} failed, ${c.skipped} skipped`;
}

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ')).join('\n');
}

/** Whether a run acted on `host` (a fleet run records each result's host). */
function touched(dir: string, id: number, host: string): boolean {
  return (getRun(dir, String(id))?.results ?? []).some((r) => (r as { host?: string }).host === host);
}

export async function showHistory(run: string | undefined, opts: { out: 'text' | 'json'; stateDir?: string; limit: number; host?: string }): Promise<number> {
  const dir = opts.stateDir ?? defaultStateDir();
  const host = opts.host;
  if (run === undefined) {
    const runs = host === undefined ? listRuns(dir, { limit: opts.limit }) : listRuns(dir).filter((s) => touched(dir, s.id, host)).slice(0, opts.limit);
    if (opts.out === 'json') {
      process.stdout.write(`${JSON.stringify(runs, null, 2)}\n`);
      return 0;
    }
    if (runs.length === 0) {
      process.stdout.write(`no runs recorded in ${dir}\n`);
      return 0;
    }
    const rows = [['RUN', 'STARTED', 'MODE', 'STATE', 'EXIT', 'RESULTS', 'SOURCE']];
    for (const s of runs) {
      rows.push([String(s.id), s.start.replace('T', ' ').replace(/\.\d+Z$/, 'Z'), s.mode, s.state, s.exitCode === undefined ? '-' : String(s.exitCode), countsText(s), `${s.frontEnd} ${s.source.join(' ')}`]);
    }
    process.stdout.write(`${table(rows)}\n`);
    return 0;
  }
  const found = getRun(dir, run);
  if (!found) throw new UserError(`no run ${JSON.stringify(run)} in ${dir} (cairn history lists the runs)`);
  const mine = found.results.filter((r) => (r as { host?: string }).host === host);
  const record = host === undefined ? found : { ...found, results: mine, counts: countResults(mine) };
  if (opts.out === 'json') {
    process.stdout.write(`${JSON.stringify(record, null, 2)}\n`);
    return 0;
  }
  const mode: RunMode = record.mode;
  process.stdout.write(`run ${record.id}: ${record.command}\nstarted ${record.start}, ${record.state}${record.exitCode === undefined ? '' : `, exit ${record.exitCode}`}\n`);
  if (record.results.length > 0) process.stdout.write(`${formatResults(record.results, mode)}\n`);
  if (record.counts) process.stdout.write(`${formatSummary(mode, record.counts, record.results.length, record.durationMs ?? 0, record.id)}\n`);
  return 0;
}
