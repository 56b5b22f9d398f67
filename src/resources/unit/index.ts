/**
 * `unit`: a systemd unit running, stopped or restarted, through systemctl (Converge's systemd.unit.state).
 * Where systemd is not the running init (no /run/systemd/system), preflight says so before anything runs.
 */
import * as v from 'valibot';
import { error } from '../../core/diag.js';
import type { ApplyOutcome, CheckOutcome } from '../../core/model.js';
import type { ResourceContext } from '../../host/types.js';
import { type Kind, type Params, parseParams, validateWith, lazySchema } from '../kind.js';

const TYPE = 'unit';

export const unitSchema = lazySchema(() =>
  v.strictObject({
    unit: v.pipe(v.string(), v.minLength(1, 'expected a unit name such as "ssh.service"')),
    state: v.optional(v.picklist(['running', 'stopped', 'restarted'], 'expected running, stopped or restarted'), 'running'),
    /** Reload the unit's configuration (daemon-reload) before acting. */
    reload: v.optional(v.boolean(), false),
    signal_name: v.optional(v.string()),
    signal_number: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  }),
);

type UnitParams = v.InferOutput<typeof unitSchema>;

function parse(params: Params): UnitParams {
  return parseParams(TYPE, unitSchema, params);
}

async function activeState(ctx: ResourceContext, unit: string): Promise<string> {
  const r = await ctx.host.exec(['systemctl', 'is-active', unit], { readOnly: true });
  return r.stdout.trim() || 'unknown';
}

async function check(ctx: ResourceContext, p: UnitParams): Promise<CheckOutcome> {
  const state = await activeState(ctx, p.unit);
  const outputs = { unit: p.unit, activestate: state };
  const running = state === 'active';
  if (p.state === 'restarted') return { inSync: false, changes: { state: { old: state, new: 'restarted' } }, comment: `unit ${p.unit} will be restarted`, outputs };
  if ((p.state === 'running') === running) return { inSync: true, comment: `unit ${p.unit} is ${state}`, outputs };
  return { inSync: false, changes: { state: { old: state, new: p.state === 'running' ? 'active' : 'inactive' } }, comment: `unit ${p.unit} is ${state}`, outputs };
}

async function apply(ctx: ResourceContext, p: UnitParams, checked: CheckOutcome): Promise<ApplyOutcome> {
  if (p.reload) await ctx.host.exec(['systemctl', 'daemon-reload']);
  const verb = p.state === 'running' ? 'start' : p.state === 'stopped' ? 'stop' : 'restart';
  const r = await ctx.host.exec(['systemctl', verb, p.unit]);
  if (r.code !== 0) return { ok: false, comment: `systemctl ${verb} ${p.unit} failed: ${(r.stderr || r.stdout).trim()}` };
  return { ok: true, changes: checked.changes ?? {}, comment: `unit ${p.unit} ${verb}ed`, outputs: { unit: p.unit, activestate: await activeState(ctx, p.unit) } };
}

export const kind: Kind = {
  type: TYPE,
  validate: (params, node) => validateWith(TYPE, unitSchema, params, node),
  schema: unitSchema,
  async preflight(ctx, _params, node) {
    const st = await ctx.host.stat('/run/systemd/system');
    if (st?.type === 'directory') return [];
    return [error('R003', `unit ${JSON.stringify(node.id)}: systemd is not running on this machine (no /run/systemd/system), so units cannot be managed`, { span: node.span, nodeId: node.id })];
  },
  check: (ctx, params) => check(ctx, parse(params)),
  apply: (ctx, params, checked) => apply(ctx, parse(params), checked),
};
