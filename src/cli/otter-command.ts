/** `cairn otter run SCRIPT`: options here; the implementation loads lazily. */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { availableParallelism } from 'node:os';
import { addFleetOptions, type FleetOptions } from './inventory.js';
import { lockTimeoutOption, outOption, positiveInt, stateDirOption, storeOption } from './options.js';
import { tuneJitForOneRun } from '../engine/heap.js';

export interface OtterOptions extends FleetOptions {
  mode: 'collect' | 'collect-execute' | 'execute';
  simulation: boolean;
  var: string[];
  secretVar?: string[];
  root?: string;
  raft?: string[];
  credentials?: string;
  logLevel?: 'debug' | 'information' | 'warning' | 'error';
  out: 'text' | 'json';
  store?: string;
  stateDir?: string;
  detailedExitcode: boolean;
  lockTimeout: number;
  jobs: number;
}

function collectVar(value: string, previous: string[] = []): string[] {
  if (!/^[$]?[A-Za-z][A-Za-z0-9_-]*=/.test(value)) throw new InvalidArgumentError('expected name=value');
  return [...previous, value];
}

function collectRaft(value: string, previous: string[] = []): string[] {
  if (value === '' || /^=|^[^=/]*=$/.test(value)) throw new InvalidArgumentError('expected DIR or NAME=DIR');
  return [...previous, value];
}

export function register(program: Command): void {
  const otter = program.command('otter').description('OtterScript: run plans that configure this machine, or the servers of an inventory, or report drift from them');
  const run = otter
    .command('run')
    .argument('<script>', 'OtterScript file (.otter)')
    .description('run a script: collect (report drift, change nothing), collect-execute (fix drift), or execute')
    .addOption(new Option('--mode <mode>', 'execution mode').choices(['collect', 'collect-execute', 'execute']).default('execute'))
    .option('--simulation', 'run without changing anything; operations log what they would do', false)
    .option('--var <name=value>', 'a configuration variable (repeatable)', collectVar, [])
    .option('--secret-var <name=value>', 'a sensitive configuration variable: its value is never shown or stored (repeatable)', collectVar)
    .option('--root <dir>', 'working directory of the run (default: the current directory)')
    .option(
      '--raft <dir>',
      "the default raft: folder of modules (NAME.otter), scripts and templates (default: the script's folder); NAME=DIR adds a named raft (call NAME::Module) (repeatable)",
      collectRaft,
    )
    .option('--credentials <file>', 'JSON file of named credentials ({"Name": {"UserName": "...", "Password": "..."}}) for `with credentials=Name`')
    .addOption(new Option('--log-level <level>', 'lowest level of the log lines shown (text: default information; json: every line unless given)').choices(['debug', 'information', 'warning', 'error']))
    .addOption(outOption())
    .addOption(storeOption())
    .addOption(stateDirOption())
    .option('--detailed-exitcode', 'exit 2 when drift was found or changes were made', false)
    .option('--jobs <n>', 'most `with async` blocks running at once (statements otherwise run in script order)', positiveInt, availableParallelism())
    .addOption(lockTimeoutOption());
  addFleetOptions(run).action(async (script: string, opts: OtterOptions) => {
      // The script is parsed, checked and run once: V8 optimizes only what stays hot (engine/heap.ts).
      tuneJitForOneRun();
      const { runOtterCommand } = await import('./otter.js');
      process.exitCode = await runOtterCommand(script, opts);
    });
}
