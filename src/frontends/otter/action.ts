/**
 * One operation call, as the seed's run modes have it: in a collection pass ensure operations collect and
 * compare (drift is recorded, nothing changes) and executing operations are skipped; in an execution pass
 * everything runs; in the pass after a collection only drifted ensure operations, executing operations of
 * a block with drift, and blocks with executionPolicy=always run.
 */
import { posix } from 'node:path';
import { type NodeResult, type NodeStatus, stepResultOf } from '../../core/model.js';
import { isConnectionError } from '../../host/errors.js';
import type { ActionStatement, Expr, LogLevel } from './ast.js';
import type { DriftDetail, Frame } from './engine-types.js';
import { Cancelled, OtterError } from './errors.js';
import { signalOf } from './directives.js';
import { RaftError } from './raft.js';
import type { Engine } from './executer.js';
import { findArg, lookupOperation, lowerName } from './operations/index.js';
import type { ArgSpec, EnsureOperation, OpArgs, OpContext, OpOutcome, Operation } from './operations/types.js';
import type { Span } from '../../core/diag.js';
import type { ResourceContext } from '../../host/types.js';
import { Scope } from './scope.js';
import { constantText, evaluate } from './evaluate.js';
import { parseRuntimeTemplate } from './parse-expr.js';
import { isMap, isVector, sigilOf, toText, type Value } from './values.js';

/** The evaluated arguments of one call: read through methods on one object (no closures made per call). */
class Args implements OpArgs {
  constructor(
    private readonly values: Map<string, Value>,
    private readonly stmt: ActionStatement,
  ) {}

  /** The last name asked for and its value: an operation often asks for the same argument again at once. */
  private askedName: string | undefined;
  private askedValue: Value | undefined;

