/**
 * `command`: runs a program (Salt's cmd.run). Its guards (onlyif, unless, creates) are read-only commands
 * and run in check, as Salt's test mode and Converge's check do; without guards drift cannot be known
 * without running, so the check is not collectable.
 */
import type { ApplyOutcome, CheckOutcome } from '../../core/model.js';
import type { ResourceContext } from '../../host/types.js';
import { type Kind, type Params, parseParams, validateWith } from '../kind.js';
import { displayCommand, execOptions, guardSkipReason, hasGuards, toInvocation } from './run.js';
import { type CommandParams, commandSchema } from './schema.js';

const TYPE = 'command';

function parse(params: Params): CommandParams {
  return parseParams(TYPE, commandSchema, params);
}

/** Salt strips trailing whitespace from output in results. */
function rstrip(text: string): string {
  return text.replace(/\s+$/, '');
}

async function run(ctx: ResourceContext, p: CommandParams): Promise<ApplyOutcome> {
  const shown = displayCommand(p.cmd);
  const result = await ctx.host.exec(toInvocation(p.cmd, p.shell), execOptions(p, true));
  const pid = result.pid !== undefined ? { pid: result.pid } : {};
  const changes = { ...pid, retcode: result.code, stdout: rstrip(result.stdout), stderr: rstrip(result.stderr) };
  const outputs = { ...pid, retcode: result.code, stdout: result.stdout, stderr: result.stderr };
  if (result.timedOut) {
    return { ok: false, changes, outputs, comment: `Command "${shown}" timed out after ${p.timeout} seconds` };
  }
  if (result.code === null) {
    return { ok: false, changes, outputs, comment: `Command "${shown}" run, but was killed by signal ${result.signal ?? 'unknown'}` };
  }
  const ok = p.success_codes.includes(result.code);
  return { ok, changes, outputs, comment: `Command "${shown}" run` };
}

async function guardedRun(ctx: ResourceContext, p: CommandParams): Promise<ApplyOutcome> {
  const skip = await guardSkipReason(ctx.host, p);
  if (skip !== null) return { ok: true, comment: skip };
  return run(ctx, p);
}

export const kind: Kind = {
  type: TYPE,
  validate: (params, node) => validateWith(TYPE, commandSchema, params, node),
  schema: commandSchema,
  async check(ctx, params): Promise<CheckOutcome> {
    const p = parse(params);
    const shown = displayCommand(p.cmd);
    if (!hasGuards(p)) {
      return { inSync: false, changes: { cmd: shown }, comment: `Command "${shown}" would have been executed`, collectable: false };
    }
    const skip = await guardSkipReason(ctx.host, p);
    if (skip !== null) return { inSync: true, comment: skip };
    return { inSync: false, changes: { cmd: shown }, comment: `Command "${shown}" would have been executed` };
  },
  async apply(ctx, params, check): Promise<ApplyOutcome> {
    const p = parse(params);
    // The check already evaluated the guards; a guard that said skip means there is nothing to do.
    if (check.inSync) return { ok: true, comment: check.comment ?? '' };
    return run(ctx, p);
  },
  async watch(ctx, params): Promise<ApplyOutcome> {
    return guardedRun(ctx, parse(params));
  },
};
