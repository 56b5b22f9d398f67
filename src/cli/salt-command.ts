/** `cairn salt FUNCTION [ARGS...] [key=value...]`: the options; the work is in salt.ts, loaded on use. */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { tuneJitForOneRun } from '../engine/heap.js';
import { addFleetOptions, type FleetOptions, wantsFleet } from './inventory.js';
import { collect, lockTimeoutOption, outOption, positiveInt, stateDirOption, storeOption } from './options.js';

export interface SaltCliOptions {
  fileRoot: string[];
  pillarRoot: string[];
  id?: string;
  out: 'highstate' | 'json' | 'yaml' | 'nested' | 'pprint' | 'txt' | 'quiet' | 'raw';
  store?: string;
  stateDir?: string;
  local?: boolean;
  logLevel?: string;
  retcodePassthrough?: boolean;
  detailedExitcode?: boolean;
  stateOutput?: string;
  stateVerbose?: string;
  configDir?: string;
  color?: boolean;
  forceColor?: boolean;
  jobs: number;
  lockTimeout: number;
  highData?: string;
  outIndent?: number;
}

export function register(program: Command): void {
  const cmd = program
    .command('salt')
    .description('run Salt states as salt-call --local does (state.apply, state.sls, state.show_*, state.single, state.low)')
    .argument('<function>', 'state.apply | state.sls | state.highstate | state.test | state.show_highstate | state.show_lowstate | state.show_sls | state.show_low_sls | state.show_top | state.show_states | state.single | state.low')
    .argument('[args...]', 'SLS names, FUN NAME for state.single, JSON for state.low, and key=value (test=True, pillar=\'{...}\', saltenv=base, failhard=True)')
    .option('--file-root <dir>', 'a file root of the environment (repeatable)', collect, [])
    .option('--pillar-root <dir>', 'a pillar root (repeatable)', collect, [])
    .option('--id <minion_id>', 'minion id used for top file targeting (default: this host name)')
    .addOption(outOption(['highstate', 'json', 'yaml', 'nested', 'pprint', 'txt', 'quiet', 'raw']))
    .addOption(new Option('--out-indent <n>', 'json outputter indent (negative: one line), as salt-call --out-indent').argParser((v) => {
      const n = Number.parseInt(v, 10);
      if (!/^-?\d+$/.test(v.trim())) throw new InvalidArgumentError('--out-indent takes an integer');
      return n;
    }))
    .option('--local', 'run masterless, as salt-call --local (cairn always does; accepted from habit)')
    .option('-l, --log-level <level>', 'salt-call log level (accepted; cairn logs nothing on the console)')
    .option('--detailed-exitcode', 'exit 2 when the states succeeded with changes (made, or pending under test=True)')
    .option('--retcode-passthrough', 'exit with the return code of the function (2 when a state failed, as salt-call)')
    .addOption(new Option('--state-output <mode>', 'highstate output: full, terse, mixed, changes (and the _id forms)').choices(['full', 'terse', 'mixed', 'changes', 'full_id', 'terse_id', 'mixed_id', 'changes_id', 'filter']))
    .option('--state-verbose <bool>', 'highstate output: False hides states that succeeded without changes')
    .option('-c, --config-dir <dir>', 'minion config directory (reads its minion file and minion.d/*.conf)')
    .option('--no-color', 'no colours in the highstate output')
    .option('--force-color', 'colours in the highstate output even when not on a terminal')
    .addOption(storeOption())
    .addOption(stateDirOption())
    .option(
      '--jobs <n>',
      'most states acting at once. Default 1: states run one at a time in Salt\'s execution order, as salt-call does. ' +
        'With n > 1, states whose requisites are met run side by side; results keep Salt\'s order and __run_num__, ' +
        'but start times interleave and an unordered state no longer waits for the ones listed before it',
      positiveInt,
      1,
    )
    .addOption(lockTimeoutOption())
    .addOption(new Option('--high-data <file>', 'run compiled high data (JSON) instead of rendering the file roots').hideHelp());
  // With --hosts (or --inventory), each selected inventory host is a minion reached over SSH, its id its name.
  addFleetOptions(cmd).action(async (fun: string, args: string[], opts: SaltCliOptions & FleetOptions) => {
    if (wantsFleet(opts)) {
      const { runSaltOnHosts } = await import('./salt-fleet.js');
      process.exitCode = await runSaltOnHosts(fun, args, opts);
      return;
    }
    // Render, compile and run go over every state once: V8 optimizes only what stays hot (engine/heap.ts).
    tuneJitForOneRun();
    const { runSaltCommand } = await import('./salt.js');
    process.exitCode = await runSaltCommand(fun, args, opts);
  });
}
