/** `cairn converge plan|apply|healthcheck|graph FILE.hcl...`: arguments; the work is in converge.ts. */
import { type Command, InvalidArgumentError } from 'commander';
import { addFleetOptions } from './inventory.js';
import { addRunOptions } from './options.js';
import { tuneJitForOneRun } from '../engine/heap.js';

export interface ConvergeOptions {
  params: string[];
  onlyShowChanges: boolean;
  out: 'text' | 'json';
  store?: string;
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
      .option('--only-show-changes', 'print only nodes that have changes', false);
    addRunOptions(sub, { detailedExitcode: 'exit 2 when the run succeeded with changes (or found something unhealthy)' });
    if (name !== 'graph') addFleetOptions(sub);
    if (name === 'plan' || name === 'apply') sub.option('--show-meta', 'also print the root, module and param nodes', false);
    if (name === 'graph') sub.option('--show-params', 'also draw params and the edges to the nodes that read them', false);
    sub.action(async (files: string[], opts: ConvergeOptions) => {
        // The files are parsed, linked and run once: V8 optimizes only what stays hot (engine/heap.ts).
        tuneJitForOneRun();
        const { runConverge } = await import('./converge.js');
        process.exitCode = await runConverge(name, files, opts);
      });
  }
}
