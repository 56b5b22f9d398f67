/**
 * The command pipeline: a command goes through the components of a program in order (the same forward
 * order for destroy, as zapusk-tool), and through the steps of each component; each step decides what
 * goes on to the rest of its component. Sub-programs (zdb types, [load]) are instances with their own
 * params, state dir and global_name, run by the same pipeline.
 */
import { join } from 'node:path';
import { type NodeResult, type NodeStatus, stepResult } from '../../core/model.js';
import type { ExecResult, Host } from '../../host/types.js';
import { type Evaluator, isLiteral, type Level, Scope, ZapuskError } from './interpolate.js';
import type { Code } from '../../core/codes.js';
import type { FlagCache } from './flag-cache.js';
import { Machine } from './machine.js';
import type { Change, Printer } from './output.js';
import { findTypeDir, prependDirs } from './lookup.js';
import { type Component, loadProgram, type Param, type Params, type Program, ProgramError, type Step } from './program.js';
import { readLines, splitLines, type Value } from './reader.js';
import { formatIni, globalNameOf } from './state-files.js';
import { runStepType } from './steps.js';

/**
 * What a step or program reports, in zapusk-tool's words (`done`, `ok_no_cmd_record`, …; the root's is
 * printed as `result=`). `stop` (an os step's exit 100) ends the current program's components.
 */
export type Outcome = string;

export interface InterpreterOptions {
  readonly host: Host;
  readonly printer: Printer;
  /** Where a step's stderr goes. */
  readonly stderr: (text: string) => void;
  /** --lib folders and the tool's lib/, searched for zdb types after the program's own folder. */
  readonly libDirs: readonly string[];
  /** Global params: visible in every program instance, below every other level. */
  readonly globals: Params;
  readonly debug: boolean;
  readonly force: boolean;
  /**
   * A dry run: commands are not run and nothing is written; each step that would act says what it
   * would do. `{`…`}` parts of values are still run, as they compute what the steps would be given.
   */
  readonly dry?: boolean;
  /** Run only components whose name contains this (zapusk-tool's --only). */
  readonly only?: string | undefined;
  /** zapusk_tool: a shell command that runs this front end (`node /…/cairn.js zapusk`). */
  readonly toolCommand: string;
  /** zapusk_tool_dir: the folder of the program behind toolCommand. */
  readonly toolDir: string;
  /** Padding inherited from a zapusk run that started this one (ZAPUSK_PADDING). */
  readonly basePadding: string;
  /** A deferred-task file inherited from an enclosing run; when absent this run owns the queue. */
  readonly deferredPath?: string | undefined;
  readonly now: () => number;
  /** What [file] flags held when last read (flag-cache.ts). */
  readonly flags?: FlagCache;
}

export interface Instance {
  readonly program: Program;
  readonly name: string;
  readonly globalName: string;
  readonly globalPrefix: string;
  readonly stateDir: string;
  readonly padding: string;
  /** Program params merged with the request's, computed once. */
  readonly params: ReadonlyMap<string, Value>;
  readonly conf: ReadonlyMap<string, Value>;
  readonly special: ReadonlyMap<string, Value>;
  /** Global params not shadowed by the levels above, computed in this instance. */
  readonly globals: ReadonlyMap<string, Value>;
  /**
   * What zapusk-tool writes to params.txt, params.sh and params.json: global params, then special
   * params, then program and request params, each overriding the one before.
   */
  readonly stateParams: ReadonlyMap<string, Value>;
  readonly lookupDirs: readonly string[];
  /** Files written into the state dir with params.txt (zapusk-tool's arg_N.ini), name → content. */
  readonly stateFiles?: ReadonlyMap<string, string>;
}

export interface InstanceSpec {
  readonly name: string;
  /** A global_name given outright (zapusk.conf's), used as written. */
  readonly globalName?: string | undefined;
  readonly globalPrefix: string;
  readonly stateDir: string;
  readonly request: Params;
  readonly zdbType?: string | undefined;
  readonly parent?: Instance | undefined;
  readonly stateFiles?: ReadonlyMap<string, string>;
}

