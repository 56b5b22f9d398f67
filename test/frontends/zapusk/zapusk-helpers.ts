/** Runs fixture programs under test/fixtures/zapusk/<case>/ with the built CLI, in temp dirs. */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type CliResult, cairn, tempDir } from '../../cli/cli-helpers.js';

export const FIXTURES = resolve(import.meta.dirname, '../../fixtures/zapusk');

export interface Run {
  /** Arguments after `cairn zapusk`, with $CASE/$STATE/$TMP substituted. */
  readonly args: string[];
  readonly exit: number;
}

export interface CaseEnv {
  readonly caseDir: string;
  readonly tmp: string;
  readonly state: string;
  readonly cairnState: string;
}

/** `runs.txt`: one run per line, `ARGS => EXIT`; ARGS start with a program folder or default to prog.zdb. */
export function readRuns(caseDir: string, env: CaseEnv): Run[] {
  const lines = readFileSync(join(caseDir, 'runs.txt'), 'utf8').split('\n').filter((l) => l.trim() !== '');
  return lines.map((line) => {
    const [argText = '', exit = '0'] = line.split('=>').map((s) => s.trim());
    const words = argText.split(/\s+/).map((w) => w.replaceAll('$CASE', env.caseDir).replaceAll('$STATE', env.state).replaceAll('$TMP', env.tmp));
    const hasProgram = words[0]?.endsWith('.zdb') ?? false;
    const program = join(caseDir, hasProgram ? (words.shift() as string) : 'prog.zdb');
    const explicitState = words.includes('--state-dir');
    return { args: [program, ...words, ...(explicitState ? [] : ['--state-dir', env.state])], exit: Number(exit) };
  });
}

export function caseEnv(caseDir: string): CaseEnv {
  const tmp = tempDir('cairn-zapusk-');
  const cairnState = join(tmp, 'cairn-state');
  mkdirSync(cairnState);
  return { caseDir, tmp, state: join(tmp, 'state'), cairnState };
}

export function runZapusk(args: readonly string[], env: CaseEnv, extraEnv: Record<string, string> = {}): CliResult {
  return cairn(['zapusk', ...args], { cwd: env.tmp, env: { CAIRN_STATE_DIR: env.cairnState, ...extraEnv } });
}

/** Output with what varies between machines and runs replaced by names. */
export function normalize(text: string, env: CaseEnv): string {
  return text
    .replaceAll(env.state, '$STATE')
    .replaceAll(env.tmp, '$TMP')
    .replaceAll(env.caseDir, '$CASE')
    .replace(/runtime \d+\.\d+ seconds/g, 'runtime N seconds')
    .replace(/\.at_\d+/g, '.at_T');
}

export function caseNames(): string[] {
  return readdirSync(FIXTURES)
    .filter((n) => existsSync(join(FIXTURES, n, 'runs.txt')))
    .sort();
}

/** Our CLI arguments as zapusk-tool's: --zdb_dir, --state_dir, --a k=v; --lib becomes prepend_zdb_dirs. */
export function toolArgs(args: readonly string[]): string[] {
  const [program = '', command = 'apply', ...rest] = args;
  const out = [command, '--zdb_dir', program];
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i] as string;
    if (a === '--state-dir') out.push('--state_dir', rest[++i] as string);
    else if (a === '--lib') out.push('--a', `prepend_zdb_dirs=${rest[++i] as string}`);
    else if (a === '--only') out.push(a, rest[++i] as string);
    else if (a === '--debug' || a === '--force') out.push(a);
    else out.push('--a', a.includes('=') ? a : `${a}=true`);
  }
  return out;
}
