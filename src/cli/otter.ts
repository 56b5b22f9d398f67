/** `cairn otter run`: parse, check, lock, run in the chosen mode, record, print the execution log. */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, resolve } from 'node:path';
import { DiagnosticError } from '../core/diag.js';
import type { RunMode } from '../core/model.js';
import { checkScript, indentedLines, type OtterRunResult, parseScript, plainLines, RaftLoader, runOtter, type Value } from '../frontends/otter/index.js';
import { LocalHost } from '../host/local.js';
import { SimulatedHost } from '../host/simulated.js';
import type { Host } from '../host/types.js';
import { UserError } from '../engine/errors.js';
import type { OtterOptions } from './otter-command.js';
import { withRunStore } from '../engine/session.js';

function readScript(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UserError(`cannot read script ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (e as Error).message}`);
  }
}

function variables(pairs: readonly string[]): Map<string, Value> {
  const out = new Map<string, Value>();
  for (const pair of pairs) {
    const i = pair.indexOf('=');
    out.set(pair.slice(0, i).replace(/^\$/, ''), pair.slice(i + 1));
  }
  return out;
}

const STATUS = { normal: 'Normal', warning: 'Warning', error: 'Error' } as const;

/** The log (scopes as headers), then the final status, then for collect runs the drift report. */
function printText(result: OtterRunResult, opts: OtterOptions, runId: number): void {
  const lines = indentedLines(result.log);
  lines.push('');
  if (opts.simulation) lines.push('Simulation: nothing was changed.');
  lines.push(`Status: ${STATUS[result.status]} (run ${runId})`);
  if (opts.mode !== 'execute') {
    lines.push('');
    if (result.drift.length === 0) lines.push('No drift.');
    else {
      lines.push(opts.mode === 'collect' ? 'Drift (nothing changed):' : 'Drift:');
      for (const d of result.drift) lines.push(`  ${d.operation} ${d.key}: ${d.properties.join(', ')}`);
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Exactly the shape: status, `LEVEL: message` lines without scopes, and drift in the script's names. */
function printJson(result: OtterRunResult): void {
  const out = {
    status: STATUS[result.status],
    log: plainLines(result.log),
    drift: result.drift.map((d) => ({ operation: d.operation, key: d.key, properties: [...d.properties] })),
  };
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
}

export async function runOtterCommand(file: string, opts: OtterOptions): Promise<number> {
  const script = parseScript(file, readScript(file));
  const local: Host = new LocalHost();
  const host: Host = opts.simulation ? new SimulatedHost(local) : local;
  const root = resolve(opts.root ?? process.cwd());
  const raftDir = resolve(opts.raft ?? dirname(file));
  const vars = variables(opts.var);
  const problems = await checkScript(script, new RaftLoader(raftDir, host), new Set(vars.keys()));
  if (problems.length > 0) throw new DiagnosticError(problems);
  const runMode: RunMode = opts.simulation ? 'simulate' : opts.mode === 'collect' ? 'collect' : 'apply';
  return withRunStore(opts, { mode: runMode, frontEnd: 'otter', source: [file] }, async () => {
    const result = await runOtter(script, {
      mode: opts.mode,
      simulation: opts.simulation,
      host,
      root,
      raftDir,
      variables: vars,
      serverName: hostname(),
      roles: [],
      environmentName: '',
    });
    const failed = result.status === 'error';
    const exitCode = failed ? 1 : opts.detailedExitcode && (result.drift.length > 0 || result.changed) ? 2 : 0;
    return {
      results: result.results,
      exitCode,
      print: (runId) => (opts.out === 'json' ? printJson(result) : printText(result, opts, runId)),
    };
  });
}