/** What a step handler gets. */
export interface StepCall {
  readonly inst: Instance;
  readonly comp: Component;
  readonly step: Step;
  readonly index: number;
  readonly type: string;
  readonly vars: ReadonlyMap<string, Value>;
  readonly cmd: string;
  /** Passes a command (default: the same) to the rest of the component's steps. */
  next(cmd?: string): Promise<Outcome>;
  /** The steps after this one in its component. */
  readonly rest: readonly Step[];
}

/** A StepCall whose `next` and `rest` are made only when a step asks for them (most never do). */
class Call implements StepCall {
  constructor(
    private readonly it: Interpreter,
    readonly inst: Instance,
    readonly comp: Component,
    readonly step: Step,
    readonly index: number,
    readonly type: string,
    readonly vars: ReadonlyMap<string, Value>,
    readonly cmd: string,
  ) {}

  next(cmd: string = this.cmd): Promise<Outcome> {
    return this.it.runSteps(this.inst, this.comp, this.index + 1, cmd);
  }

  get rest(): readonly Step[] {
    return this.comp.steps.slice(this.index + 1);
  }
}

/** A step's keys when no value has a brace (each is itself, as computeStep would find), without a promise. */
function literalStep(step: Step): Map<string, Value> | undefined {
  const vars = new Map<string, Value>();
  for (const [k, p] of step.params) {
    if (!isLiteral(p.value)) return undefined;
    vars.set(k, p.value);
  }
  return vars;
}

function literalValues(params: Params | undefined): Map<string, Value> {
  return new Map([...(params ?? new Map<string, Param>())].map(([k, p]) => [k, p.value]));
}

export class Interpreter {
  readonly machine: Machine;
  readonly results: NodeResult[] = [];
  /** What the run changed, in order: listed at its end. */
  readonly changes: Change[] = [];
  deferredPath = '';

  constructor(readonly o: InterpreterOptions) {
    this.machine = new Machine(o.host, o.flags);
  }

  /** Environment every command of an instance sees. */
  env(inst: Instance): Record<string, string> {
    return {
      ZAPUSK_DEBUG: this.o.debug ? '--debug' : '',
      ZAPUSK_PADDING: `${inst.padding}  `,
      ZAPUSK_DEFERRED_PATH: this.deferredPath,
      ...(this.o.force ? { ZAPUSK_FORCE: '--force' } : {}),
    };
  }

  /**
   * Runs a step's shell command with the instance's environment, its stdout and stderr shown while it
   * runs (and kept for the run record). `colored`: between the colour codes zapusk-tool puts around an
   * os step's output.
   */
  async shell(inst: Instance, command: string, o: { cwd?: string; colored: boolean; lines?: boolean }): Promise<ExecResult> {
    const printer = this.o.printer;
    if (o.colored) printer.streamBegin(o.lines);
    try {
      return await this.machine.exec(command, {
        env: this.env(inst),
        ...(o.cwd !== undefined ? { cwd: o.cwd } : {}),
        onOutput: (stream, chunk) => (stream === 'stdout' ? printer.streamChunk(chunk) : this.o.stderr(chunk)),
      });
    } finally {
      if (o.colored) printer.streamEnd(o.lines);
    }
  }

  evaluator(inst: { padding: string }, env: () => Record<string, string>): Evaluator {
    return {
      shell: async (command) => {
        const r = await this.machine.exec(command, { env: env() });
        return { code: r.code, stdout: r.stdout };
      },
      warn: (message) => this.o.printer.warning(inst.padding, message),
    };
  }