  private get(name: string): Value | undefined {
    if (name === this.askedName) return this.askedValue;
    const v = this.values.get(lowerName(name));
    this.askedName = name;
    this.askedValue = v;
    return v;
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  text(name: string, fallback?: string): string {
    const v = this.get(name);
    return v === undefined ? (fallback ?? '') : toText(v);
  }

  bool(name: string, fallback: boolean): boolean {
    const v = this.get(name);
    if (v === undefined) return fallback;
    const t = toText(v).trim().toLowerCase();
    if (t === 'true') return true;
    if (t === 'false') return false;
    throw new OtterError(`${name} must be true or false, got "${toText(v)}"`, this.stmt.span);
  }

  int(name: string, fallback: number): number {
    const v = this.get(name);
    if (v === undefined) return fallback;
    const n = Number(toText(v));
    if (!Number.isFinite(n)) throw new OtterError(`${name} must be a number, got "${toText(v)}"`, this.stmt.span);
    return n;
  }

  list(name: string, fallback: readonly string[] = []): string[] {
    const v = this.get(name);
    if (v === undefined) return [...fallback];
    if (isVector(v)) return v.map(toText);
    return toText(v) === '' ? [] : [toText(v)];
  }

  map(name: string): ReadonlyMap<string, Value> {
    const v = this.get(name);
    return v !== undefined && isMap(v) ? v : new Map();
  }
}

function checkType(spec: ArgSpec, value: Value, op: Operation, span: ActionStatement['span']): void {
  const sigil = sigilOf(value);
  if (spec.type === 'map' && sigil !== '%') throw new OtterError(`${op.name}: ${spec.name} must be a map`, span);
  if (spec.type !== 'vector' && spec.type !== 'map' && sigil !== '$') throw new OtterError(`${op.name}: ${spec.name} must be a scalar`, span);
}

/**
 * The call's arguments, evaluated in order. Plain texts (most arguments) are their values at once: the
 * arguments are then ready without a promise; from the first one that needs evaluating, the rest follow
 * it in order.
 */
function evaluateArgs(engine: Engine, op: Operation, stmt: ActionStatement, frame: Frame): OpArgs | Promise<OpArgs> {
  const values = new Map<string, Value>();
  if (stmt.positional) {
    const positional = op.positional;
    if (!positional) throw new OtterError(`${op.name} takes no positional argument`, stmt.positional.span);
    const v = argValue(engine, findArg(op, positional), stmt.positional, frame);
    if (v instanceof Promise) {
      return v.then((x) => {
        values.set(lowerName(positional), x);
        return namedArgs(engine, op, stmt, frame, values, 0);
      });
    }
    values.set(lowerName(positional), v);
  }
  return namedArgs(engine, op, stmt, frame, values, 0);
}

/** Seed: unless the property disables variable expansion, the values are evaluated. */
function argValue(engine: Engine, spec: ArgSpec | undefined, expr: Expr, frame: Frame): Value | Promise<Value> {
  return spec?.noExpand && expr.kind === 'text' && expr.raw !== undefined ? expr.raw : (constantText(expr) ?? engine.eval(expr, frame));
}

/** The named arguments from the `i`th on (functions of their own: no closures made per call). */
function namedArgs(engine: Engine, op: Operation, stmt: ActionStatement, frame: Frame, values: Map<string, Value>, i: number): OpArgs | Promise<OpArgs> {
  const given = stmt.args;
  for (; i < given.length; i++) {
    const a = given[i] as (typeof given)[number];
    const spec = findArg(op, a.name);
    if (!spec) throw new OtterError(`${op.name} has no argument ${a.name}`, a.span);
    const got = argValue(engine, spec, a.value, frame);
    if (got instanceof Promise) {
      const next = i + 1;
      return got.then((v) => {
        takeArg(op, spec, a.span, values, v);
        return namedArgs(engine, op, stmt, frame, values, next);
      });
    }
    takeArg(op, spec, a.span, values, got);
  }
  return completeArgs(op, stmt, values);
}

function takeArg(op: Operation, spec: ArgSpec, span: ActionStatement['span'], values: Map<string, Value>, v: Value): void {
  checkType(spec, v, op, span);
  values.set(lowerName(spec.name), v);
}

/** Every required argument given, every output known: the arguments. */
function completeArgs(op: Operation, stmt: ActionStatement, values: Map<string, Value>): OpArgs {
  for (let i = 0; i < op.args.length; i++) {
    const spec = op.args[i] as ArgSpec;
    if (spec.required && !values.has(lowerName(spec.name))) throw new OtterError(`${op.name} needs the argument ${spec.name}`, stmt.span);
  }
  const outputs = stmt.outputs;
  for (let i = 0; i < outputs.length; i++) {
    const o = outputs[i] as (typeof outputs)[number];
    if (!op.outputs?.some((n) => n.toLowerCase() === o.name.toLowerCase())) throw new OtterError(`${op.name} has no output ${o.name}`, o.span);
  }
  return new Args(values, stmt);
}

/** The seconds left before the nearest enclosing timeout, or undefined without one. */
function remaining(frame: Frame): number | undefined {
  if (frame.cancels.length === 0) return undefined;
  const deadline = Math.min(...frame.cancels.map((c) => c.deadline));
  return Math.max(0.001, (deadline - Date.now()) / 1000);
}

/** Shown instead of the diff of a text that holds a sensitive value. */
export const SENSITIVE_DIFF = 'The text holds a sensitive value: it differs, and no diff is shown.\n';

/** What an operation may use of the run, for one call: methods on one object (no closures made per call). */
class ActionContext implements OpContext {
  readonly resources: ResourceContext;
  readonly cwd: string;
  readonly simulation: boolean;
  readonly raftDir: string;
  readonly span: Span;
  readonly signal: AbortSignal;
  readonly debug: boolean;

  /** Error-level messages the operation wrote. */
  errors = 0;

  constructor(
    private readonly engine: Engine,
    private readonly stmt: ActionStatement,
    private readonly frame: Frame,
  ) {
    const o = engine.shared.options;
    this.resources = resourcesOf(frame.server.host, frame.cwd);
    this.cwd = frame.cwd;
    this.simulation = o.simulation;
    this.raftDir = o.raftDir;
    this.span = stmt.span;
    this.signal = signalOf(frame);
    this.debug = o.keepLogFrom === undefined || o.keepLogFrom === 'DEBUG';
  }

  remaining(): number | undefined {
    return remaining(this.frame);
  }

