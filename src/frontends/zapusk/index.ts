/**
 * One Zapusk run as a shell user sees it: load and check the program (nothing runs when it is wrong),
 * print zapusk-tool's start line, pass the command through the program, run the deferred queue, print the
 * summary. Errors during the run stop it and are reported in the summary and as a positioned diagnostic.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { type Diagnostic, DiagnosticError, error } from '../../core/diag.js';
import type { NodeResult } from '../../core/model.js';
import type { Host } from '../../host/types.js';
import { FlagCache } from './flag-cache.js';
import { ZapuskError } from './interpolate.js';
import { Printer } from './output.js';
import { preflight } from './preflight.js';
import { loadProgram, type Param, type Params, type Program, ProgramError, readConfFile } from './program.js';
import { readLines, splitLines, type Value } from './reader.js';
import { prependDirs, refusedDir } from './lookup.js';
import { type Instance, Interpreter, warnIfEmpty } from './run.js';

export { ProgramError } from './program.js';

export interface ZapuskRunOptions {
  readonly programDir: string;
  readonly command: string;
  /** `name=value` / bare `name` from the command line, in order. */
  readonly request: readonly (readonly [string, Value])[];
  /** --state_dir; else zapusk.conf's state_dir; else `<defaultStateRoot>/<global_name>`. */
  readonly stateDir?: string | undefined;
  readonly defaultStateRoot: string;
  readonly libDirs: readonly string[];
  /**
   * The folder beside the tool (zapusk_tool_dir): zapusk-tool reads its global params from
   * zapusk.tool-defaults.conf and zapusk.global.conf there, and looks for zdb types in its lib/ last.
   */
  readonly toolDir: string;
  readonly debug: boolean;
  readonly force: boolean;
  /** A dry run (`plan`, `--dry-run`): says what would run and change, changes nothing. */
  readonly dry?: boolean;
  readonly only?: string | undefined;
  /** --changes-only: a dry run does not list the files it would leave as they are (a line counts them). */
  readonly changesOnly?: boolean;
  /** zapusk_tool: a shell command that runs this front end (`node /…/cairn.js zapusk`). */
  readonly toolCommand: string;
  readonly host: Host;
  readonly write: (text: string) => void;
  readonly writeErr: (text: string) => void;
  readonly color: boolean;
  readonly quiet: boolean;
  readonly env: NodeJS.ProcessEnv;
  readonly now: () => number;
  /** Where what the [file] flags held is kept between runs (flag-cache.ts); none: each run reads them all. */
  readonly flagCacheDir?: string | undefined;
}

export interface ZapuskPrepared {
  readonly program: Program;
  /** Global params (the seed's fifth lookup level), from the conf files beside the tool. */
  readonly globals: Params;
  /** --lib folders, then the tool's lib/. */
  readonly libDirs: readonly string[];
  readonly stateDir: string;
  readonly name: string;
  readonly globalName: string | undefined;
}

export interface ZapuskOutcome {
  readonly exitCode: number;
  readonly results: readonly NodeResult[];
  readonly error?: Diagnostic;
  readonly stateDir: string;
  readonly program: string;
  readonly command: string;
}

const COMMAND_RE = /^[\w-]+$/;

/** Loads and checks everything that can be checked before running; throws DiagnosticError. */
export function prepare(o: Pick<ZapuskRunOptions, 'programDir' | 'command' | 'request' | 'stateDir' | 'defaultStateRoot' | 'libDirs' | 'toolDir'>): ZapuskPrepared {
  if (!COMMAND_RE.test(o.command)) throw new DiagnosticError([error('Z008', `command ${JSON.stringify(o.command)} is not a word (letters, digits, _ and -)`)]);
  let program: Program;
  try {
    program = loadProgram(o.programDir);
  } catch (e) {
    if (e instanceof ProgramError) throw new DiagnosticError(e.diagnostics);
    throw e;
  }
  const globals = readGlobals(o.toolDir);
  const libDirs = [...o.libDirs, join(o.toolDir, 'lib')].map((d) => resolve(d));
  // prepend_zdb_dirs given on the command line is searched first, as a program's own.
  const requestPrepend = prependDirs(o.request.find(([k]) => k === 'prepend_zdb_dirs')?.[1]);
  const problems = preflight(program, o.request.map(([k]) => k), { libDirs: [...requestPrepend, ...libDirs], globals: [...globals.keys()] });
  if (problems.length > 0) throw new DiagnosticError(problems);
  const conf = program.conf;
  const confValue = (k: string): string | undefined => {
    const v = conf?.get(k)?.value;
    return typeof v === 'string' && v !== '' ? v : undefined;
  };
  const name = confValue('name') ?? program.name;
  const globalName = confValue('global_name');
  const confState = confValue('state_dir');
  const stateDir = o.stateDir
    ? resolve(o.stateDir)
    : confState
      ? resolve(program.dir, confState)
      : join(o.defaultStateRoot, (globalName ?? name).replace(/[^\w-]/g, '-'));
  const refused = refusedStateDir(stateDir, program.dir);
  if (refused) {
    const span = o.stateDir ? { file: '<command line>', line: 1, col: 1 } : conf?.get('state_dir')?.valueSpan;
    throw new DiagnosticError([error('Z009', `state dir ${stateDir} refused: ${refused}`, span ? { span } : {})]);
  }
  return { program, globals, libDirs, stateDir, name, globalName };
}

/**
 * A state dir is created, written and, on destroy, moved away whole: `/` or a name shorter than four
 * characters is refused as zapusk-tool refuses it ("state_dir too short"), and so is the program's own
 * folder or a folder holding it, which destroy would move away with the program in it.
 */
