/**
 * `service`: a system service running or stopped, enabled or disabled at boot, restarted or reloaded when a
 * watched resource changed (Salt's service.running / dead / enabled / disabled and their mod_watch). The
 * comments are Salt 3006's; the backend (systemctl or SysV init scripts) is chosen from the machine. Where
 * systemd is installed but not running, running/dead do nothing (Salt's offline mode) while enable,
 * disable and the watch actions go through the init scripts.
 */
import * as v from 'valibot';
import type { ApplyOutcome, CheckOutcome } from '../../core/model.js';
import type { ResourceContext } from '../../host/types.js';
import { type Kind, type Params, parseParams, validateWith, lazySchema } from '../kind.js';
import { backendFor, type ServiceBackend, systemdOffline } from './backend.js';

const TYPE = 'service';

export const serviceSchema = lazySchema(() =>
  v.strictObject({
    name: v.pipe(v.string(), v.minLength(1, 'expected a service name')),
    state: v.picklist(['running', 'dead', 'enabled', 'disabled']),
    /** running/dead only: also enable (true) or disable (false) it at boot. */
    enable: v.optional(v.boolean()),
    /** What a watch does to a running service: reload instead of restart (force: force-reload). */
    reload: v.optional(v.boolean(), false),
    force: v.optional(v.boolean(), false),
  }),
);
type ServiceParams = v.InferOutput<typeof serviceSchema>;

function parse(params: Params): ServiceParams {
  return parseParams(TYPE, serviceSchema, params);
}

interface Facts {
  readonly available: boolean;
  readonly running: boolean;
  readonly enabled: boolean;
}

interface Step {
  result: boolean;
  comment: string;
  changes?: Record<string, unknown>;
}

async function facts(b: ServiceBackend, name: string): Promise<Facts> {
  const available = await b.available(name);
  if (!available) return { available, running: false, enabled: false };
  return { available, running: await b.running(name), enabled: await b.enabled(name) };
}

type Started = boolean | null;

function tail(started: Started, running: string, desired: string, dead: string): string {
  return started === true ? running : started === null ? desired : dead;
}

/** Salt's _enable / _disable after the availability check, acting. */
async function toggle(b: ServiceBackend, name: string, on: boolean, started: Started, result: boolean): Promise<Step> {
  const before = await b.enabled(name);
  const word = on ? 'enabled' : 'disabled';
  if (before === on) {
    const step: Step = { result, comment: `Service ${name} is already ${word}, ${tail(started, 'and is running', 'and is in the desired state', 'and is dead')}` };
    if (started === null) step.changes = {};
    return step;
  }
  if (await (on ? b.enable(name) : b.disable(name))) {
    const after = await b.enabled(name);
    const changes: Record<string, unknown> = after !== before ? { [name]: true } : {};
    return { result, changes, comment: `Service ${name} has been ${word}, ${tail(started, 'and is running', 'and is in the desired state', 'and is dead')}` };
  }
  const comment = on
    ? `Failed when setting service ${name} to start at boot, ${tail(started, 'but the service is running', 'but the service was already running', 'and the service is dead')}`
    : `Failed when setting service ${name} to not start at boot, ${tail(started, 'and is running', 'but the service was already running', 'and the service is dead')}`;
  return { result: false, comment };
}

function merge(ret: Step, step: Step): Step {
  return { result: step.result, comment: step.comment, changes: step.changes ?? ret.changes ?? {} };
}

/** What a test run says and whether anything is to be done. */
function plan(p: ServiceParams, f: Facts): { inSync: boolean; comment: string } {
  const { name } = p;
  if (!f.available) {
    if (p.state === 'disabled') return { inSync: true, comment: `The named service ${name} is not available` };
    const verb = p.state === 'running' ? 'started' : p.state === 'dead' ? 'stopped' : 'enabled';
    return { inSync: false, comment: `Service ${name} not present; if created in this state run, it would have been ${verb}` };
  }
  const toggleText = (on: boolean): { inSync: boolean; comment: string } | undefined => {
    if (f.enabled === on) return undefined;
    return { inSync: false, comment: `Service ${name} set to be ${on ? 'enabled' : 'disabled'}` };
  };
  if (p.state === 'enabled' || p.state === 'disabled') {
    const on = p.state === 'enabled';
    return toggleText(on) ?? { inSync: true, comment: `Service ${name} is already ${p.state}, and is in the desired state` };
  }
  const wantRunning = p.state === 'running';
  if (f.running === wantRunning) {
    const base = wantRunning ? `The service ${name} is already running` : `The service ${name} is already dead`;
    const t = p.enable !== undefined ? toggleText(p.enable) : undefined;
    return t ?? { inSync: true, comment: base };
  }
  return { inSync: false, comment: wantRunning ? `Service ${name} is set to start` : `Service ${name} is set to be killed` };
}