  async instantiate(program: Program, spec: InstanceSpec): Promise<Instance> {
    // zapusk.conf's own keys say who the instance is (its special params), they do not shadow them.
    const conf = literalValues(program.conf);
    for (const k of ['name', 'global_name', 'state_dir', 'zdb_dir']) conf.delete(k);
    const globalName = spec.globalName ?? globalNameOf(spec.globalPrefix, spec.name);
    const special = new Map<string, Value>([
      ['name', spec.name],
      ['global_name', globalName],
      ['global_prefix', spec.globalPrefix],
      ['zdb_dir', program.dir],
      ['zapusk_tool_dir', this.o.toolDir],
      ['zapusk_tool', this.o.toolCommand],
      ['state_dir', spec.stateDir],
    ]);
    if (spec.zdbType !== undefined) special.set('zdb_type', spec.zdbType);
    const merged = new Map<string, Param>(program.params);
    for (const [k, p] of spec.request) merged.set(k, p);
    const padding = spec.parent ? `${spec.parent.padding}  ` : this.o.basePadding;
    const partial = { padding };
    const levels: Level[] = [
      { kind: 'raw', params: merged },
      { kind: 'computed', values: conf },
      { kind: 'computed', values: special },
      { kind: 'raw', params: this.o.globals },
    ];
    const globals = new Map<string, Value>();
    const draft = { program, name: spec.name, globalName, globalPrefix: spec.globalPrefix, stateDir: spec.stateDir, padding, conf, special, globals };
    const scope = new Scope(levels, this.evaluator(partial, () => this.env({ ...draft, params: new Map(), stateParams: new Map(), lookupDirs: [] })), `params of ${globalName}`);
    const params = new Map<string, Value>();
    for (const k of merged.keys()) params.set(k, await scope.computeKey(0, k));
    // zapusk-tool computes every global param in every program, so a wrong one stops any program.
    for (const k of this.o.globals.keys()) if (!merged.has(k) && !special.has(k)) globals.set(k, await scope.computeKey(3, k));
    const stateParams = new Map<string, Value>();
    for (const k of this.o.globals.keys()) stateParams.set(k, globals.get(k) ?? '');
    for (const [k, v] of special) stateParams.set(k, v);
    // zapusk-tool writes an empty zdb_type for a root program given request params.
    if (spec.zdbType === undefined && spec.request.size > 0) stateParams.set('zdb_type', '');
    for (const [k, v] of params) stateParams.set(k, v);
    const prepend = params.get('prepend_zdb_dirs') ?? conf.get('prepend_zdb_dirs');
    const confPrepend = conf.get('prepend_zdb_dirs');
    const own = [...prependDirs(prepend), ...(prepend === confPrepend ? [] : prependDirs(confPrepend))];
    const lookupDirs = [...own, ...(spec.parent ? spec.parent.lookupDirs : this.o.libDirs)];
    return { ...draft, params, stateParams, lookupDirs, ...(spec.stateFiles ? { stateFiles: spec.stateFiles } : {}) };
  }

  /** Runs a command through an instance, with zapusk-tool's state-dir rules around it. */
  async perform(inst: Instance, cmd: string, isRoot = false): Promise<Outcome> {
    await this.destroyRemovedComponents(inst);
    if (cmd === 'destroy') {
      // Nothing was ever applied here: nothing to undo.
      if (!(await this.machine.isDirectory(inst.stateDir))) return 'noneed_state_dir_not_exist';
      await this.components(inst, cmd, isRoot);
      if (!(isRoot && this.o.only !== undefined) && !this.o.dry) await this.archive(inst.stateDir);
      return 'done_destroyed';
    }
    if (!this.o.dry) await this.prepareStateDir(inst);
    return this.components(inst, cmd, isRoot);
  }

  private async components(inst: Instance, cmd: string, isRoot: boolean): Promise<Outcome> {
    warnIfEmpty(this.o.printer, inst.program, inst.padding);
    let last: Outcome = 'done';
    for (const comp of inst.program.components) {
      if (isRoot && this.o.only !== undefined) {
        const pass = comp.name.includes(this.o.only);
        this.o.printer.info(inst.padding, `perform_component: ${pass ? 'passed' : 'skipped'} due to --only filter. only=${this.o.only}, name=${comp.name}`);
        if (!pass) {
          last = 'skipped_due_to_only_filter';
          continue;
        }
      }
      last = await this.runSteps(inst, comp, 0, cmd);
      // A stop ends this program only; its caller goes on.
      if (last === 'stop') return 'done';
    }
    return last;
  }

