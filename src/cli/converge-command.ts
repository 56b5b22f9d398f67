/** `cairn converge plan|apply|healthcheck|graph FILE.hcl...`: arguments; the work is in converge.ts. */
import { availableParallelism } from 'node:os';
import { type Command, InvalidArgumentError, Option } from 'commander';

export interface ConvergeOptions {
  params: string[];
  onlyShowChanges: boolean;
  out: 'text' | 'json';
  stateDir?: string;
  jobs: number;
  detailedExitcode: boolean;
  lockTimeout: number;
  /** plan and apply: also print the root, module and param nodes. */
  showMeta?: boolean;
  /** graph: also draw params and their edges. */
  showParams?: boolean;
}

function collectParam(v: string, previous: string[]): string[] {
  if (!/^[^=]+=/.test(v)) throw new InvalidArgumentError('expected name=value');
  return [...previous, v];
}

function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number of 1 or more');
  return n;
}

function seconds(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a number of seconds');
  return n;
}

export function register(program: Command): void {
  const converge = program.command('converge').description('Converge: HCL modules with params and value passing');
  for (const [name, what] of [
    ['plan', 'show what apply would change, changing nothing'],
    ['apply', 'make the machine match the modules'],
    ['healthcheck', 'check every node and report what is unhealthy'],
    ['graph', 'print the dependency graph as Graphviz DOT'],
  ] as const) {
    const sub = converge
      .command(name)
      .description(what)
      .argument('<files...>', 'module files (.hcl)')
      .option('-p, --params <name=value>', 'set a root param (repeatable)', collectParam, [])
      .option('--only-show-changes', 'print only nodes that have changes', false)
      .addOption(new Option('--out <format>', 'output format').choices(['text', 'json']).default('text'))
      .option('--state-dir <dir>', 'state directory for run history and locks')
      .option('--jobs <n>', 'most resources acting at once', positiveInt, availableParallelism())
      .option('--detailed-exitcode', 'exit 2 when the run succeeded with changes (or found something unhealthy)', false)
      .option('--lock-timeout <seconds>', 'how long to wait for another run on the same state dir', seconds, 10);
    if (name === 'plan' || name === 'apply') sub.option('--show-meta', 'also print the root, module and param nodes', false);
    if (name === 'graph') sub.option('--show-params', 'also draw params and the edges to the nodes that read them', false);
    sub.action(async (files: string[], opts: ConvergeOptions) => {
        const { runConverge } = await import('./converge.js');
        process.exitCode = await runConverge(name, files, opts);
      });
  }
}