const OFFLINE = 'Running in OFFLINE mode. Nothing to do';

async function check(ctx: ResourceContext, p: ServiceParams): Promise<CheckOutcome> {
  if ((p.state === 'running' || p.state === 'dead') && (await systemdOffline(ctx.host))) return { inSync: true, comment: OFFLINE };
  const b = await backendFor(ctx.host);
  const f = await facts(b, p.name);
  const { inSync, comment } = plan(p, f);
  return { inSync, comment, changes: {}, state: f };
}

async function apply(ctx: ResourceContext, p: ServiceParams, checked: CheckOutcome): Promise<ApplyOutcome> {
  if (checked.inSync) return { ok: true, changes: {}, comment: checked.comment ?? '' };
  const b = await backendFor(ctx.host);
  const f = (checked.state as Facts | undefined) ?? (await facts(b, p.name));
  const { name } = p;
  const done = (s: Step): ApplyOutcome => ({ ok: s.result, comment: s.comment, changes: s.changes ?? {} });
  if (!f.available) return done({ result: p.state === 'dead', comment: `The named service ${name} is not available`, changes: {} });
  if (p.state === 'enabled' || p.state === 'disabled') return done(await toggle(b, name, p.state === 'enabled', null, true));
  const wantRunning = p.state === 'running';
  if (f.running === wantRunning) {
    let ret: Step = { result: true, comment: wantRunning ? `The service ${name} is already running` : `The service ${name} is already dead`, changes: {} };
    if (p.enable !== undefined && f.enabled !== p.enable) ret = merge(ret, await toggle(b, name, p.enable, null, true));
    return done(ret);
  }
  if (!(await b.act(name, wantRunning ? 'start' : 'stop'))) {
    let ret: Step = { result: false, comment: wantRunning ? `Service ${name} failed to start` : `Service ${name} failed to die`, changes: {} };
    if (p.enable !== undefined) ret = merge(ret, await toggle(b, name, p.enable, !wantRunning, false));
    return done(ret);
  }
  // A simulation ran nothing, so the service is as it was: report what the command would have done.
  if (ctx.host.simulated === true) {
    let ret: Step = { result: true, changes: { [name]: wantRunning }, comment: wantRunning ? `Started service ${name}` : `Service ${name} was killed` };
    if (p.enable !== undefined && f.enabled !== p.enable) ret = merge(ret, await toggle(b, name, p.enable, null, true));
    return done(ret);
  }
  const after = await b.running(name);
  const afterEnabled = await b.enabled(name);
  const changes: Record<string, unknown> = afterEnabled !== f.enabled || after !== f.running ? { [name]: after } : {};
  const good = after === wantRunning;
  let ret: Step = {
    result: good,
    changes,
    comment: wantRunning ? (after ? `Started service ${name}` : `Service ${name} failed to start`) : after ? `Service ${name} failed to die` : `Service ${name} was killed`,
  };
  if (p.enable !== undefined) ret = merge(ret, await toggle(b, name, p.enable, after, good));
  return done(ret);
}

/** Salt's service.mod_watch: restart (or reload) a running service, start a stopped one; `test` only says what it would do. */
export async function serviceWatch(ctx: ResourceContext, params: Params, test: boolean): Promise<ApplyOutcome & { result: boolean | null }> {
  const p = parse(params);
  const b = await backendFor(ctx.host);
  const { name } = p;
  let verb: 'stop' | 'start' | 'restart' | 'reload' | 'force-reload';
  let past: string;
  const running = await b.running(name);
  if (p.state === 'dead') {
    if (!running) return { ok: true, result: true, comment: 'Service is already stopped', changes: {} };
    verb = 'stop';
    past = 'stopped';
  } else if (p.state === 'running') {
    verb = running ? (p.reload ? (p.force ? 'force-reload' : 'reload') : 'restart') : 'start';
    past = verb === 'force-reload' ? 'forcefully reloaded' : `${verb}ed`;
  } else return { ok: false, result: false, comment: `Unable to trigger watch for service.${p.state}`, changes: {} };
  if (test) return { ok: true, result: null, comment: `Service is set to be ${past}`, changes: {} };
  if (verb === 'start') await b.act(name, 'stop');
  const result = await b.act(name, verb);
  const said = verb === 'force-reload' ? 'forcefully reload' : verb;
  return { ok: result, result, comment: result ? `Service ${past}` : `Failed to ${said} the service`, changes: { [name]: result } };
}

export const kind: Kind = {
  type: TYPE,
  validate: (params, node) => validateWith(TYPE, serviceSchema, params, node),
  schema: serviceSchema,
  check: (ctx, params) => check(ctx, parse(params)),
  apply: (ctx, params, checked) => apply(ctx, parse(params), checked),
  watch: (ctx, params) => serviceWatch(ctx, params, false),
};
