/** `cairn inmanta compile|export|deploy PROJECT_DIR`: options here; the work loads lazily from inmanta.ts. */
import { Argument, type Command } from 'commander';
import { addFleetOptions, type FleetOptions } from './inventory.js';
import { addRunOptions } from './options.js';

export interface InmantaOptions extends FleetOptions {
  out: 'text' | 'json';
  dryRun: boolean;
  store?: string;
  stateDir?: string;
  jobs: number;
  detailedExitcode: boolean;
  lockTimeout: number;
  changesOnly: boolean;
}

export function register(program: Command): void {
  const cmd = program
    .command('inmanta')
    .description('compile an Inmanta project, export its resources, or deploy them')
    .addArgument(new Argument('<action>', 'what to do').choices(['compile', 'export', 'deploy']))
    .argument('<project>', 'project directory holding main.cf (modules in libs/)')
    .option('--dry-run', 'deploy: check only and show the diffs, changing nothing', false)
    .option('--changes-only', 'deploy, text output: leave out resources already in the right state (a line counts them)', false);
  addFleetOptions(addRunOptions(cmd, { detailedExitcode: 'exit 2 when a deploy succeeded with changes (made or pending)' })).action(async (action: string, project: string, opts: InmantaOptions) => {
      const { runInmanta } = await import('./inmanta.js');
      process.exitCode = await runInmanta(action, project, opts);
    });
}
