/**
 * The sweep fixtures: small programs under test/fixtures/converge/sweep/NAME/, each with `main.hcl` (and any
 * module files), an optional `setup.sh` (run with sh in the work dir before the first step), `steps` (one
 * command per line: `plan`, `apply`, `healthcheck`, `graph`, with extra flags such as `-p k=v`), and what
 * converge printed for each step: `N-VERB.txt` (stdout) and `recorded.json` (exit codes). `@DIR@` stands for
 * the work dir in every file. Converge prints node blocks in a random order, so outputs are compared as
 * sorted blocks; the healthcheck summary counts are left out (converge always prints 0 there, a bug).
 * Where cairn differs on purpose (a converge bug not copied, see docs/converge.md), the program holds a
 * `DIFFERENCE` note, cairn's text in `N-VERB.cairn.txt` next to converge's, and `cairnCode` in
 * recorded.json when the exit code differs too.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const SWEEP = join(import.meta.dirname, '../../fixtures/converge/sweep');

export interface Step {
  readonly verb: string;
  readonly args: readonly string[];
  readonly line: string;
}

export interface Recorded {
  readonly step: string;
  readonly code: number;
  readonly out: string;
  /** converge's FATAL message, when the load failed. */
  readonly fatal?: string;
  /** cairn's exit code, where it differs from converge's on purpose. */
  readonly cairnCode?: number;
}

/** What cairn must print for step `i`: converge's recording, or cairn's own text where it differs on purpose. */
export function expectedFor(name: string, i: number, step: Step, recorded: Recorded | undefined, dir: string): { text: string; code: number | undefined } {
  const own = join(SWEEP, name, outName(i, step).replace(/\.txt$/, '.cairn.txt'));
  const file = existsSync(own) ? own : join(SWEEP, name, outName(i, step));
  return { text: readFileSync(file, 'utf8').replaceAll('@DIR@', dir), code: recorded?.cairnCode ?? recorded?.code };
}

export function fixtures(): string[] {
  return readdirSync(SWEEP)
    .filter((n) => statSync(join(SWEEP, n)).isDirectory())
    .sort();
}

export function steps(name: string): Step[] {
  return readFileSync(join(SWEEP, name, 'steps'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((line) => {
      const [verb = '', ...args] = line.split(/\s+/);
      return { verb, args, line };
    });
}

/** Same length as the temp dirs the recordings were made in, so tabwriter columns line up. */
export function workDir(): string {
  return mkdtempSync('/tmp/cairn-cv-');
}

function copyTree(from: string, to: string, dir: string): void {
  for (const n of readdirSync(from)) {
    const src = join(from, n);
    if (statSync(src).isDirectory()) {
      mkdirSync(join(to, n), { recursive: true });
      copyTree(src, join(to, n), dir);
    } else if (/\.(hcl|sh)$/.test(n)) writeFileSync(join(to, n), readFileSync(src, 'utf8').replaceAll('@DIR@', dir));
    else if (n !== 'steps' && n !== 'recorded.json' && n !== 'DIFFERENCE' && !/^\d+-/.test(n)) copyFileSync(src, join(to, n));
  }
}

/** Copies the program into `dir` (a fresh work dir by default; an empty one) and runs its setup; returns the dir. */
export function materialize(name: string, dir = workDir()): string {
  copyTree(join(SWEEP, name), dir, dir);
  const setup = join(dir, 'setup.sh');
  try {
    statSync(setup);
    spawnSync('sh', [setup], { cwd: dir, encoding: 'utf8' });
  } catch {
    // no setup
  }
  return dir;
}

export function outName(i: number, step: Step): string {
  return `${i + 1}-${step.verb}.txt`;
}

/** Node blocks sorted, the Errors and dependency sections with sorted items, the summary as printed. */
export function normalize(text: string, verb: string): string {
  if (verb === 'graph') {
    // Converge writes a node's attributes in a random order too.
    const attrs = (l: string): string => l.replace(/\[(.*)\];$/, (_, inner: string) => `[${inner.split(' , ').map((a) => a.trim()).sort().join(' , ')}];`);
    return text.split('\n').filter((l) => l.trim() !== '' && !/^subgraph cluster_\d+ \{$|^\}$/.test(l)).map(attrs).sort().join('\n');
  }
  const blocks = text.split(/\n\n+/).map((b) => b.replace(/^\n+|\n+$/g, '')).filter((b) => b.trim() !== '');
  const out: string[] = [];
  const tail: string[] = [];
  for (const b of blocks) {
    if (b.startsWith('Errors:') || b.startsWith('Failed due to failing dependency:')) {
      const [head = '', ...items] = b.split('\n');
      tail.push([head, ...items.sort()].join('\n'));
    } else if (b.startsWith('Summary: ')) {
      if (verb !== 'healthcheck') tail.push(b);
    } else out.push(b);
  }
  return [...out.sort(), ...tail].join('\n\n');
}
