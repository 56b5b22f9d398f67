/** `cairn zapusk`: wires the Zapusk front end to the local host (or, with --hosts, each selected host), the terminal and the run store. */
import { dirname, join, resolve } from 'node:path';
import type { Value } from '../frontends/zapusk/reader.js';
import { prepare, runZapusk, type ZapuskOutcome } from '../frontends/zapusk/index.js';
import { initProgram, printHelp } from '../frontends/zapusk/init.js';
import { formatDiagnostic } from '../core/diag.js';
import type { NodeResult, RunMode } from '../core/model.js';
import { emptyCounts, type RunReport } from '../core/runtime.js';
import { LocalHost } from '../host/local.js';
import type { Host } from '../host/types.js';
import type { HostRun } from './fleet-run.js';
import { type FleetOptions, wantsFleet } from './inventory.js';
import { defaultStateDir } from '../store/index.js';
import { useColor } from '../engine/color.js';
import { printDiagnostics } from '../engine/errors.js';
import { exitCodeFor } from '../engine/exit-code.js';
import { withRunStore } from '../engine/session.js';
import type { ZapuskCliOptions } from './zapusk-command.js';
import { HELP, USAGE } from './zapusk-help.js';
import { writeErr, writeOut } from '../engine/stdio.js';

function parseParam(arg: string): readonly [string, Value] {
  const eq = arg.indexOf('=');
  return eq < 0 ? [arg, true] : [arg.slice(0, eq), arg.slice(eq + 1)];
}

function cairnScript(): string {
  return resolve(process.argv[1] ?? 'cairn');
}

function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** What `{{zapusk_tool}}` runs: this node and this cairn, at the zapusk command (with the same tool folder). */
function toolCommand(toolDir: string | undefined): string {
  return [process.execPath, cairnScript(), 'zapusk', ...(toolDir === undefined ? [] : ['--tool-dir', resolve(toolDir)])].map(shellWord).join(' ');
}

function json(outcome: ZapuskOutcome, runId: number, dry: boolean): string {
  const record = {
    run: runId,
    front_end: 'zapusk',
    program: outcome.program,
    command: outcome.command,
    ...(dry ? { dry_run: true } : {}),
    state_dir: outcome.stateDir,
    exit_code: outcome.exitCode,
    ...(outcome.error ? { error: { code: outcome.error.code, message: outcome.error.message, ...(outcome.error.span ? { span: outcome.error.span } : {}) } } : {}),
    results: outcome.results,
  };
  return `${JSON.stringify(record, null, 2)}\n`;
}

/** `init` and `help` are zapusk-tool's service commands: `cairn zapusk init`, `cairn zapusk DIR init`, `cairn zapusk help`. */
async function serviceCommand(dir: string, commandArg: string, rest: readonly string[]): Promise<number | undefined> {
  const alone = commandArg === 'apply' && rest.length === 0;
  const service = alone && (dir === 'init' || dir === 'help') ? dir : commandArg === 'init' || commandArg === 'help' ? commandArg : undefined;
  if (service === undefined) return undefined;
  const o = { host: new LocalHost(), write: writeOut, color: useColor(), padding: process.env.ZAPUSK_PADDING ?? '', now: Date.now };
  if (service === 'help') {
    printHelp(`${USAGE}\n${HELP}`, o);
    return 0;
  }
  return initProgram(dir === 'init' && alone ? '.' : dir, o);
}

