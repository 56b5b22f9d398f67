/** The composition root: arguments, wiring, output and exit codes. The only caller of process.exit. */
import { availableParallelism } from 'node:os';
import { Command, InvalidArgumentError, Option } from 'commander';
import { register as registerSalt } from './salt-command.js';
import { register as registerInmanta } from './inmanta-command.js';
import { register as registerConverge } from './converge-command.js';
import { register as registerOtter } from './otter-command.js';
import { VERSION } from './version.js';
import { register as registerZapusk } from './zapusk-command.js';

export interface CommonOptions {
  out: 'text' | 'json';
  stateDir?: string;
  jobs: number;
  detailedExitcode: boolean;
  lockTimeout: number;
}

function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number of 1 or more');
  return n;
}

function seconds(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a number of seconds');
  return n;
}

function addCommon(cmd: Command, outs: readonly string[] = ['text', 'json']): Command {
  return cmd
    .addOption(new Option('--out <format>', 'output format').choices(outs).default(outs[0]))
    .option('--state-dir <dir>', 'state directory for run history and locks (default: $CAIRN_STATE_DIR, $XDG_STATE_HOME/cairn or ~/.local/state/cairn)')
    .option('--jobs <n>', 'most resources acting at once', positiveInt, availableParallelism())
    .option('--detailed-exitcode', 'exit 2 when the run succeeded with changes (made, pending or drifted)', false)
    .option('--lock-timeout <seconds>', 'how long to wait for another run on the same state dir', seconds, 10);
}

async function runGraphCommand(mode: 'check' | 'apply' | 'collect', file: string, opts: CommonOptions & { simulate?: boolean }): Promise<number> {
  const { runGraphFile } = await import('./run-graph.js');
  return runGraphFile(file, opts.simulate ? 'simulate' : mode, opts);
}

export function buildProgram(): Command {
  const program = new Command('cairn')
    .description('Keep machines in a known state: plan, apply and record changes described as a resource graph.')
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .configureHelp({ sortSubcommands: false });

  addCommon(program.command('plan').argument('<graph>', 'graph file (JSON, or YAML)'))
    .description('show what apply would change, changing nothing')
    .action(async (file: string, opts: CommonOptions) => finish(await runGraphCommand('check', file, opts)));

  addCommon(program.command('apply').argument('<graph>', 'graph file (JSON, or YAML)'))
    .description('make the machine match the graph')
    .option('--simulate', 'run the whole apply against a host that records changes instead of making them', false)
    .action(async (file: string, opts: CommonOptions & { simulate: boolean }) => finish(await runGraphCommand('apply', file, opts)));

  addCommon(program.command('collect').alias('drift').argument('<graph>', 'graph file (JSON, or YAML)'))
    .description('collect only: record drift from the graph in the run history, changing nothing')
    .action(async (file: string, opts: CommonOptions) => finish(await runGraphCommand('collect', file, opts)));

  registerSalt(program);

  registerInmanta(program);

  registerConverge(program);

  registerOtter(program);

  program
    .command('history')
    .argument('[run]', 'run id to show in full')
    .description('list recorded runs, or show one run')
    .addOption(new Option('--out <format>', 'output format').choices(['text', 'json']).default('text'))
    .option('--state-dir <dir>', 'state directory')
    .option('--limit <n>', 'most runs to list', positiveInt, 20)
    .action(async (run: string | undefined, opts: { out: 'text' | 'json'; stateDir?: string; limit: number }) => {
      const { showHistory } = await import('./history.js');
      finish(await showHistory(run, opts));
    });
  registerZapusk(program);
  return program;
}

function finish(code: number): void {
  process.exitCode = code;
}

async function main(): Promise<void> {
  try {
    await buildProgram().parseAsync(process.argv);
  } catch (e) {
    const { reportError } = await import('./errors.js');
    process.exitCode = reportError(e);
  }
}

await main();
