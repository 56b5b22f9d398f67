/**
 * One operation call, as the seed's run modes have it: in a collection pass ensure operations collect and
 * compare (drift is recorded, nothing changes) and executing operations are skipped; in an execution pass
 * everything runs; in the pass after a collection only drifted ensure operations, executing operations of
 * a block with drift, and blocks with executionPolicy=always run.
 */
import { posix } from 'node:path';
import type { NodeResult, NodeStatus } from '../../core/model.js';
import type { ActionStatement, LogLevel } from './ast.js';
import type { Frame } from './engine-types.js';
import { OtterError } from './errors.js';
import type { Engine } from './executer.js';
import { findArg, lookupOperation } from './operations/index.js';
import type { ArgSpec, OpArgs, OpContext, OpOutcome, Operation } from './operations/types.js';
import { Scope } from './scope.js';
import { evaluate } from './evaluate.js';
import { parseTemplateText } from './parse-expr.js';
import { isMap, isVector, sigilOf, toText, type Value } from './values.js';

function makeArgs(values: Map<string, Value>, stmt: ActionStatement): OpArgs {
  const get = (name: string): Value | undefined => values.get(name.toLowerCase());
  return {
    has: (name) => get(name) !== undefined,
    text: (name, fallback) => {
      const v = get(name);
      return v === undefined ? (fallback ?? '') : toText(v);
    },
    bool: (name, fallback) => {
      const v = get(name);
      if (v === undefined) return fallback;
      const t = toText(v).trim().toLowerCase();
      if (t === 'true') return true;
      if (t === 'false') return false;
      throw new OtterError(`${name} must be true or false, got "${toText(v)}"`, stmt.span);
    },
    int: (name, fallback) => {
      const v = get(name);
      if (v === undefined) return fallback;
      const n = Number(toText(v));
      if (!Number.isFinite(n)) throw new OtterError(`${name} must be a number, got "${toText(v)}"`, stmt.span);
      return n;
    },
    list: (name, fallback = []) => {
      const v = get(name);
      if (v === undefined) return [...fallback];
      if (isVector(v)) return v.map(toText);
      return toText(v) === '' ? [] : [toText(v)];
    },
    map: (name) => {
      const v = get(name);
      return v !== undefined && isMap(v) ? v : new Map();
    },
  };
}

function checkType(spec: ArgSpec, value: Value, op: Operation, span: ActionStatement['span']): void {
  const sigil = sigilOf(value);
  if (spec.type === 'map' && sigil !== '%') throw new OtterError(`${op.name}: ${spec.name} must be a map`, span);
  if (spec.type !== 'vector' && spec.type !== 'map' && sigil !== '$') throw new OtterError(`${op.name}: ${spec.name} must be a scalar`, span);
}

async function evaluateArgs(engine: Engine, op: Operation, stmt: ActionStatement, frame: Frame): Promise<OpArgs> {
  const values = new Map<string, Value>();
  if (stmt.positional) {
    if (!op.positional) throw new OtterError(`${op.name} takes no positional argument`, stmt.positional.span);
    values.set(op.positional.toLowerCase(), await engine.eval(stmt.positional, frame));
  }
  for (const a of stmt.args) {
    const spec = findArg(op, a.name);
    if (!spec) throw new OtterError(`${op.name} has no argument ${a.name}`, a.span);
    const value = await engine.eval(a.value, frame);
    checkType(spec, value, op, a.span);
    values.set(spec.name.toLowerCase(), value);
  }
  for (const spec of op.args) if (spec.required && !values.has(spec.name.toLowerCase())) throw new OtterError(`${op.name} needs the argument ${spec.name}`, stmt.span);
  return makeArgs(values, stmt);
}

function opContext(engine: Engine, stmt: ActionStatement, frame: Frame, errors: { count: number }): OpContext {
  const o = engine.shared.options;
  return {
    resources: { host: o.host, baseDir: frame.cwd },
    cwd: frame.cwd,
    simulation: o.simulation,
    raftDir: o.raftDir,
    span: stmt.span,
    log: (level: LogLevel, message: string) => {
      if (level === 'ERROR') errors.count++;
      engine.write(level, message);
    },
    path: (p) => posix.resolve(frame.cwd, p),
    expand: async (text, extra) => {
      const scope = new Scope(frame.scope);
      for (const [k, v] of extra) scope.set(sigilOf(v), k, v);
      return toText(await evaluate(parseTemplateText(stmt.span.file, text), engine.env({ ...frame, scope })));
    },
    setConfigVariable: (name, value) => {
      engine.shared.config.set(name.toLowerCase(), value);
    },
    setRuntimeVariable: (name, value) => {
      engine.assign({ sigil: '$', name, accessors: [], span: stmt.span }, value, frame);
    },
  };
}

