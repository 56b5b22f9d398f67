/** The text `cairn zapusk --help` and `cairn zapusk help` print. */
export const USAGE = 'Usage: cairn zapusk PROGRAM.zdb [COMMAND | plan] [name=value | name ...] [--state_dir DIR] [--state-dir DIR] [--lib DIR ...] [--tool-dir DIR] [--only SUBSTR] [--debug] [--force] [--dry-run] [--out text|json]';

export const HELP = `
Service commands, as zapusk-tool's: \`cairn zapusk init\` (or \`cairn zapusk DIR init\`) writes a starter
program into the current folder (or DIR) unless it already holds *.ini or *.conf files; \`cairn zapusk help\`
prints this text.

Passes COMMAND (default: apply) through the components of the program in order, and through the steps
of each component in order, as zapusk-tool does. destroy undoes an apply (also in forward order) and
does nothing when the program was never applied; any other word is a custom command.

Params: name=value sets a request param (overriding the program's params); a bare name means true.
Lookup for {{name}}: program and request params, the step's own keys, zapusk.conf, special params
(name, global_name, global_prefix, state_dir, zdb_dir, zdb_type, zapusk_tool, zapusk_tool_dir, cmd),
global params (zapusk.tool-defaults.conf, then zapusk.global.conf, in the tool folder: --tool-dir,
else $CAIRN_ZAPUSK_TOOL_DIR, else cairn's bin folder).

State of the program instance: --state_dir (zapusk-tool's option), else state_dir in PROGRAM.zdb/zapusk.conf
(relative to the program folder), else <cairn state dir>/zapusk/<global_name>. Sub-programs keep their state
in <state dir>/<component>. --state-dir is cairn's state dir, as for every command: where the run is
recorded (\`cairn history --state-dir DIR\` lists it); it never moves the program's own state. A destroy is
recorded as a destroy run. --jobs is accepted as everywhere, but components and steps run one at a time,
in order, as zapusk-tool runs them (a step may read what the one before wrote, and exit 100 stops the rest).

Sub-programs (zdb types) are NAME.zdb folders found in the program's folder, then in prepend_zdb_dirs
(a param; ':'-separated; relative folders are relative to the working directory), then --lib, then
lib/ of the tool folder, then one level down in each. Steps after a zdb step are not run by their component: they are handed to the
sub-program as arg_N.ini files in its state dir (param arg_files). A param comp/x=v (or */x=v) is x=v in
component comp's sub-program (or in every one). {{zapusk_tool}} runs this command again, for programs
that start other programs from an os step.

Steps' shell commands (os, run) run in the instance's state dir, their output shown as it comes, with
ZAPUSK_DEBUG, ZAPUSK_PADDING and ZAPUSK_DEFERRED_PATH set. An exit code of 100 stops the remaining components of that program.

zapusk-tool's own argument style works too, so programs and scripts written for it run unchanged:
  cairn zapusk [COMMAND] [--zdb_dir DIR] [--state_dir DIR] [--a name=value ...] [--only S] [--padding P]
    [--debug] [--force] [--deferred-master]
The program folder defaults to the current one there, as with zapusk-tool.

Dry run: \`cairn zapusk PROGRAM.zdb plan\` (apply) or any command with --dry-run passes the command through
the program as a run would, printing "would run" for each command of an os or run step and "would write",
"would remove" or "would restore" with a diff for each [file] step, and changes nothing: no command runs,
no state dir or flag is written. {\`…\`} parts of values still run, as they give the steps their values.
A command's exit code cannot be known, so a dry run goes on as after a success. zapusk-tool has no dry run,
so \`plan\` is taken: a program's own command of that name cannot be run by name here.

Exit codes: 0 success; 1 a step failed, or the program is wrong (printed as file:line:col: CODE message;
nothing runs).

Examples:
  cairn zapusk web.zdb apply --state_dir /var/lib/web
  cairn zapusk web.zdb restart port=8080
  cairn zapusk web.zdb plan port=8080
  cairn zapusk web.zdb destroy --state_dir /var/lib/web`;
