/** `cairn otter run`: parse, check, lock, run in the chosen mode, record, print the execution log. */
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { runOtter } from '../frontends/otter/index.js';
import { defaultStateDir, ensureStateDir } from '../store/index.js';
import { LocalHost } from '../host/local.js';
import { SimulatedHost } from '../host/simulated.js';
import type { Host } from '../host/types.js';
import type { OtterOptions } from './otter-command.js';
import { printJson, printText } from './otter-output.js';
import { otterRunOptions, prepareScript } from './otter-prepare.js';
import { exitCodeFor } from '../engine/exit-code.js';
import { withRunStore } from '../engine/session.js';
import { recordedCommandLine } from '../core/command-line.js';
import { wantsFleet } from './inventory.js';

export async function runOtterCommand(file: string, opts: OtterOptions): Promise<number> {
  if (wantsFleet(opts)) {
    const { runOtterOnHosts } = await import('./otter-fleet.js');
    return runOtterOnHosts(file, opts);
  }
  const local: Host = new LocalHost();
  const host: Host = opts.simulation ? new SimulatedHost(local) : local;
  const prepared = await prepareScript(file, opts, host);
  const stateDir = ensureStateDir(opts.stateDir ?? defaultStateDir());
  // The recorded command line never holds a sensitive value.
  const command = recordedCommandLine();
  return withRunStore(opts, { mode: prepared.runMode, frontEnd: 'otter', source: [resolve(file)], command }, async () => {
    const result = await runOtter(
      prepared.script,
      // $ServerName is the target's: here this machine's name, the `uname -n` its facts would give, read
      // without running the facts program (only a script that reads the environment needs that).
      otterRunOptions(prepared, opts, stateDir, { host, root: resolve(opts.root ?? process.cwd()), serverName: hostname(), roles: [] }),
    );
    const failed = result.status === 'error';
    const exitCode = exitCodeFor({ failed, changed: result.drift.length > 0 || result.changed }, opts.detailedExitcode);
    return {
      results: result.results,
      exitCode,
      print: (runId) => (opts.out === 'json' ? printJson(result, opts, prepared.warnings) : printText(result, opts, runId)),
    };
  });
}