  async raftItem(name: string, extensions: readonly string[]): Promise<string | undefined> {
    try {
      return await this.engine.shared.raft.item(name, extensions);
    } catch (e) {
      if (e instanceof RaftError) throw new OtterError(e.message, this.stmt.span);
      throw e;
    }
  }

  readRaftItem(path: string): Promise<string> {
    return this.engine.shared.raft.read(path);
  }

  log(level: LogLevel, message: string): void {
    if (level === 'ERROR') this.errors++;
    this.engine.write(level, message);
  }

  /** The last path asked for and its answer: an operation often asks for its Name twice. */
  private asked: string | undefined;
  private answer = '';

  path(p: string): string {
    if (p !== this.asked) {
      this.answer = resolvePath(this.frame.cwd, p);
      this.asked = p;
    }
    return this.answer;
  }

  async expand(text: string, extra: ReadonlyMap<string, Value>): Promise<string> {
    const frame = this.frame;
    const scope = new Scope(frame.scope);
    for (const [k, v] of extra) scope.set(sigilOf(v), k, v);
    return toText(await evaluate(parseRuntimeTemplate(text, this.stmt.span, 'template'), this.engine.env({ ...frame, scope })));
  }

  secret(value: string): void {
    this.engine.shared.secrets.add(value);
  }

  setConfigVariable(name: string, value: string): void {
    this.engine.shared.config.set(name.toLowerCase(), value);
  }

