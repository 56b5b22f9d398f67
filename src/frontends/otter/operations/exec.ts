/** Process operations: Exec, SHExec (alias Shell) and SHCall, run through the `command` kind. */
import { posix } from 'node:path';
import type { LogLevel } from '../ast.js';
import { OtterError } from '../errors.js';
import { applyOutcome, checkResource } from './resource.js';
import type { ExecuteOperation, OpArgs, OpContext, OpOutcome } from './types.js';

const LEVELS: Record<string, LogLevel> = { debug: 'DEBUG', information: 'INFO', info: 'INFO', warning: 'WARN', warn: 'WARN', error: 'ERROR' };

function level(args: OpArgs, name: string, fallback: LogLevel): LogLevel {
  return args.has(name) ? (LEVELS[args.text(name).toLowerCase()] ?? fallback) : fallback;
}

/** `SuccessExitCode`: `== 0` (the default), `!= 0`, `> 0`, `>= 1`, `< 0`, `<= 0`, a bare number, or `ignored`. */
export function exitCodeOk(spec: string, code: number): boolean {
  const s = spec.trim().toLowerCase();
  if (s === 'ignore' || s === 'ignored') return true;
  const m = /^(==|!=|>=|<=|>|<|=)?\s*(-?\d+)$/.exec(s);
  if (!m) return code === 0;
  const n = Number(m[2]);
  switch (m[1]) {
    case '!=':
      return code !== n;
    case '>':
      return code > n;
    case '>=':
      return code >= n;
    case '<':
      return code < n;
    case '<=':
      return code <= n;
    default:
      return code === n;
  }
}

function logLines(ctx: OpContext, text: string, lvl: LogLevel): void {
  for (const line of text.split('\n')) if (line.trim() !== '') ctx.log(lvl, line.trimEnd());
}

async function runCommand(ctx: OpContext, args: OpArgs, cmd: string, cwd: string, env?: Record<string, string>): Promise<OpOutcome> {
  const params: Record<string, unknown> = { cmd, cwd, shell: true, success_codes: [0] };
  if (env) params.env = env;
  if (ctx.simulation) {
    ctx.log('INFO', `Simulation: would execute ${cmd}`);
    return { changed: true, outputs: { ExitCode: '0', Output: '' } };
  }
  const check = await checkResource(ctx, 'command', params);
  // A non-zero exit is judged below against SuccessExitCode, not by the kind.
  const outcome = await applyOutcome(ctx, 'command', params, check);
  const out = outcome.outputs ?? {};
  const code = typeof out.retcode === 'number' ? out.retcode : -1;
  logLines(ctx, String(out.stdout ?? ''), level(args, 'OutputLogLevel', 'INFO'));
  logLines(ctx, String(out.stderr ?? ''), level(args, 'ErrorOutputLogLevel', 'ERROR'));
  if (!exitCodeOk(args.text('SuccessExitCode', '== 0'), code)) throw new OtterError(`Process exited with code ${code}.`, ctx.span);
  ctx.log('DEBUG', `Process exited with code ${code}.`);
  return { changed: true, outputs: { ExitCode: String(code), Output: String(out.stdout ?? '').replace(/\s+$/, '') } };
}

const common = [
  { name: 'WorkingDirectory', type: 'scalar' },
  { name: 'SuccessExitCode', type: 'scalar' },
  { name: 'OutputLogLevel', type: 'scalar' },
  { name: 'ErrorOutputLogLevel', type: 'scalar' },
] as const;

export const exec: ExecuteOperation = {
  type: 'execute',
  name: 'Exec',
  namespace: 'General',
  positional: 'Target',
  args: [{ name: 'Target', type: 'scalar' }, { name: 'FileName', type: 'scalar' }, { name: 'Arguments', type: 'scalar' }, ...common],
  outputs: ['ExitCode', 'Output'],
  key: (args) => (args.has('Target') ? args.text('Target') : `${args.text('FileName')} ${args.text('Arguments', '')}`.trim()),
  async execute(ctx, args) {
    if (!args.has('Target') && !args.has('FileName')) throw new OtterError('Exec needs a Target or a FileName.', ctx.span);
    const cmd = exec.key(args);
    ctx.log('INFO', `Executing ${cmd}...`);
    return runCommand(ctx, args, cmd, ctx.path(args.text('WorkingDirectory', '.')));
  },
};

function shExec(name: string): ExecuteOperation {
  return {
    type: 'execute',
    name,
    namespace: 'Linux',
    positional: 'Text',
    args: [{ name: 'Text', type: 'scalar', required: true, aliases: ['ScriptText'] }, ...common],
    outputs: ['ExitCode', 'Output'],
    key: (args) => args.text('Text').split('\n')[0] ?? '',
    async execute(ctx, args) {
      ctx.log('INFO', 'Executing shell script...');
      return runCommand(ctx, args, args.text('Text'), ctx.path(args.text('WorkingDirectory', '.')));
    },
  };
}

export const shExecOp = shExec('SHExec');
export const shellOp = shExec('Shell');

export const shCall: ExecuteOperation = {
  type: 'execute',
  name: 'SHCall',
  namespace: 'Linux',
  positional: 'ScriptName',
  args: [{ name: 'ScriptName', type: 'scalar', required: true }, { name: 'Arguments', type: 'scalar' }, { name: 'Parameters', type: 'map' }, ...common],
  outputs: ['ExitCode', 'Output'],
  key: (args) => args.text('ScriptName'),
  async execute(ctx, args) {
    const name = args.text('ScriptName');
    const candidates = [name, `${name}.sh`].map((n) => posix.resolve(ctx.raftDir, n));
    let script: string | undefined;
    for (const c of candidates) if (script === undefined && (await ctx.resources.host.stat(c))?.type === 'file') script = c;
    if (script === undefined) throw new OtterError(`Script ${name} was not found in the raft ${ctx.raftDir}.`, ctx.span);
    const env: Record<string, string> = {};
    if (args.has('Parameters')) for (const [k, v] of args.map('Parameters')) env[k] = typeof v === 'string' ? v : JSON.stringify(v);
    const quoted = `'${script.replace(/'/g, `'\\''`)}'`;
    ctx.log('INFO', `Executing ${name}...`);
    return runCommand(ctx, args, `/bin/sh ${quoted} ${args.text('Arguments', '')}`.trimEnd(), ctx.path(args.text('WorkingDirectory', '.')), env);
  },
};