export async function runZapuskCommand(dir: string, commandArg: string, rest: string[], opts: ZapuskCliOptions & FleetOptions): Promise<number> {
  const service = await serviceCommand(dir, commandArg, rest);
  if (service !== undefined) return service;
  // `cairn zapusk x.zdb a=1` has no command: it is apply, as with zapusk-tool.
  const [word, params] = commandArg.includes('=') ? ['apply', [commandArg, ...rest]] : [commandArg, rest];
  // `plan` is a dry run of apply; --dry-run makes any command one.
  const dry = word === 'plan' || opts.dryRun;
  const command = word === 'plan' ? 'apply' : word;
  // --state-dir is the run store's directory, as for every command; the program instance's own state dir
  // is zapusk-tool's --state_dir, and never changes where the run is recorded.
  const cairnState = opts.stateDir ?? defaultStateDir();
  const base = {
    programDir: dir,
    command,
    request: params.map(parseParam),
    stateDir: opts.state_dir,
    defaultStateRoot: join(cairnState, 'zapusk'),
    libDirs: opts.lib,
    // The folder zapusk-tool's files sit in: --tool-dir, else $CAIRN_ZAPUSK_TOOL_DIR, else cairn's bin folder.
    toolDir: resolve(opts.toolDir ?? (process.env.CAIRN_ZAPUSK_TOOL_DIR || dirname(cairnScript()))),
  };
  const prepared = prepare(base);
  const quiet = opts.out === 'json';
  const mode: RunMode = dry ? 'check' : command === 'destroy' ? 'destroy' : 'apply';
  /** One run of the program acting on `host`, its output going to `write`. */
  const runOn = (host: Host, write: (t: string) => void, writeErr: (t: string) => void, color: boolean, on = prepared, flagCacheDir?: string): Promise<ZapuskOutcome> =>
    runZapusk(
      { ...base, debug: opts.debug, force: opts.force, dry, changesOnly: opts.changesOnly, only: opts.only, toolCommand: toolCommand(opts.toolDir), host, write, writeErr, color, quiet, env: process.env, now: Date.now, flagCacheDir },
      on,
    );
  // zapusk-tool's exit code stands; with --detailed-exitcode a successful run that changed (or would change) something exits 2.
  const changedBy = (outcome: ZapuskOutcome): boolean => outcome.results.some((r) => r.status === 'changed' || r.status === 'pending');
  if (wantsFleet(opts)) {
    // The fleet wiring (and the SSH client under it) is loaded only for a run on many hosts.
    const { runOnFleet } = await import('./fleet-run.js');
    return runOnFleet({ ...opts, stateDir: cairnState }, { mode, frontEnd: 'zapusk', source: [resolve(dir)], json: { program: resolve(dir), command } }, async (host): Promise<HostRun> => {
      const started = Date.now();
      let text = '';
      // Without --state_dir or zapusk.conf's state_dir, another machine keeps the program's state under its
      // own cairn state dir (its $XDG_STATE_HOME or ~/.local/state), not under a path of this one.
      const onTarget = host instanceof LocalHost ? prepared : prepare({ ...base, defaultStateRoot: join(defaultStateDir((await host.facts()).env), 'zapusk') });
      const outcome = await runOn(host, (t) => (text += t), (t) => (text += t), false, onTarget);
      if (outcome.error) text += `${formatDiagnostic(outcome.error)}\n`;
      return { ...reportOf(mode, outcome.results, started), text, failed: outcome.exitCode !== 0 };
    });
  }
  const store = opts.store !== undefined ? { store: opts.store } : { stateDir: cairnState };
  return withRunStore({ ...store, lockTimeout: opts.lockTimeout }, { mode, frontEnd: 'zapusk', source: [resolve(dir)] }, async () => {
    // Written until its reader goes away (`| head`); the run itself goes on to the end (engine/stdio.ts).
    // What [file] flags of this machine held, kept beside the run store (flag-cache.ts).
    const outcome = await runOn(new LocalHost(), writeOut, writeErr, !quiet && useColor(), prepared, join(cairnState, 'zapusk-flags'));
    return {
      results: outcome.results,
      exitCode: outcome.exitCode !== 0 ? outcome.exitCode : exitCodeFor({ failed: false, changed: changedBy(outcome) }, opts.detailedExitcode),
      print: (runId) => {
        if (outcome.error) printDiagnostics([outcome.error]);
        if (opts.out === 'json') writeOut(json(outcome, runId, dry));
      },
    };
  });
}

/** A Zapusk run's results as the shared report the fleet output counts. */
function reportOf(mode: RunMode, results: readonly NodeResult[], started: number): RunReport {
  const counts = emptyCounts();
  for (const r of results) if (r.status in counts) counts[r.status as keyof typeof counts] += 1;
  return { mode, results, counts, start: new Date(started).toISOString(), durationMs: Date.now() - started };
}