  setRuntimeVariable(name: string, value: string): void {
    this.engine.assign({ sigil: '$', name, accessors: [], span: this.stmt.span }, value, this.frame);
  }
}

/** The resource context of a host and directory: the last one made, while calls keep to them (it is read only). */
function resourcesOf(host: ResourceContext['host'], baseDir: string): ResourceContext {
  if (lastResources === undefined || lastResources.host !== host || lastResources.baseDir !== baseDir) lastResources = { host, baseDir };
  return lastResources;
}

let lastResources: ResourceContext | undefined;

/**
 * posix.resolve(cwd, p): at once for an absolute, normal cwd and a plain relative path (no empty, `.` or
 * `..` segment), which it would only join.
 */
function resolvePath(cwd: string, p: string): string {
  if (cwd !== normalCwd) {
    normalCwd = cwd;
    cwdIsNormal = cwd.startsWith('/') && posix.normalize(cwd) === cwd && (cwd === '/' || !cwd.endsWith('/'));
  }
  if (!cwdIsNormal || p === '' || p.charCodeAt(0) === 47 || !PLAIN_RELATIVE.test(p)) return posix.resolve(cwd, p);
  return cwd === '/' ? `/${p}` : `${cwd}/${p}`;
}

/** Segments without `/`, none of them `.` or `..`, none empty. */
const PLAIN_RELATIVE = /^(?:(?!\.\.?(?:\/|$))[^/]+\/)*(?!\.\.?$)[^/]+$/;
let normalCwd: string | undefined;
let cwdIsNormal = false;

/** The changes of a call that records none: one frozen object shared by every such result. */
const NO_CHANGES: Record<string, unknown> = Object.freeze({});

function record(engine: Engine, frame: Frame, op: Operation, key: string, stmt: ActionStatement, status: NodeStatus, comment: string, started: number, changes: Record<string, unknown> = NO_CHANGES): void {
  const results = engine.shared.results;
  // The run history never holds a sensitive value (an Exec's command line is its key).
  const mask = engine.shared.secrets;
  key = mask.mask(key);
  comment = mask.mask(comment);
  const result = stepResultOf(`${op.name}:${key}#${results.length}`, key, op.name, status, changes, comment, started, Date.now(), results.length, stmt.span);
  // Over an inventory, each result names the server it acted on (a `for server` block may switch it).
  const marked: NodeResult & { host?: string } = engine.shared.options.servers ? { ...result, host: frame.server.name } : result;
  results.push(marked);
}

function keyOf(op: Operation, args: OpArgs): string {
  return op.type === 'ensure' ? args.text('Name') : op.key(args);
}

/**
 * Runs the operation as the pass asks (seed, "Action Statement"); undefined when the pass skips it.
 * Collection: ensure operations collect and compare, collecting operations collect, intrinsic ones
 * execute, executing ones are skipped. Execution (execute only): ensure operations configure without
 * comparing, executing and intrinsic ones execute, collecting ones are skipped. After a collection: drifted
 * ensure operations, executing operations of a block with drift (or under executionPolicy=always), and
 * intrinsic operations.
 */
function perform(engine: Engine, op: Operation, args: OpArgs, stmt: ActionStatement, frame: Frame, ctx: OpContext, started: number): OpOutcome | undefined | Promise<OpOutcome | undefined> {
  return op.type === 'ensure' && engine.shared.pass !== 'collect' ? configure(engine, op, args, stmt, frame, ctx, started) : performAsync(engine, op, args, stmt, frame, ctx, started);
}

/** An ensure operation outside a collection: configured (at once when the operation can tell without waiting). */
function configure(engine: Engine, op: EnsureOperation, args: OpArgs, stmt: ActionStatement, frame: Frame, ctx: OpContext, started: number): OpOutcome | undefined | Promise<OpOutcome> {
  const key = args.text('Name');
  // Only the pass after a collection asks whether the call drifted (its identity is made only then).
  if (engine.shared.pass === 'remediate' && !frame.policyAlways && !engine.shared.driftKeys.has(`${stmt.id}${frame.instance}|${key}`)) return undefined;
  const configured = op.configure(ctx, args);
  if (configured instanceof Promise) return configured.then((outcome) => configuredAs(engine, frame, op, key, stmt, started, outcome));
  return configuredAs(engine, frame, op, key, stmt, started, configured);
}

/** Records a configured outcome. */
function configuredAs(engine: Engine, frame: Frame, op: Operation, key: string, stmt: ActionStatement, started: number, outcome: OpOutcome): OpOutcome {
  record(engine, frame, op, key, stmt, outcome.changed ? 'changed' : 'ok', outcome.changed ? 'configured' : 'already configured', started);
  return outcome;
}

async function performAsync(engine: Engine, op: Operation, args: OpArgs, stmt: ActionStatement, frame: Frame, ctx: OpContext, started: number): Promise<OpOutcome | undefined> {
  const { pass, driftKeys, driftBlocks, drift } = engine.shared;
  switch (op.type) {
    case 'ensure': {
      const key = args.text('Name');
      const identity = `${stmt.id}${frame.instance}|${key}`;
      if (pass === 'collect') {
        const collected = await op.collect(ctx, args);
        if (collected.drift.length > 0) {
          const secrets = engine.shared.secrets;
          // What differs is shown to the user: a sensitive value in it is masked.
          const details = collected.details?.map((d) => {
            const out: { -readonly [K in keyof DriftDetail]: DriftDetail[K] } = { property: d.property };
            if (d.expected !== undefined) out.expected = secrets.mask(d.expected);
            if (d.actual !== undefined) out.actual = secrets.mask(d.actual);
            // A text holding a sensitive value is not diffed at all: its old content may hold an old secret.
            if (d.diff !== undefined) out.diff = secrets.mask(d.diff) === d.diff ? d.diff : SENSITIVE_DIFF;
            return out;
          });
          drift.push({ operation: op.name, key, properties: collected.drift, ...(details ? { details } : {}) });
          driftKeys.add(identity);
          driftBlocks.add(frame.blockId);
          record(engine, frame, op, key, stmt, 'pending', `drift: ${collected.drift.join(', ')}`, started, { drift: collected.drift });
        } else record(engine, frame, op, key, stmt, 'ok', 'no drift', started);
        return { changed: false };
      }
      return configure(engine, op, args, stmt, frame, ctx, started);
    }
    case 'collect': {
      if (pass !== 'collect') return undefined;
      const outcome = await op.collect(ctx, args);
      record(engine, frame, op, op.key(args), stmt, 'ok', 'collected', started, outcome.outputs ? { collected: Object.keys(outcome.outputs) } : {});
      return outcome;
    }
    case 'execute':
      if (pass === 'collect') return undefined;
      if (pass === 'remediate' && !frame.policyAlways && !driftBlocks.has(frame.blockId)) return undefined;
      break;
    case 'intrinsic':
      break;
  }
  const outcome = await op.execute(ctx, args);
  record(engine, frame, op, op.key(args), stmt, outcome.changed ? 'changed' : 'ok', outcome.changed ? 'executed' : 'nothing to change', started);
  return outcome;
}

export function runAction(engine: Engine, stmt: ActionStatement, frame: Frame): void | Promise<void> {
  // Seed: the operation is loaded first (an error is raised if it cannot be found), then its log scope opens.
  const op = lookupOperation(stmt.name, stmt.namespace);
  if (!op) throw new OtterError(`unknown operation ${stmt.namespace ? `${stmt.namespace}::` : ''}${stmt.name}`, stmt.nameSpan);
  const close = engine.scope(stmt.description);
  // A call that settles at once (plain arguments, an operation that can tell without waiting) closes its
  // log scope at once; one that waits closes it when it ends.
  let waiting = false;
  try {
    const given = evaluateArgs(engine, op, stmt, frame);
    const done = given instanceof Promise ? given.then((args) => invoke(engine, op, stmt, frame, args)) : invoke(engine, op, stmt, frame, given);
    if (done instanceof Promise) {
      waiting = true;
      return done.finally(close);
    }
  } finally {
    if (!waiting) close();
  }
}

function invoke(engine: Engine, op: Operation, stmt: ActionStatement, frame: Frame, args: OpArgs): void | Promise<void> {
  const ctx = new ActionContext(engine, stmt, frame);
  const started = Date.now();
  let performed: OpOutcome | undefined | Promise<OpOutcome | undefined>;
  try {
    performed = perform(engine, op, args, stmt, frame, ctx, started);
  } catch (e) {
    return failed(engine, op, stmt, frame, args, started, e);
  }
  if (performed instanceof Promise) {
    return performed.then(
      (outcome) => finish(engine, op, stmt, frame, ctx, outcome),
      (e: unknown) => failed(engine, op, stmt, frame, args, started, e),
    );
  }
  return finish(engine, op, stmt, frame, ctx, performed);
}

/** What the operation threw: logged and recorded as its failure, then raised. */
function failed(engine: Engine, op: Operation, stmt: ActionStatement, frame: Frame, args: OpArgs, started: number, e: unknown): never {
  if (e instanceof Cancelled) {
    // Stopped by an enclosing timeout: the `with` block reports it.
    record(engine, frame, op, keyOf(op, args), stmt, 'failed', 'cancelled by a timeout', started);
    throw Object.assign(new OtterError('cancelled', stmt.span), { logged: true });
  }
  // A server that cannot be reached (or whose connection was lost) fails the operation, like a file error.
  if (!(e instanceof OtterError) && !(e instanceof Error && 'code' in e) && !isConnectionError(e)) throw e;
  // An operation's failure is logged as the operation reports it, without a source position.
  const err = e instanceof OtterError ? e : new OtterError((e as Error).message, stmt.span);
  engine.write('ERROR', err.message);
  err.logged = true;
  record(engine, frame, op, keyOf(op, args), stmt, 'failed', err.message, started);
  throw err;
}

/** After the operation: an error it logged raises, and its outputs are assigned. */
function finish(engine: Engine, op: Operation, stmt: ActionStatement, frame: Frame, ctx: ActionContext, outcome: OpOutcome | undefined): void {
  // Seed: an error-level message written by the operation raises an error as well.
  if (ctx.errors > 0) {
    const results = engine.shared.results;
    const last = results[results.length - 1];
    if (last && last.span === stmt.span) results[results.length - 1] = { ...last, status: 'failed', result: false, comment: `${op.name} logged an error` };
    throw Object.assign(new OtterError(`${op.name} failed`, stmt.span), { logged: true });
  }
  const outputs = stmt.outputs;
  for (let i = 0; i < outputs.length; i++) {
    const out = outputs[i] as (typeof outputs)[number];
    const value = outcome?.outputs?.[out.name] ?? outcome?.outputs?.[op.outputs?.find((n) => n.toLowerCase() === out.name.toLowerCase()) ?? ''];
    engine.assign(out.target, value ?? (out.target.sigil === '$' ? '' : out.target.sigil === '@' ? [] : new Map()), frame);
  }
}
