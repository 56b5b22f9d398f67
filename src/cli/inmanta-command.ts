/** `cairn inmanta compile|export|deploy PROJECT_DIR`: options here; the work loads lazily from inmanta.ts. */
import { availableParallelism } from 'node:os';
import { Argument, type Command, InvalidArgumentError, Option } from 'commander';

export interface InmantaOptions {
  out: 'text' | 'json';
  dryRun: boolean;
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

export function register(program: Command): void {
  program
    .command('inmanta')
    .description('compile an Inmanta project, export its resources, or deploy them')
    .addArgument(new Argument('<action>', 'what to do').choices(['compile', 'export', 'deploy']))
    .argument('<project>', 'project directory holding main.cf (modules in libs/)')
    .addOption(new Option('--out <format>', 'output format').choices(['text', 'json']).default('text'))
    .option('--dry-run', 'deploy: check only and show the diffs, changing nothing', false)
    .option('--state-dir <dir>', 'state directory for run history and locks')
    .option('--jobs <n>', 'most resources acting at once', positiveInt, availableParallelism())
    .option('--detailed-exitcode', 'exit 2 when a deploy succeeded with changes (made or pending)', false)
    .option('--lock-timeout <seconds>', 'how long to wait for another run on the same state dir', Number, 10)
    .action(async (action: string, project: string, opts: InmantaOptions) => {
      const { runInmanta } = await import('./inmanta.js');
      process.exitCode = await runInmanta(action, project, opts);
    });
}
