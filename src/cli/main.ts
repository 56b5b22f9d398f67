/**
 * The composition root: arguments, wiring, output and exit codes. The only caller of process.exit.
 * `bin/cairn.js` calls `main()`; `runCli()` runs one command line inside a process that goes on living
 * (the test harness), returning the exit code instead of exiting.
 */
import { Command, CommanderError } from 'commander';
import type { RunOptions } from '../engine/run-options.js';
import { FRONT_ENDS } from './front-ends.js';
import { register as registerHosts } from './hosts.js';
import { addFleetOptions, type FleetOptions, wantsFleet } from './inventory.js';
import { addRunOptions } from './options.js';
import { registerDrift, registerHistory, registerServe, registerStore } from './store-command.js';
import { VERSION } from './version.js';
import { fromToolArgs } from './zapusk-command.js';

type CommonOptions = RunOptions & { out: 'text' | 'json'; changesOnly?: boolean };

async function runGraphCommand(mode: 'check' | 'apply' | 'collect', file: string, opts: CommonOptions & FleetOptions & { simulate?: boolean; profile?: boolean }): Promise<number> {
  if (opts.profile) (await import('../engine/profile.js')).startProfile();
  if (wantsFleet(opts)) {
    const { runGraphOnHosts } = await import('./hosts-graph.js');
    return runGraphOnHosts(file, opts.simulate ? 'simulate' : mode, opts);
  }
  const { runGraphFile } = await import('./run-graph.js');
  return runGraphFile(file, opts.simulate ? 'simulate' : mode, opts);
}

export function buildProgram(options: { exitOverride?: boolean } = {}): Command {
  const program = new Command('cairn');
  // Set before the subcommands are declared, so that they inherit it: help, --version and usage errors
  // then throw instead of calling process.exit.
  if (options.exitOverride) program.exitOverride();
  program
    .description(
      'Keep machines in a known state. cairn speaks Salt states, Converge, Zapusk, OtterScript and the ' +
        'Inmanta language, and its own resource graph: it shows what would change, makes the changes, ' +
        'records every run and reports drift.',
    )
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .configureHelp({ sortSubcommands: false });

  addFleetOptions(addRunOptions(program.command('plan').argument('<graph>', 'graph file (JSON, or YAML)')))
    .description('show what apply would change, changing nothing')
    .option('--profile', 'print the time of each stage (load, run, record, print) to stderr', false)
    .option('--changes-only', 'text output: leave out resources already in the right state (a line counts them)', false)
    .action(async (file: string, opts: CommonOptions & FleetOptions) => finish(await runGraphCommand('check', file, opts)));

  addFleetOptions(addRunOptions(program.command('apply').argument('<graph>', 'graph file (JSON, or YAML)')))
    .description('make the machine match the graph')
    .option('--profile', 'print the time of each stage (load, run, record, print) to stderr', false)
    .option('--changes-only', 'text output: leave out resources already in the right state (a line counts them)', false)
    .option('--simulate', 'run the whole apply against a host that records changes instead of making them', false)
    .action(async (file: string, opts: CommonOptions & FleetOptions & { simulate: boolean }) => finish(await runGraphCommand('apply', file, opts)));

  addFleetOptions(addRunOptions(program.command('collect').argument('<graph>', 'graph file (JSON, or YAML)')))
    .description('collect only: record drift from the graph in the run history, changing nothing')
    .option('--profile', 'print the time of each stage (load, run, record, print) to stderr', false)
    .option('--changes-only', 'text output: leave out resources already in the right state (a line counts them)', false)
    .action(async (file: string, opts: CommonOptions & FleetOptions) => finish(await runGraphCommand('collect', file, opts)));

  registerHistory(program);
  registerDrift(program);
  registerStore(program);
  registerServe(program);

  registerHosts(program, finish);

  program
    .command('explain')
    .argument('<code>', 'a diagnostic code, e.g. G010')
    .description('explain a diagnostic code: what it means and what to do')
    .action(async (code: string) => {
      const { explain } = await import('../engine/explain.js');
      finish(explain(code));
    });

  for (const frontEnd of FRONT_ENDS) frontEnd.register(program);
  return program;
}

function finish(code: number): void {
  process.exitCode = code;
}

/**
 * Arguments as commander should see them: `--no-color` is taken anywhere on the line (it sets NO_COLOR for
 * the whole process), and `cairn zapusk` also takes zapusk-tool's own argument style, rewritten to ours.
 */
function cairnArgs(argv: readonly string[]): string[] {
  const args = argv.filter((a) => a !== '--no-color');
  if (args.length !== argv.length) process.env.NO_COLOR = '1';
  if (args[2] !== 'zapusk') return args;
  const ours = fromToolArgs(args.slice(3), process.env);
  return ours ? [...args.slice(0, 3), ...ours] : args;
}

/**
 * The one process-level handler: whatever escapes a command (or an event handler) is reported once,
 * without a raw stack, and the process exits 1. A reader that goes away (`cairn plan x | head -1`) is not
 * an error: output stops quietly while the run finishes and is recorded.
 */
function guardProcess(): void {
  const fatal = async (e: unknown): Promise<void> => {
    const { reportError } = await import('../engine/errors.js');
    reportError(e);
    process.exit(1);
  };
  process.on('uncaughtException', (e) => void fatal(e));
  process.on('unhandledRejection', (e) => void fatal(e));
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') return void fatal(e);
      stream.write = (() => true) as typeof stream.write;
    });
  }
}

export async function main(): Promise<void> {
  guardProcess();
  try {
    await buildProgram().parseAsync(cairnArgs(process.argv));
  } catch (e) {
    const { reportError } = await import('../engine/errors.js');
    process.exitCode = reportError(e);
  }
}

/**
 * One command line (`argv` as process.argv: node, script, arguments) run in this process: the exit code
 * is returned and process.exitCode left as it was. The caller owns process-wide state (argv, environment,
 * working directory, where stdout and stderr go) and restores it between runs.
 */
export async function runCli(argv: readonly string[]): Promise<number> {
  const before = process.exitCode;
  process.exitCode = undefined;
  try {
    await buildProgram({ exitOverride: true }).parseAsync(cairnArgs(argv));
    return Number(process.exitCode ?? 0);
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode;
    const { reportError } = await import('../engine/errors.js');
    return reportError(e);
  } finally {
    process.exitCode = before;
  }
}

/**
 * For a process that runs many command lines (runCli's callers): this machine's facts are read once per
 * working directory and environment instead of once per command line (host/local.ts).
 */
export async function rememberLocalFacts(): Promise<void> {
  (await import('../host/local.js')).rememberLocalFacts();
}