function refusedStateDir(stateDir: string, programDir: string): string | undefined {
  const short = refusedDir(stateDir);
  if (short) return short;
  const rel = relative(stateDir, programDir);
  if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))) return 'it holds the program itself, which destroy would move away with the state';
  return undefined;
}

/** zapusk-tool's global params: zapusk.tool-defaults.conf, overridden by zapusk.global.conf. */
function readGlobals(toolDir: string): Params {
  const diagnostics: Diagnostic[] = [];
  const out = new Map<string, Param>();
  for (const name of ['zapusk.tool-defaults.conf', 'zapusk.global.conf']) {
    const file = join(toolDir, name);
    if (!existsSync(file)) continue;
    for (const [k, p] of readConfFile(file, diagnostics)) out.set(k, p);
  }
  if (diagnostics.length > 0) throw new DiagnosticError(diagnostics);
  return out;
}

function requestParams(request: ZapuskRunOptions['request']): Map<string, Param> {
  const span = { file: '<command line>', line: 1, col: 1 };
  return new Map(request.map(([k, v]) => [k, { value: v, span, valueSpan: span }]));
}

/** zapusk-tool's deferred queue: `key = command` lines appended by steps, run after the whole run. */
async function runDeferred(it: Interpreter, root: Instance, file: string): Promise<void> {
  for (let round = 0; round < 10 && (await it.machine.exists(file)); round++) {
    const text = await it.machine.readText(file);
    await it.machine.remove(file);
    const read = readLines([{ file, line: 0, text: '### deferred' }, ...splitLines(file, text)]);
    const tasks = new Map(read.sections.flatMap((s) => s.entries).map((e) => [e.key, String(e.value)]));
    for (const [key, command] of tasks) {
      it.o.printer.info(root.padding, `Run deferred script: ${key}`);
      const r = await it.shell(root, command, { colored: true, lines: true });
      const code = r.code;
      it.note(undefined, 'ran', command, code !== 0 && code !== 100);
      if (code === 100) break;
      if (code !== 0) throw new ZapuskError('Z033', `deferred script ${key} failed: unsupported non-zero exit code [${String(code ?? 'signal')}]. cmd=[${command}]`);
    }
  }
}

export async function runZapusk(o: ZapuskRunOptions, prepared: ZapuskPrepared): Promise<ZapuskOutcome> {
  const { program, stateDir } = prepared;
  const printer = new Printer({ write: o.write, color: o.color, quiet: o.quiet, changesOnly: o.changesOnly === true });
  const inherited = o.env.ZAPUSK_DEFERRED_PATH;
  const basePadding = o.env.ZAPUSK_PADDING ?? '';
  const nested = o.env.ZAPUSK_PADDING !== undefined;
  // A dry run reads its flags another way; only a run's reads are kept.
  const flags = o.dry ? undefined : FlagCache.load(o.flagCacheDir, stateDir);
  const it = new Interpreter({
    host: o.host,
    ...(flags ? { flags } : {}),
    printer,
    stderr: (t) => (o.quiet ? undefined : o.writeErr(t)),
    libDirs: prepared.libDirs,
    globals: prepared.globals,
    debug: o.debug,
    force: o.force || (o.env.ZAPUSK_FORCE ?? '') !== '',
    dry: o.dry ?? false,
    only: o.only,
    toolCommand: o.toolCommand,
    toolDir: o.toolDir,
    basePadding,
    deferredPath: inherited,
    now: o.now,
  });
  const master = !inherited;
  it.deferredPath = inherited || join(stateDir, 'deferred.ini');
  const started = o.now();
  // Started from a step of another zapusk run, the run's own start and finish lines would be noise.
  // zapusk-tool reads the program and computes its params (running their {`…`} parts) before its start line.
  for (const w of program.warnings) printer.warning(basePadding, w);
  let failure: Diagnostic | undefined;
  let result: string = 'done';
  try {
    // zapusk-tool: a global_name in zapusk.conf is the program's name and global name as written.
    const root = await it.instantiate(program, {
      name: prepared.globalName ?? prepared.name,
      globalName: prepared.globalName,
      globalPrefix: '',
      stateDir,
      request: requestParams(o.request),
    });
    warnIfEmpty(printer, program, basePadding);
    if (!nested) printer.info('', o.dry ? `zapusk: dry run. ${program.dir} :: ${o.command} (nothing is changed)` : `zapusk: started. ${program.dir} :: ${o.command}`);
    warnIfEmpty(printer, program, basePadding);
    result = await it.perform(root, o.command, true);
    if (master && !o.dry) await runDeferred(it, root, it.deferredPath);
  } catch (e) {
    if (e instanceof ZapuskError) failure = error(e.code, e.message, { span: e.span });
    else if (e instanceof ProgramError) failure = e.diagnostics[0] ?? error('Z000', e.message);
    else throw e;
  } finally {
    // What was read stays true whether or not the run went on to the end.
    flags?.save();
  }
  const seconds = (o.now() - started) / 1000;
  // A run started by a step of another run indents its summary too (ZAPUSK_PADDING), as zapusk-tool.
  if (o.dry) printer.planSummary(it.changes, basePadding);
  else printer.changes(it.changes, basePadding);
  printer.summary(seconds, failure?.message, basePadding);
  if (!nested && !failure) printer.info('', `zapusk: finished. ${program.dir} :: ${o.command} result=${result}`);
  return {
    exitCode: failure ? 1 : 0,
    results: it.results,
    ...(failure ? { error: failure } : {}),
    stateDir,
    program: program.dir,
    command: o.command,
  };
}
