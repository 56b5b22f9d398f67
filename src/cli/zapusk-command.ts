/** `cairn zapusk PROGRAM.zdb [COMMAND] [name=value ...]`: options here, the work in zapusk.ts (loaded on use). */
import { existsSync, readdirSync } from 'node:fs';
import type { Command } from 'commander';
import { UserError } from '../engine/errors.js';
import { HELP } from './zapusk-help.js';
import { addFleetOptions, type FleetOptions } from './inventory.js';
import { availableParallelism } from 'node:os';
import { collect, lockTimeoutOption, outOption, positiveInt, stateDirOption, storeOption } from './options.js';
import { tuneJitForOneRun } from '../engine/heap.js';

export interface ZapuskCliOptions {
  /** --state-dir: the run store's directory, as for every command. */
  stateDir?: string;
  /** --state_dir: zapusk-tool's state directory of the program instance. */
  state_dir?: string;
  jobs: number;
  lib: string[];
  toolDir?: string;
  debug: boolean;
  force: boolean;
  dryRun: boolean;
  only?: string;
  out: 'text' | 'json';
  lockTimeout: number;
  detailedExitcode: boolean;
  store?: string;
  changesOnly: boolean;
}


export function register(program: Command): void {
  const cmd = program
    .command('zapusk')
    .argument('<program>', 'the program folder, NAME.zdb')
    .argument('[command]', 'apply, destroy or any custom command', 'apply')
    .argument('[params...]', 'request params: name=value, or a bare name for true')
    .description('run a Zapusk program (NAME.zdb of *.ini files) for a command')
    .option('--state_dir <dir>', "state directory of the program instance, as zapusk-tool's --state_dir (default: state_dir of zapusk.conf, else <state dir>/zapusk/<global_name>)")
    .addOption(stateDirOption())
    .option('--jobs <n>', 'accepted as by every run command; a Zapusk program runs its components and steps one at a time, in order, so it bounds nothing', positiveInt, availableParallelism())
    .option('--lib <dir>', 'a folder of zdb types (NAME.zdb); repeat for more', collect, [])
    .option('--tool-dir <dir>', "the folder zapusk-tool's files sit in: global params from zapusk.tool-defaults.conf and zapusk.global.conf, zdb types in lib/ (default: $CAIRN_ZAPUSK_TOOL_DIR, else cairn's bin folder)")
    .option('--only <substr>', 'run only components whose name contains substr')
    .option('--debug', 'pass ZAPUSK_DEBUG=--debug to steps', false)
    .option('--force', 'run [once] commands again (ZAPUSK_FORCE)', false)
    .option('--detailed-exitcode', 'exit 2 when the run succeeded and wrote, removed or ran something (or would, in a dry run)', false)
    .addOption(storeOption())
    .option('--dry-run', 'show which components and steps would run and what each [file] step would change; change nothing (`plan` is a dry run of apply)', false)
    .option('--changes-only', "dry run: leave out the files it would leave as they are (a line counts them)", false)
    .addOption(outOption())
    .addOption(lockTimeoutOption())
    .addHelpText('after', HELP);
  addFleetOptions(cmd)
  cmd.action(async (dir: string, command: string, params: string[], opts: ZapuskCliOptions & FleetOptions) => {
      // The program is read and its steps run once: V8 optimizes only what stays hot (engine/heap.ts).
      tuneJitForOneRun();
      const { runZapuskCommand } = await import('./zapusk.js');
      process.exitCode = await runZapuskCommand(dir, command, params, opts);
    });
}

/** Options only zapusk-tool's argument style has, each with whether it takes a value. */
const TOOL_OPTIONS: Record<string, boolean> = {
  '--zdb': true,
  '--zdb_dir': true,
  '--state_dir': true,
  '--a': true,
  '--padding': true,
  '--deferred-master': false,
};
const SHARED_OPTIONS: Record<string, boolean> = {
  '--hosts': true,
  '--limit': true,
  '--inventory': true,
  '--forks': true,
  '--connect-timeout': true,
  '--command-timeout': true,
  '--ssh-config': true,
  '--become': false,
  '--accept-new-host-keys': false,
  '--state-dir': true,
  '--jobs': true, '--only': true, '--debug': false, '--force': false, '--tool-dir': true, '--dry-run': false, '--detailed-exitcode': false, '--store': true, '--changes-only': false };

/** The first word that is neither an option nor an option's value. */
function firstWord(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (!a.startsWith('-')) return a;
    if (TOOL_OPTIONS[a] === true || SHARED_OPTIONS[a] === true || a === '--lib' || a === '--out' || a === '--lock-timeout') i++;
  }
  return undefined;
}

function looksLikeToolStyle(args: readonly string[]): boolean {
  // --state_dir is also ours (the program's state dir): with a program folder first, the line is ours.
  if (args.some((a) => a in TOOL_OPTIONS && a !== '--state_dir')) return true;
  // `zapusk-tool apply` run inside a program folder: the first word is a command, not a folder.
  const first = firstWord(args);
  if (args.includes('--state_dir')) return first === undefined || !(existsSync(first) || first.includes('/') || first.endsWith('.zdb'));
  if (first === undefined || first.includes('=') || existsSync(first) || first === 'init' || first === 'help') return false;
  try {
    return readdirSync('.').some((f) => f.endsWith('.ini'));
  } catch {
    return false;
  }
}

/**
 * zapusk-tool's command line (`apply --zdb_dir X --state_dir Y --a k=v`) as ours (`X apply k=v --state_dir Y`),
 * or undefined when the arguments are already ours. --padding and --deferred-master set the environment
 * variables zapusk-tool sets for them.
 */
export function fromToolArgs(args: readonly string[], env: NodeJS.ProcessEnv): string[] | undefined {
  if (!looksLikeToolStyle(args)) return undefined;
  let dir = '.';
  let cmd: string | undefined;
  const params: string[] = [];
  const options: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    const takesValue = TOOL_OPTIONS[a] ?? SHARED_OPTIONS[a];
    if (takesValue === undefined) {
      if (cmd !== undefined) throw new UserError(`unexpected argument '${a}': the command is already '${cmd}' (params go as --a name=value)`);
      cmd = a;
      continue;
    }
    const value = takesValue ? args[++i] : undefined;
    if (takesValue && value === undefined) throw new UserError(`${a} needs a value`);
    switch (a) {
      case '--zdb':
      case '--zdb_dir':
        dir = value as string;
        break;
      case '--a': {
        // As zapusk-tool splits it: the name, and the text up to a second '=' if there is one.
        const [name = '', val = ''] = (value as string).split('=');
        params.push(`${name}=${val}`);
        break;
      }
      case '--padding':
        env.ZAPUSK_PADDING = value;
        break;
      case '--deferred-master':
        env.ZAPUSK_DEFERRED_PATH = '';
        break;
      default:
        options.push(a, ...(value === undefined ? [] : [value]));
    }
  }
  return [dir, cmd ?? 'apply', ...params, ...options];
}
