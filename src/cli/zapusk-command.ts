/** `cairn zapusk PROGRAM.zdb [COMMAND] [name=value ...]`: options here, the work in zapusk.ts (loaded on use). */
import type { Command } from 'commander';
import { collect, lockTimeoutOption, outOption } from './options.js';

export interface ZapuskCliOptions {
  stateDir?: string;
  lib: string[];
  debug: boolean;
  force: boolean;
  only?: string;
  out: 'text' | 'json';
  lockTimeout: number;
}

export const USAGE = 'Usage: cairn zapusk PROGRAM.zdb [COMMAND] [name=value | name ...] [--state-dir DIR] [--lib DIR ...] [--only SUBSTR] [--debug] [--force] [--out text|json]';

export const HELP = `
Service commands, as zapusk-tool's: \`cairn zapusk init\` (or \`cairn zapusk DIR init\`) writes a starter
program into the current folder (or DIR) unless it already holds *.ini or *.conf files; \`cairn zapusk help\`
prints this text.

Passes COMMAND (default: apply) through the components of the program in order, and through the steps
of each component in order, as zapusk-tool does. destroy undoes an apply (also in forward order) and
does nothing when the program was never applied; any other word is a custom command.

Params: name=value sets a request param (overriding the program's params); a bare name means true.
Lookup for {{name}}: program and request params, the step's own keys, zapusk.conf, special params
(name, global_name, global_prefix, state_dir, zdb_dir, zdb_type, zapusk_tool, zapusk_tool_dir, cmd).

State: --state-dir, else state_dir in PROGRAM.zdb/zapusk.conf (relative to the program folder), else
<cairn state dir>/zapusk/<global_name>. Sub-programs keep their state in <state dir>/<component>.

Sub-programs (zdb types) are NAME.zdb folders found in the program's folder, then in prepend_zdb_dirs
(a param; ':'-separated; relative folders are relative to the working directory), then --lib, then one
level down in each. Steps after a zdb step are not run by their component: they are handed to the
sub-program as arg_N.ini files in its state dir (param arg_files). A param comp/x=v (or */x=v) is x=v in
component comp's sub-program (or in every one). {{zapusk_tool}} runs this command again, for programs
that start other programs from an os step.

Steps' shell commands (os, run) run in the instance's state dir, their output shown as it comes, with
ZAPUSK_DEBUG, ZAPUSK_PADDING and ZAPUSK_DEFERRED_PATH set. An exit code of 100 stops the remaining components of that program.

Exit codes: 0 success; 1 a step failed, or the program is wrong (printed as file:line:col: CODE message;
nothing runs).

Examples:
  cairn zapusk web.zdb apply --state-dir /var/lib/web
  cairn zapusk web.zdb restart port=8080
  cairn zapusk web.zdb destroy --state-dir /var/lib/web`;

export function register(program: Command): void {
  program
    .command('zapusk')
    .argument('<program>', 'the program folder, NAME.zdb')
    .argument('[command]', 'apply, destroy or any custom command', 'apply')
    .argument('[params...]', 'request params: name=value, or a bare name for true')
    .description('run a Zapusk program (NAME.zdb of *.ini files) for a command')
    .option('--state-dir <dir>', 'state directory of the program instance')
    .option('--lib <dir>', 'a folder of zdb types (NAME.zdb); repeat for more', collect, [])
    .option('--only <substr>', 'run only components whose name contains substr')
    .option('--debug', 'pass ZAPUSK_DEBUG=--debug to steps', false)
    .option('--force', 'run [once] commands again (ZAPUSK_FORCE)', false)
    .addOption(outOption())
    .addOption(lockTimeoutOption())
    .addHelpText('after', HELP)
    .action(async (dir: string, command: string, params: string[], opts: ZapuskCliOptions) => {
      const { runZapuskCommand } = await import('./zapusk.js');
      process.exitCode = await runZapuskCommand(dir, command, params, opts);
    });
}
