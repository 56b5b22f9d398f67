/**
 * `wait`: waits until a check script exits 0 or a TCP port accepts connections (Converge's wait.query and
 * wait.port). Check tries once and changes nothing; apply waits `grace_period` seconds, then tries up to
 * `max_retry` times, `interval` seconds apart, and fails when no try passed.
 */
import * as v from 'valibot';
import type { ApplyOutcome, CheckOutcome } from '../../core/model.js';
import type { ResourceContext } from '../../host/types.js';
import { type Kind, type Params, parseParams, sleep, validateWith, lazySchema } from '../kind.js';


const TYPE = 'wait';

const seconds = v.pipe(v.number(), v.minValue(0, 'expected a number of seconds'));

export const waitSchema = lazySchema(() =>
  v.pipe(
    v.strictObject({
      /** A script whose exit 0 ends the wait, fed to the interpreter on stdin. */
      check: v.optional(v.string()),
      interpreter: v.optional(v.pipe(v.string(), v.minLength(1, 'expected an interpreter path')), '/bin/sh'),
      check_flags: v.optional(v.array(v.string()), []),
      dir: v.optional(v.pipe(v.string(), v.minLength(1, 'expected a directory'))),
      env: v.optional(v.record(v.string(), v.union([v.string(), v.number(), v.boolean()]))),
      /** Seconds one try of the script may run. */
      timeout: v.optional(v.pipe(v.number(), v.gtValue(0, 'expected a positive number of seconds'))),
      /** Or: a TCP port on a host that must accept a connection. */
      host: v.optional(v.pipe(v.string(), v.minLength(1, 'expected a host name or address')), 'localhost'),
      port: v.optional(v.pipe(v.number(), v.integer('expected a port number'), v.minValue(1, 'expected a port from 1 to 65535'), v.maxValue(65535, 'expected a port from 1 to 65535'))),
      interval: v.optional(seconds, 5),
      grace_period: v.optional(seconds, 0),
      max_retry: v.optional(v.pipe(v.number(), v.integer('expected a whole number'), v.minValue(1, 'expected at least 1 try')), 5),
    }),
    v.check((p) => (p.check === undefined) !== (p.port === undefined), 'give either a check script or a port'),
  ),
);

type WaitParams = v.InferOutput<typeof waitSchema>;

export interface Attempt {
  readonly passed: boolean;
  readonly exitstatus?: number;
  readonly stdout?: string;
  readonly stderr?: string;
  /** Why a port did not accept a connection. */
  readonly error?: string;
}

function parse(params: Params): WaitParams {
  return parseParams(TYPE, waitSchema, params);
}

const CONNECT_TIMEOUT_MS = 10_000;

const REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connect: connection refused',
  EHOSTUNREACH: 'connect: no route to host',
  ENETUNREACH: 'connect: network is unreachable',
  ETIMEDOUT: 'i/o timeout',
};

async function tryOnce(ctx: ResourceContext, p: WaitParams): Promise<Attempt> {
  if (p.port !== undefined) {
    // The target makes the connection (a local socket, or the SSH server's own connect): no program needed there.
    const r = await ctx.host.probeTcp(p.host, p.port, CONNECT_TIMEOUT_MS);
    if (r.ok) return { passed: true };
    const reason = REASONS[r.code] ?? (r.code === 'ENOTFOUND' ? `lookup ${p.host}: no such host` : r.message || 'connection failed');
    return { passed: false, error: `dial tcp ${p.host}:${p.port}: ${reason}` };
  }
  const options: { stdin: string; readOnly: boolean; cwd?: string; env?: Record<string, string>; timeout?: number } = { stdin: p.check ?? '', readOnly: true };
  if (p.dir !== undefined) options.cwd = p.dir;
  if (p.env !== undefined) options.env = Object.fromEntries(Object.entries(p.env).map(([k, val]) => [k, String(val)]));
  if (p.timeout !== undefined) options.timeout = Math.round(p.timeout * 1000);
  const r = await ctx.host.exec([p.interpreter, ...p.check_flags], options);
  if (r.timedOut) return { passed: false, exitstatus: -1, stdout: r.stdout, stderr: `check timed out after ${p.timeout} seconds` };
  const exitstatus = r.code ?? -1;
  return { passed: exitstatus === 0, exitstatus, stdout: r.stdout, stderr: r.stderr };
}

function attemptOutputs(prefix: string, a: Attempt): Record<string, unknown> {
  if (a.exitstatus === undefined) return { [`${prefix}error`]: a.error ?? '' };
  return { [`${prefix}stdout`]: a.stdout ?? '', [`${prefix}stderr`]: a.stderr ?? '', [`${prefix}exitstatus`]: a.exitstatus };
}

async function check(ctx: ResourceContext, p: WaitParams): Promise<CheckOutcome> {
  const a = await tryOnce(ctx, p);
  const outputs = { ...attemptOutputs('check.', a), ...(a.passed ? attemptOutputs('', a) : {}) };
  if (a.passed) return { inSync: true, comment: p.port !== undefined ? `connected to ${p.host}:${p.port}` : 'check returned 0', outputs };
  const why = a.error !== undefined ? `Failed to connect to ${p.host}:${p.port}: ${a.error}` : `check returned ${a.exitstatus}`;
  return { inSync: false, changes: { wait: why }, comment: why, outputs };
}

async function apply(ctx: ResourceContext, p: WaitParams): Promise<ApplyOutcome> {
  const started = Date.now();
  if (p.grace_period > 0) await sleep(p.grace_period * 1000);
  const attempts: Attempt[] = [];
  for (let i = 0; i < p.max_retry; i++) {
    if (i > 0 && p.interval > 0) await sleep(p.interval * 1000);
    const a = await tryOnce(ctx, p);
    attempts.push(a);
    if (a.passed) break;
  }
  const last = attempts[attempts.length - 1] as Attempt;
  const retries = last.passed ? attempts.length - 1 : attempts.length;
  const outputs: Record<string, unknown> = { attempts, retries, duration: (Date.now() - started) / 1000, ...attemptOutputs('', last) };
  if (!last.passed) return { ok: false, changes: {}, comment: `Failed after ${retries} retries`, outputs };
  return { ok: true, changes: { wait: `passed after ${retries} retries` }, comment: `Passed after ${retries} retries`, outputs };
}

export const kind: Kind = {
  type: TYPE,
  validate: (params, node) => validateWith(TYPE, waitSchema, params, node),
  schema: waitSchema,
  check: (ctx, params) => check(ctx, parse(params)),
  apply: (ctx, params) => apply(ctx, parse(params)),
};
