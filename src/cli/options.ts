/** Option parsers and the options every run command shares, so each command declares them the same way. */
import { availableParallelism } from 'node:os';
import { type Command, InvalidArgumentError, Option } from 'commander';

/** What the shared run options parse to. */
export interface RunOptions {
  out: string;
  store?: string;
  stateDir?: string;
  jobs: number;
  detailedExitcode: boolean;
  lockTimeout: number;
}

export function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number of 1 or more');
  return n;
}

export function seconds(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a number of seconds');
  return n;
}

/** A repeatable option's values, in order. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export function lockTimeoutOption(): Option {
  return new Option('--lock-timeout <seconds>', 'how long to wait for another run on the same state dir').argParser(seconds).default(10);
}

export function outOption(outs: readonly string[] = ['text', 'json']): Option {
  return new Option('--out <format>', 'output format').choices(outs).default(outs[0]);
}

export function stateDirOption(): Option {
  return new Option('--state-dir <dir>', 'state directory for run history and locks (default: $CAIRN_STATE_DIR, $XDG_STATE_HOME/cairn or ~/.local/state/cairn)');
}

export function storeOption(): Option {
  return new Option('--store <url>', 'run store: a postgres:// URL to share history, or a store directory (default: $CAIRN_STORE, else the state dir)');
}

/** --out, --store, --state-dir, --jobs, --detailed-exitcode and --lock-timeout. */
export function addRunOptions(
  cmd: Command,
  settings: { outs?: readonly string[]; jobs?: number; detailedExitcode?: string } = {},
): Command {
  return cmd
    .addOption(outOption(settings.outs))
    .addOption(storeOption())
    .addOption(stateDirOption())
    .option('--jobs <n>', 'most resources acting at once', positiveInt, settings.jobs ?? availableParallelism())
    .option('--detailed-exitcode', settings.detailedExitcode ?? 'exit 2 when the run succeeded with changes (made, pending or drifted)', false)
    .addOption(lockTimeoutOption());
}
