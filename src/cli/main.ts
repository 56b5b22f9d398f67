/** The composition root: arguments, wiring, output and exit codes. The only caller of process.exit. */
import { Command } from 'commander';
import { addRunOptions } from './options.js';
import { registerHistory, registerServe, registerStore } from './store-command.js';
import { register as registerConverge } from './converge-command.js';
import { register as registerInmanta } from './inmanta-command.js';
import { register as registerOtter } from './otter-command.js';
import { register as registerSalt } from './salt-command.js';
import { VERSION } from './version.js';
import { fromToolArgs, register as registerZapusk } from './zapusk-command.js';

export interface CommonOptions {
  out: 'text' | 'json';
  store?: string;
  stateDir?: string;
  jobs: number;
  detailedExitcode: boolean;
  lockTimeout: number;
}

async function runGraphCommand(mode: 'check' | 'apply' | 'collect', file: string, opts: CommonOptions & { simulate?: boolean }): Promise<number> {
  const { runGraphFile } = await import('./run-graph.js');
  return runGraphFile(file, opts.simulate ? 'simulate' : mode, opts);
}

export function buildProgram(): Command {
  const program = new Command('cairn')
    .description(
      'Keep machines in a known state. cairn speaks Salt states, Converge, Zapusk, OtterScript and the ' +
        'Inmanta language, and its own resource graph: it shows what would change, makes the changes, ' +
        'records every run and reports drift.',
    )
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .configureHelp({ sortSubcommands: false });

  addRunOptions(program.command('plan').argument('<graph>', 'graph file (JSON, or YAML)'))
    .description('show what apply would change, changing nothing')
    .action(async (file: string, opts: CommonOptions) => finish(await runGraphCommand('check', file, opts)));

  addRunOptions(program.command('apply').argument('<graph>', 'graph file (JSON, or YAML)'))
    .description('make the machine match the graph')
    .option('--simulate', 'run the whole apply against a host that records changes instead of making them', false)
    .action(async (file: string, opts: CommonOptions & { simulate: boolean }) => finish(await runGraphCommand('apply', file, opts)));

  addRunOptions(program.command('collect').alias('drift').argument('<graph>', 'graph file (JSON, or YAML)'))
    .description('collect only: record drift from the graph in the run history, changing nothing')
    .action(async (file: string, opts: CommonOptions) => finish(await runGraphCommand('collect', file, opts)));

  registerHistory(program);
  registerStore(program);
  registerServe(program);

  // The languages, in the order of DESIGN.md.
  registerSalt(program);
  registerConverge(program);
  registerZapusk(program);
  registerOtter(program);
  registerInmanta(program);
  return program;
}

function finish(code: number): void {
  process.exitCode = code;
}

/** `cairn zapusk` also takes zapusk-tool's own argument style; it is rewritten to ours before parsing. */
function cairnArgs(argv: readonly string[]): string[] {
  if (argv[2] !== 'zapusk') return [...argv];
  const ours = fromToolArgs(argv.slice(3), process.env);
  return ours ? [...argv.slice(0, 3), ...ours] : [...argv];
}

async function main(): Promise<void> {
  try {
    await buildProgram().parseAsync(cairnArgs(process.argv));
  } catch (e) {
    const { reportError } = await import('./errors.js');
    process.exitCode = reportError(e);
  }
}

await main();
