/** Runs fixture programs under test/fixtures/zapusk/<case>/ with the built CLI, in temp dirs. */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { type CliResult, cairn, ROOT, tempDir } from '../../cli/cli-helpers.js';

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
    const explicitState = words.includes('--state_dir');
    // A case's tool/ folder stands for the folder beside the tool: its global conf and its lib/ of zdb types.
    const tool = existsSync(join(caseDir, 'tool')) && !words.includes('--tool-dir') ? ['--tool-dir', join(caseDir, 'tool')] : [];
    return { args: [program, ...words, ...(explicitState ? [] : ['--state_dir', env.state]), ...tool], exit: Number(exit) };
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
export function normalize(text: string, env: CaseEnv, toolDir = join(env.caseDir, 'tool')): string {
  return text
    .replaceAll(toolDir, '$TOOL')
    // {{zapusk_tool}} runs this node, wherever it is installed.
    .replaceAll(process.execPath, '$NODE')
    // Without --tool-dir, the folder beside the tool is cairn's bin folder.
    .replaceAll(join(ROOT, 'bin'), '$TOOL')
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
    if (a === '--state_dir') out.push('--state_dir', rest[++i] as string);
    else if (a === '--lib') out.push('--a', `prepend_zdb_dirs=${rest[++i] as string}`);
    else if (a === '--only') out.push(a, rest[++i] as string);
    else if (a === '--debug' || a === '--force') out.push(a);
    else if (a === '--tool-dir') out.push(a, rest[++i] as string);
    else out.push('--a', a.includes('=') ? a : `${a}=true`);
  }
  return out;
}

/** A root run: no variables of an enclosing zapusk run (the tool treats a set ZAPUSK_PADDING as nested). */
function rootEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('ZAPUSK_')) delete env[k];
  return env;
}

/**
 * Runs zapusk-tool (its src.v1/zapusk.rb at `script`) on our CLI arguments. The tool reads its global conf
 * and lib/ from the folder above src.v1, so each case gets a copy of the tool in its temp dir with the
 * case's tool/ folder (given to us as --tool-dir) laid into it. Output is normalised, $TOOL for that folder.
 */
export function runTool(script: string, args: readonly string[], env: CaseEnv): CliResult & { out: string } {
  const toolDir = join(env.tmp, 'zapusk-tool');
  if (!existsSync(toolDir)) cpSync(dirname(script), join(toolDir, 'src.v1'), { recursive: true });
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--tool-dir') cpSync(args[++i] as string, toolDir, { recursive: true });
    else rest.push(args[i] as string);
  }
  const r = spawnSync('ruby', [join(toolDir, 'src.v1/zapusk.rb'), ...toolArgs(rest)], { cwd: env.tmp, encoding: 'utf8', env: rootEnv() });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, out: normalize(r.stdout, env, toolDir) };
}

/** Lines cairn adds to zapusk-tool's output: what was written and run, and the counts. */
export function isOurLine(line: string): boolean {
  return /^\s*\*\*\* (wrote|removed|restored|ran|Summary:|would|Plan:) /.test(line);
}