  /**
   * Runs step `index` of a component (and, through it, the ones after). Not an async function: the step's
   * own promise is handed back as it is, not wrapped in another that waits for it.
   */
  runSteps(inst: Instance, comp: Component, index: number, cmd: string): Promise<Outcome> {
    const step = comp.steps[index];
    if (!step) return Promise.resolve('skipped_expression_empty');
    const vars = literalStep(step);
    if (vars) return this.runStep(inst, comp, step, index, cmd, vars);
    return this.computeStep(inst, comp, step, cmd).then((computed) => this.runStep(inst, comp, step, index, cmd, computed));
  }

  private runStep(inst: Instance, comp: Component, step: Step, index: number, cmd: string, vars: ReadonlyMap<string, Value>): Promise<Outcome> {
    const type = step.params.has('type') ? String(vars.get('type')) : step.params.has('name') ? String(vars.get('name')) : String(step.type);
    return runStepType(this, new Call(this, inst, comp, step, index, type, vars, cmd));
  }

  /** Every key of a step is computed when it runs, used or not (so a wrong reference anywhere stops it). */
  async computeStep(inst: Instance, comp: Component, step: Step, cmd: string): Promise<Map<string, Value>> {
    let scope: Scope | undefined;
    const vars = new Map<string, Value>();
    for (const [k, p] of step.params) {
      // A value without a brace has no reference, no command and no mismatch to warn about: it is itself.
      if (isLiteral(p.value)) vars.set(k, p.value);
      else vars.set(k, await (scope ??= this.stepScope(inst, comp, step, cmd)).computeKey(1, k));
    }
    return vars;
  }

  private stepScope(inst: Instance, comp: Component, step: Step, cmd: string): Scope {
    const special = new Map(inst.special).set('cmd', cmd);
    const levels: Level[] = [
      { kind: 'computed', values: inst.params },
      { kind: 'raw', params: step.params },
      { kind: 'computed', values: inst.conf },
      { kind: 'computed', values: special },
      { kind: 'computed', values: inst.globals },
    ];
    return new Scope(levels, this.evaluator(inst, () => this.env(inst)), `step [${step.id}] of component ${comp.name}`);
  }

  /** Runs a sub-program (a zdb type or [load]) as an instance named after the component. */
  async runSubProgram(call: StepCall, dir: string): Promise<Outcome> {
    const { inst, comp, step, vars, cmd } = call;
    let program: Program;
    try {
      program = loadProgram(dir);
    } catch (e) {
      // A folder named at run time: its faults are reported at the step that names it.
      if (e instanceof ProgramError) {
        const d = e.diagnostics[0];
        throw new ZapuskError(d?.code ?? 'Z005', `${d?.message ?? e.message} (step [${step.id}] of component ${comp.name} in ${inst.globalName})`, d?.span ?? step.span);
      }
      throw e;
    }
    for (const w of program.warnings) this.o.printer.warning(`${inst.padding}  `, w);
    const request = new Map<string, Param>();
    for (const [k, v] of vars) {
      const p = step.params.get(k);
      // Named fields, not a spread: an entry as read makes its positions when asked for.
      if (p) request.set(k, { value: v, span: p.span, valueSpan: p.valueSpan });
    }
    // zapusk-tool names the sub-program after the component, whatever the step's own name key says.
    request.delete('name');
    const made = (value: Value): Param => ({ value, span: step.span, valueSpan: step.span });
    request.set('type', made(call.type));
    const childGlobalName = globalNameOf(inst.globalName, comp.name);
    request.set('parent_global_name', made(inst.globalName));
    request.set('component_global_name', made(childGlobalName));
    const stack = inst.params.get('stack_of_types_dirs');
    request.set('stack_of_types_dirs', made([...(typeof stack === 'string' ? [stack] : []), inst.program.dir].join(':')));
    // zapusk-tool: a param `web/port` of the caller is `port` in component web's program; `*/port` in all.
    for (const [k, v] of inst.stateParams) {
      const parts = k.split('/');
      if (parts.length > 1 && (parts[0] === comp.name || parts[0] === '*')) request.set(parts.slice(1).join('/'), made(v));
    }
    const stateFiles = new Map<string, string>();
    const rest = call.rest;
    if (rest.length > 0) {
      const names: string[] = [];
      for (const [i, next] of rest.entries()) {
        const name = `arg_${i}.ini`;
        stateFiles.set(name, await this.argSection(inst, comp, next, cmd));
        names.push(name);
      }
      request.set('arg_files', made(names.join(' ')));
    }
    const child = await this.instantiate(program, {
      name: comp.name,
      globalPrefix: inst.globalName,
      stateDir: join(inst.stateDir, comp.name),
      request,
      zdbType: call.type,
      parent: inst,
      stateFiles,
    });
    const flag = join(inst.stateDir, '_zapusk.created', comp.name);
    if (cmd !== 'destroy' && !this.o.dry) {
      await this.machine.mkdirp(join(inst.stateDir, '_zapusk.created'));
      await this.machine.writeMark(flag, `${new Date(this.o.now()).toISOString()}\n`);
    }
    const result = await this.perform(child, cmd);
    if (cmd === 'destroy' && !this.o.dry && (await this.machine.exists(flag))) await this.machine.remove(flag);
    return result;
  }