function record(engine: Engine, op: Operation, key: string, stmt: ActionStatement, status: NodeStatus, comment: string, started: number, changes: Record<string, unknown> = {}): void {
  const results = engine.shared.results;
  const result: NodeResult = {
    id: `${op.name}:${key}#${results.length}`,
    name: key,
    type: op.name,
    result: status === 'failed' ? false : status === 'pending' ? null : true,
    status,
    changes,
    comment,
    start: new Date(started).toISOString(),
    duration: Date.now() - started,
    run_num: results.length,
    span: stmt.span,
  };
  results.push(result);
}

/**
 * Runs the operation as the pass asks; undefined when the pass skips it. Collect: ensure operations collect
 * and compare. Execute: every operation executes (an ensure operation configures without comparing first).
 * After a collection: drifted ensure operations, and executing operations of a block with drift.
 */
async function perform(engine: Engine, op: Operation, args: OpArgs, stmt: ActionStatement, frame: Frame, ctx: OpContext, started: number): Promise<OpOutcome | undefined> {
  const { pass, driftKeys, driftBlocks, drift } = engine.shared;
  if (op.type === 'ensure') {
    const key = args.text('Name');
    const identity = `${stmt.id}|${key}`;
    if (pass === 'collect') {
      const collected = await op.collect(ctx, args);
      if (collected.drift.length > 0) {
        drift.push({ operation: op.name, key, properties: collected.drift });
        driftKeys.add(identity);
        driftBlocks.add(frame.blockId);
        record(engine, op, key, stmt, 'pending', `drift: ${collected.drift.join(', ')}`, started, { drift: collected.drift });
      } else record(engine, op, key, stmt, 'ok', 'no drift', started);
      return { changed: false };
    }
    if (pass === 'remediate' && !frame.policyAlways && !driftKeys.has(identity)) return undefined;
    const outcome = await op.configure(ctx, args);
    record(engine, op, key, stmt, outcome.changed ? 'changed' : 'ok', outcome.changed ? 'configured' : 'already configured', started);
    return outcome;
  }
  if (pass === 'collect') return undefined;
  if (pass === 'remediate' && !frame.policyAlways && !driftBlocks.has(frame.blockId)) return undefined;
  const outcome = await op.execute(ctx, args);
  record(engine, op, op.key(args), stmt, outcome.changed ? 'changed' : 'ok', outcome.changed ? 'executed' : 'nothing to change', started);
  return outcome;
}

export async function runAction(engine: Engine, stmt: ActionStatement, frame: Frame): Promise<void> {
  const op = lookupOperation(stmt.name, stmt.namespace);
  if (!op) throw new OtterError(`unknown operation ${stmt.namespace ? `${stmt.namespace}::` : ''}${stmt.name}`, stmt.nameSpan);
  const args = await evaluateArgs(engine, op, stmt, frame);
  const errors = { count: 0 };
  const ctx = opContext(engine, stmt, frame, errors);
  const started = Date.now();
  let outcome: OpOutcome | undefined;
  try {
    outcome = await perform(engine, op, args, stmt, frame, ctx, started);
  } catch (e) {
    if (!(e instanceof OtterError) && !(e instanceof Error && 'code' in e)) throw e;
    // An operation's failure is logged as the operation reports it, without a source position.
    const err = e instanceof OtterError ? e : new OtterError((e as Error).message, stmt.span);
    engine.write('ERROR', err.message);
    err.logged = true;
    record(engine, op, op.type === 'execute' ? op.key(args) : args.text('Name'), stmt, 'failed', err.message, started);
    throw err;
  }
  // Seed: an error-level message written by the operation raises an error as well.
  if (errors.count > 0) throw Object.assign(new OtterError(`${op.name} failed`, stmt.span), { logged: true });
  for (const out of stmt.outputs) {
    const value = outcome?.outputs?.[out.name] ?? outcome?.outputs?.[op.outputs?.find((n) => n.toLowerCase() === out.name.toLowerCase()) ?? ''];
    engine.assign(out.target, value ?? (out.target.sigil === '$' ? '' : out.target.sigil === '@' ? [] : new Map()), frame);
  }
}
