/**
 * `task`: a check script and an apply script (Converge's task, task.query and healthcheck.task). The check
 * decides: exit 0 is in sync. An apply script that exits non-zero fails the task.
 *
 * Outputs are what other nodes may look up. `check.stdout|stderr|exitstatus` come from the first check.
 * `stdout|stderr|exitstatus` are the task's final status: the apply's when it ran, else the check's. A plan
 * of a task that would apply does not know its final status, so it leaves those fields out and a lookup of
 * them stays unresolvable until the apply.
 */
import type { ApplyOutcome, CheckOutcome } from '../../core/model.js';
import type { ExecResult, ResourceContext } from '../../host/types.js';
import { type Kind, type Params, parseParams, validateWith } from '../kind.js';
import { type TaskParams, taskSchema } from './schema.js';

const TYPE = 'task';
const STILL = 'still has changes after apply';
const QUERY_APPLY = 'query apply called but it should never have changes';

interface ScriptStatus {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitstatus: number;
}

function parse(params: Params): TaskParams {
  return parseParams(TYPE, taskSchema, params);
}

/** How the host reports a program it could not start (see LocalHost.exec). */
const NOT_STARTED = /^cannot run .*: (command not found \(ENOENT\)|permission denied \(EACCES\))\n$/;

async function runScript(ctx: ResourceContext, p: TaskParams, script: string, flags: readonly string[], readOnly: boolean): Promise<ScriptStatus> {
  // Converge checks the working directory first and reports a missing one as a failed run, not an error.
  if (p.dir !== undefined && !(await ctx.host.stat(p.dir))) return { stdout: `stat ${p.dir}: no such file or directory`, stderr: '', exitstatus: 1 };
  const options: { stdin: string; readOnly: boolean; cwd?: string; env?: Record<string, string>; timeout?: number } = { stdin: script, readOnly };
  if (p.dir !== undefined) options.cwd = p.dir;
  if (p.env !== undefined) options.env = Object.fromEntries(Object.entries(p.env).map(([k, val]) => [k, String(val)]));
  if (p.timeout !== undefined) options.timeout = Math.round(p.timeout * 1000);
  const r: ExecResult = await ctx.host.exec([p.interpreter, ...flags], options);
  if (r.timedOut) throw new Error('execution timed out');
  if (r.code === null) throw new Error(`script was killed by signal ${r.signal ?? 'unknown'}`);
  const notStarted = r.stdout === '' && (r.code === 127 || r.code === 126) ? NOT_STARTED.exec(r.stderr) : null;
  if (notStarted) throw new Error(`fork/exec ${p.interpreter}: ${r.code === 127 ? 'no such file or directory' : 'permission denied'}`);
  return { stdout: r.stdout, stderr: r.stderr, exitstatus: r.code };
}

function prefixed(prefix: string, s: ScriptStatus): Record<string, unknown> {
  return { [`${prefix}stdout`]: s.stdout, [`${prefix}stderr`]: s.stderr, [`${prefix}exitstatus`]: s.exitstatus };
}

function statics(p: TaskParams): Record<string, unknown> {
  return { check: p.check, apply: p.apply ?? '', dir: p.dir ?? '', interpreter: p.interpreter };
}

async function check(ctx: ResourceContext, p: TaskParams): Promise<CheckOutcome> {
  const s = await runScript(ctx, p, p.check, p.check_flags, true);
  const base = { ...statics(p), ...prefixed('check.', s) };
  // A query's status is known at once; like Converge, a query exiting non-zero reports changes it cannot make.
  if (p.query) {
    if (s.exitstatus === 0) return { inSync: true, comment: 'query ran', outputs: { ...base, ...prefixed('', s) }, state: s };
    return { inSync: false, changes: { check: s.exitstatus }, comment: `query returned ${s.exitstatus}`, outputs: { ...base, ...prefixed('', s) }, state: s };
  }
  if (s.exitstatus === 0) return { inSync: true, comment: 'check returned 0', outputs: { ...base, ...prefixed('', s) }, state: s };
  return { inSync: false, changes: { check: s.exitstatus }, comment: `check returned ${s.exitstatus}`, outputs: base, state: s };
}

/**
 * Runs the apply script, then the check again (its status is kept as `final.*`). As in Converge, the task
 * is judged by its last run: a non-zero apply leaves it with changes, which is a failure, while the second
 * check does not decide. A task with no apply script is judged by that second check instead.
 */
async function apply(ctx: ResourceContext, p: TaskParams): Promise<ApplyOutcome> {
  if (p.query) return { ok: false, changes: {}, comment: `${STILL}: ${QUERY_APPLY}` };
  if (p.health && p.apply === undefined) {
    const none: ScriptStatus = { stdout: '', stderr: '', exitstatus: 0 };
    return { ok: true, changes: { apply: 0 }, comment: 'health check: nothing to apply', outputs: { ...prefixed('apply.', none), ...prefixed('', none) } };
  }
  let s: ScriptStatus | undefined;
  if (p.apply !== undefined) {
    try {
      s = await runScript(ctx, p, p.apply, p.exec_flags, false);
    } catch (e) {
      // An apply that could not run (timed out, interpreter missing) leaves the check's status in place.
      return { ok: false, changes: {}, comment: `${STILL}: ${(e as Error).message}`, outputs: { 'apply.error': (e as Error).message } };
    }
  }
  const after = await runScript(ctx, p, p.check, p.check_flags, true);
  const outputs: Record<string, unknown> = { ...prefixed('final.', after), ...(s ? { ...prefixed('apply.', s), ...prefixed('', s) } : prefixed('', after)) };
  const changes = s ? { apply: s.exitstatus } : {};
  if (s && s.exitstatus !== 0) return { ok: false, changes, comment: `${STILL}: the apply script returned ${s.exitstatus}`, outputs };
  if (!s && after.exitstatus !== 0) return { ok: false, changes, comment: `${STILL}: there is no apply script and the check still fails`, outputs };
  return { ok: true, changes, comment: s ? `apply returned ${s.exitstatus}` : 'check returned 0', outputs };
}

export const kind: Kind = {
  type: TYPE,
  validate: (params, node) => validateWith(TYPE, taskSchema, params, node),
  schema: taskSchema,
  check: (ctx, params) => check(ctx, parse(params)),
  apply: (ctx, params) => apply(ctx, parse(params)),
};