  /**
   * A step after a zdb step is not run by its component: zapusk-tool computes it and hands it to the
   * sub-program as an ini section (arg_N.ini in its state dir, listed in param arg_files), with the
   * folder of its type and its global_name. Its type must therefore be a zdb type too.
   */
  private async argSection(inst: Instance, comp: Component, step: Step, cmd: string): Promise<string> {
    const vars = await this.computeStep(inst, comp, step, cmd);
    const name = vars.get('name') ?? step.id;
    const section = new Map<string, Value>([['name', name]]);
    for (const [k, v] of vars) if (k !== 'name') section.set(k, v);
    const type = String(vars.get('type') ?? name);
    if (!section.has('type')) section.set('type', type);
    if (!section.has('type_dir')) {
      const { found, searched } = this.findZdbType(inst, type);
      if (!found) throw new ZapuskError('Z010', `perform_type_zdb: cannot find zdb of type \`${type}\` (looked for ${type}.zdb in ${searched.join(', ')}; a step after a zdb step is passed to it as an argument)`, step.params.get('type')?.valueSpan ?? step.span);
      section.set('type_dir', found);
    }
    if (!section.has('global_name')) {
      const own = String(name);
      const prefix = comp.name !== 'main' && comp.name !== own ? `${inst.globalName}-${comp.name}` : inst.globalName;
      section.set('global_name', globalNameOf(prefix, own));
    }
    return `[${String(name)}]\n${formatIni(section)}`;
  }

  /** zdb type lookup: the program's folder, then prepend_zdb_dirs and --lib; then one level down in each. */
  findZdbType(inst: Instance, type: string): { found?: string; searched: string[] } {
    const dirs = [inst.program.dir, ...inst.lookupDirs];
    return { ...findTypeDir(dirs, type), searched: dirs };
  }

  private async prepareStateDir(inst: Instance): Promise<void> {
    await this.machine.mkdirp(inst.stateDir);
    await this.machine.writeMarkIfChanged(join(inst.stateDir, 'params.txt'), formatIni(inst.stateParams));
    const conf = new Map(inst.special);
    conf.set('use_state_params', '1');
    await this.machine.writeMarkIfChanged(join(inst.stateDir, 'zapusk.conf'), formatIni(conf));
    for (const [name, content] of inst.stateFiles ?? []) await this.machine.writeMarkIfChanged(join(inst.stateDir, name), content);
  }

  /** Moves a destroyed instance's state to `<parent>/_zapusk.removed/<name>.at_<unix time>/<name>`. */
  private async archive(stateDir: string): Promise<void> {
    const name = stateDir.replace(/\/+$/, '').split('/').pop() ?? 'state';
    const into = join(stateDir, '..', '_zapusk.removed', `${name}.at_${Math.floor(this.o.now() / 1000)}`);
    await this.machine.mkdirp(into);
    await this.machine.move(stateDir, join(into, name));
  }

