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
import { allowHeapTuning } from '../engine/heap.js';
import { guardStdio } from '../engine/stdio.js';
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

/** A top-level command (or a few that share a declaration) and how to declare it. */
interface CommandEntry {
  readonly names: readonly string[];
  readonly register: (program: Command) => void;
}

const GRAPH_COMMANDS = [
  { name: 'plan', mode: 'check', description: 'show what apply would change, changing nothing' },
  { name: 'apply', mode: 'apply', description: 'make the machine match the graph' },
  { name: 'collect', mode: 'collect', description: 'collect only: record drift from the graph in the run history, changing nothing' },
] as const;

function registerGraphCommand(program: Command, { name, mode, description }: (typeof GRAPH_COMMANDS)[number]): void {
  const command = addFleetOptions(addRunOptions(program.command(name).argument('<graph>', 'graph file (JSON, or YAML)')))
    .description(description)
    .option('--profile', 'print the time of each stage (load, run, record, print) to stderr', false)
    .option('--changes-only', 'text output: leave out resources already in the right state (a line counts them)', false);
  if (mode === 'apply') command.option('--simulate', 'run the whole apply against a host that records changes instead of making them', false);
  command.action(async (file: string, opts: CommonOptions & FleetOptions & { simulate?: boolean }) => finish(await runGraphCommand(mode, file, opts)));
}

function registerExplain(program: Command): void {
  program
    .command('explain')
    .argument('<code>', 'a diagnostic code, e.g. G010')
    .description('explain a diagnostic code: what it means and what to do')
    .action(async (code: string) => {
      const { explain } = await import('../engine/explain.js');
      finish(explain(code));
    });
}

/** Every top-level command, in the order `cairn --help` lists them. */
const COMMANDS: readonly CommandEntry[] = [
  ...GRAPH_COMMANDS.map((c) => ({ names: [c.name], register: (program: Command) => registerGraphCommand(program, c) })),
  { names: ['history'], register: registerHistory },
  { names: ['drift'], register: registerDrift },
  { names: ['store'], register: registerStore },
  { names: ['serve'], register: registerServe },
  { names: ['hosts', 'ping'], register: (program) => registerHosts(program, finish) },
  { names: ['explain'], register: registerExplain },
  ...FRONT_ENDS.map((f) => ({ names: [f.name], register: f.register })),
];

/**
 * The command line's program. Given the arguments, only the command they name is declared (its options
 * and its subcommands): declaring all of them is a good share of a small run's start-up. Help, --version,
 * and a name that is no command get every command, so help lists them all and a typo gets suggestions.
 */
export function buildProgram(options: { exitOverride?: boolean; args?: readonly string[] } = {}): Command {
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

  const named = options.args?.[2];
  const only = COMMANDS.find((c) => named !== undefined && c.names.includes(named));
  for (const command of only ? [only] : COMMANDS) command.register(program);
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
  guardStdio((e) => void fatal(e));
}

export async function main(): Promise<void> {
  guardProcess();
  // A training run of the build (bin/cairn.js) writes V8's code cache when it ends, and V8 refuses a cache
  // made under other flags than those of the run that reads it: a training run keeps V8's defaults.
  if (process.env.CAIRN_CODE_CACHE_WRITE !== '1') allowHeapTuning();
  try {
    const args = cairnArgs(process.argv);
    await buildProgram({ args }).parseAsync(args);
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
    const args = cairnArgs(argv);
    await buildProgram({ exitOverride: true, args }).parseAsync(args);
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
 * working directory and environment instead of once per command line (host/local.ts). The held lock's
 * marker, which every run that takes the lock sets to its own token, does not count as a difference.
 */
export async function rememberLocalFacts(): Promise<void> {
  const [{ HELD_LOCK_ENV }, local] = await Promise.all([import('../store/file-store.js'), import('../host/local.js')]);
  local.rememberLocalFacts([HELD_LOCK_ENV]);
}
