/** `cairn history`, `cairn history prune`, `cairn store migrate|import` and `cairn serve`: options here, work loaded on use. */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { RUN_MODES } from '../core/model.js';
import { DRIFT_STATES } from '../store/types.js';
import { lockTimeoutOption, outOption, positiveInt, stateDirOption, storeOption } from './options.js';

function finish(code: number): void {
  process.exitCode = code;
}

function runId(v: string): number {
  const n = Number(v.replace(/^#/, ''));
  if (!Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('expected a run id');
  return n;
}

export function registerHistory(program: Command): void {
  const history = program
    .command('history')
    .argument('[run]', 'run id to show in full (or "last")')
    .description('list recorded runs (filtered, newest first, a page at a time), or show one run')
    .addOption(outOption())
    .addOption(storeOption())
    .addOption(stateDirOption())
    .option('--limit <n>', 'most runs to list', positiveInt, 20)
    .option('--before <run>', 'list runs older than this one (the next page)', runId)
    .option('--host <host>', 'runs that acted on this host (with a run id: only its results)')
    .option('--front-end <name>', 'runs of one front end (graph, salt, converge, zapusk, otter, inmanta)')
    .addOption(new Option('--mode <mode>', 'runs of one mode').choices(RUN_MODES))
    .addOption(new Option('--outcome <outcome>', 'runs that came to this').choices(['ok', 'changed', 'failed', 'running', 'interrupted']))
    .option('--source <text>', 'runs one of whose sources contains this text')
    .option('--since <time>', 'runs started at or after a time (ISO date) or within an age (12h, 30d)')
    .option('--until <time>', 'runs started before a time or age')
    .action(async (run: string | undefined, opts) => {
      const { showHistory } = await import('./history.js');
      finish(await showHistory(run, opts));
    });
  history
    .command('prune')
    .description('remove old runs from the store (never a running run, nor the newest)')
    .option('--keep <n>', 'keep the newest N runs', positiveInt)
    .option('--older-than <age>', 'remove runs started before an age (90m, 12h, 30d, 2w) or an ISO date')
    .addOption(storeOption())
    .addOption(stateDirOption())
    .addOption(lockTimeoutOption())
    .action(async (opts) => {
      const { pruneHistory } = await import('./history.js');
      // `history` parses the options it shares with prune (--store, --state-dir) wherever they stand.
      const shared = history.opts() as { store?: string; stateDir?: string };
      finish(await pruneHistory({ ...opts, ...(shared.store !== undefined ? { store: shared.store } : {}), ...(shared.stateDir !== undefined ? { stateDir: shared.stateDir } : {}) }));
    });
}

export function registerDrift(program: Command): void {
  program
    .command('drift')
    .argument('[pattern]', 'hosts to show, as --hosts takes them: names, globs, inventory groups, a,b, !excluded (default: every host)')
    .description('the latest known state of every resource per host: in sync, drifted or failed, since when, from which run')
    .addOption(new Option('--state <state>', 'only resources in this state').choices(DRIFT_STATES))
    .option('--type <type>', 'only resources of this type')
    .option('--resource <text>', 'only resources whose id contains this text')
    .option('--inventory <file>', `inventory whose groups the pattern may name (default ./inventory.yaml when present)`)
    .option('--detailed-exitcode', 'exit 2 when a shown resource is drifted or failed', false)
    .addOption(outOption())
    .addOption(storeOption())
    .addOption(stateDirOption())
    .action(async (pattern: string | undefined, opts) => {
      const { showDrift } = await import('./drift.js');
      finish(await showDrift(pattern, opts));
    });
}

export function registerStore(program: Command): void {
  const store = program.command('store').description('look after a shared (PostgreSQL) run store');
  store
    .command('migrate')
    .description('create the schema of a PostgreSQL run store, or bring it up to this version')
    .addOption(storeOption())
    .action(async (opts) => {
      const { migrateStore } = await import('./store-admin.js');
      finish(await migrateStore(opts));
    });
  store
    .command('import')
    .description('copy the runs of a file store into a PostgreSQL run store (runs copied before are skipped)')
    .addOption(storeOption())
    .option('--from <dir>', 'the file store to copy (default: the state dir)')
    .addOption(stateDirOption())
    .action(async (opts) => {
      const { importStore } = await import('./store-admin.js');
      finish(await importStore(opts));
    });
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('a read-only web dashboard over the run store: runs, a run, drift, the graph, trends')
    .option('--listen <addr>', 'address and port to listen on (another address than 127.0.0.1 needs --token)', '127.0.0.1:7707')
    .option('--token <token>', 'access token every request must carry (default: $CAIRN_SERVE_TOKEN)')
    .addOption(storeOption())
    .addOption(stateDirOption())
    .action(async (opts) => {
      const { serveCommand } = await import('./serve.js');
      finish(await serveCommand(opts));
    });
}