  /** A sub-program that ran before but whose component is gone from the program is destroyed now. */
  private async destroyRemovedComponents(inst: Instance): Promise<void> {
    const flags = join(inst.stateDir, '_zapusk.created');
    const names = new Set(inst.program.components.map((c) => c.name));
    for (const name of await this.machine.list(flags)) {
      if (names.has(name)) continue;
      const sub = join(inst.stateDir, name);
      if (!(await this.machine.isDirectory(sub))) continue;
      const saved = await this.readSavedParams(join(sub, 'zapusk.conf'));
      const zdbDir = saved.get('zdb_dir');
      if (typeof zdbDir !== 'string' || !(await this.machine.isDirectory(zdbDir))) {
        this.o.printer.warning(inst.padding, `collapse_component: component directory does not exist! dir=${String(zdbDir)}`);
      } else {
        const request = await this.readSavedParams(join(sub, 'params.txt'));
        const program = loadProgram(zdbDir);
        const child = await this.instantiate(program, {
          name,
          globalPrefix: inst.globalName,
          stateDir: sub,
          request: new Map([...request].map(([k, v]) => [k, { value: v, span: { file: join(sub, 'params.txt'), line: 1, col: 1 }, valueSpan: { file: join(sub, 'params.txt'), line: 1, col: 1 } }])),
          zdbType: typeof saved.get('zdb_type') === 'string' ? String(saved.get('zdb_type')) : undefined,
          parent: inst,
        });
        if (this.o.dry) this.o.printer.info(inst.padding, `would destroy ${name}: its component is gone from the program`);
        await this.perform(child, 'destroy');
      }
      if (!this.o.dry) await this.machine.remove(join(flags, name));
    }
  }

  async readSavedParams(file: string): Promise<Map<string, Value>> {
    if (!(await this.machine.exists(file))) return new Map();
    const text = await this.machine.readText(file);
    const read = readLines([{ file, line: 0, text: '### saved' }, ...splitLines(file, text)]);
    return new Map(read.sections.flatMap((s) => s.entries).map((e) => [e.key, e.value]));
  }

  /** Appends one step's record to the run's results. */
  record(call: StepCall, status: NodeStatus, comment: string, started: number, extra?: { changes?: Record<string, unknown>; outputs?: Record<string, unknown> }): void {
    const { inst, comp, step, index, cmd, type } = call;
    const id = `${inst.globalName}/${comp.name}/${index}`;
    const name = `${comp.name} [${step.id}] ${cmd}`;
    const changes = extra?.changes ?? {};
    const ended = this.o.now();
    const runNum = this.results.length;
    // Two literals rather than a spread of the optional outputs: the same keys in the same order.
    this.results.push(
      stepResult(
        extra?.outputs
          ? { id, name, type, status, changes, comment, started, ended, run_num: runNum, outputs: extra.outputs, span: step.span }
          : { id, name, type, status, changes, comment, started, ended, run_num: runNum, span: step.span },
      ),
    );
  }

  /** Notes a change for the list at the end of the run. */
  note(call: StepCall | undefined, kind: Change['kind'], what: string, failed = false, detail: readonly string[] = []): void {
    const where = call ? `${call.comp.name} [${call.step.id}] in ${call.inst.globalName}` : 'deferred';
    const change = { kind, what, where, ...(failed ? { failed } : {}) };
    this.changes.push(change);
    if (this.o.dry) this.o.printer.planned(call?.inst.padding ?? this.o.basePadding, change, detail);
  }

  fail(call: StepCall, code: Code, message: string): never {
    throw new ZapuskError(code, `${message} (step [${call.step.id}] of component ${call.comp.name} in ${call.inst.globalName}, command ${call.cmd})`, call.step.span);
  }
}

/** zapusk-tool's check before running a program warns about one with no components (each time it checks). */
export function warnIfEmpty(printer: Printer, program: Program, padding: string): void {
  if (program.components.length > 0) return;
  printer.warning(padding, 'ready?: empty components list! this is not error, just warning!');
  printer.info(padding, `ready?: zdb_dir=${program.dir}`);
}
