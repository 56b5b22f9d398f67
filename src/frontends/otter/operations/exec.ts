/**
 * Process operations: Exec (alias Execute-Process), SHExec (alias Execute-Shell) and SHCall (a shell script
 * of the raft), run through the `command` kind, logging what Inedo's process and shell operations log.
 */
import type { LogLevel } from '../ast.js';
import { Cancelled, OtterError } from '../errors.js';
import { toText, type Value } from '../values.js';
import { applyOutcome, checkResource } from './resource.js';
import type { ExecuteOperation, OpArgs, OpContext, OpOutcome } from './types.js';

const LEVELS: Record<string, LogLevel> = { debug: 'DEBUG', information: 'INFO', info: 'INFO', warning: 'WARN', warn: 'WARN', error: 'ERROR' };

function level(args: OpArgs, name: string, fallback: LogLevel): LogLevel {
  return args.has(name) ? (LEVELS[args.text(name).toLowerCase()] ?? fallback) : fallback;
}

/**
 * `SuccessExitCode`: an optional comparison (`=`, `==`, `!=`, `<`, `>`, `<=`, `>=`) and a whole number;
 * undefined when the text is not such a comparison (`ignored`), so that the exit code is not judged.
 */
export function exitCodeTest(spec: string): ((code: number) => boolean) | undefined {
  const m = /^\s*([=<>!]*)\s*(\d+)\s*$/.exec(spec);
  if (!m) return undefined;
  const n = Number(m[2]);
  switch (m[1]) {
    case '!=':
      return (c) => c !== n;
    case '<':
      return (c) => c < n;
    case '>':
      return (c) => c > n;
    case '<=':
      return (c) => c <= n;
    case '>=':
      return (c) => c >= n;
    default:
      return (c) => c === n;
  }
}

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a shell command line (stdin: a script) and hands back exit code and output; a start failure throws. */
async function run(ctx: OpContext, cmd: string, cwd: string, env: Record<string, string>, stdin?: string): Promise<Ran> {
  const params: Record<string, unknown> = { cmd, cwd, shell: true, success_codes: [0] };
  if (Object.keys(env).length > 0) params.env = env;
  if (stdin !== undefined) params.stdin = stdin;
  // Inside `with timeout`, the process gets what is left of the block's time: the host kills it (and its
  // children) when that runs out, as Otter cancels the running operation.
  const left = ctx.remaining();
  if (left !== undefined) params.timeout = left;
  if (ctx.signal.aborted) throw new Cancelled();
  const check = await checkResource(ctx, 'command', params);
  const outcome = await applyOutcome(ctx, 'command', params, check);
  if (ctx.signal.aborted || (left !== undefined && /timed out/.test(outcome.comment ?? ''))) throw new Cancelled();
  const out = outcome.outputs ?? {};
  if (typeof out.retcode !== 'number' && outcome.comment && !outcome.ok) throw new OtterError(outcome.comment, ctx.span);
  return { code: typeof out.retcode === 'number' ? out.retcode : -1, stdout: String(out.stdout ?? ''), stderr: String(out.stderr ?? '') };
}

function lines(text: string): string[] {
  return text.split(/\r?\n/).filter((l) => l.trim() !== '');
}

function regexArg(ctx: OpContext, args: OpArgs, name: string): RegExp | undefined {
  const t = args.text(name, '');
  if (t.trim() === '') return undefined;
  try {
    return new RegExp(t);
  } catch (e) {
    throw new OtterError(`${name} is not a valid regular expression: ${(e as Error).message}`, ctx.span);
  }
}

/** FileName and Arguments when a FileName is given, else Target: `"file name" args` or `file args`. */
function startInfo(args: OpArgs): { file: string; arguments: string } | undefined {
  if (args.text('FileName') !== '') return { file: args.text('FileName'), arguments: args.text('Arguments') };
  const target = args.text('Target');
  if (target === '') return undefined;
  const quoted = /^"([^"]+)"/.exec(target);
  if (quoted) return { file: quoted[1] as string, arguments: target.slice(quoted[0].length).trim() };
  const space = /\s/.exec(target);
  if (space) return { file: target.slice(0, space.index).trim(), arguments: target.slice(space.index).trim() };
  return { file: target, arguments: '' };
}

function shellWord(w: string): string {
  return /^[A-Za-z0-9_./=:,+-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}

export const exec: ExecuteOperation = {
  type: 'execute',
  name: 'Exec',
  aliases: ['Execute-Process'],
  namespace: 'General',
  positional: 'Target',
  args: [
    { name: 'Target', type: 'scalar' },
    { name: 'FileName', type: 'scalar' },
    { name: 'Arguments', type: 'scalar' },
    { name: 'WorkingDirectory', type: 'scalar' },
    { name: 'SuccessExitCode', type: 'scalar' },
    { name: 'OutputLogLevel', type: 'scalar' },
    { name: 'ErrorOutputLogLevel', type: 'scalar' },
    { name: 'WarnRegex', type: 'scalar' },
    { name: 'DebugRegex', type: 'scalar' },
    { name: 'OutputFilterRegex', type: 'scalar' },
    { name: 'LogArguments', type: 'bool' },
    { name: 'ImportVariables', type: 'bool' },
  ],
  outputs: ['ExitCode', 'Output'],
  key: (args) => args.text('Target') || `${args.text('FileName')} ${args.text('Arguments')}`.trim(),
  async execute(ctx, args) {
    if (args.text('Target') !== '' && (args.text('FileName') !== '' || args.text('Arguments') !== '')) {
      ctx.log('WARN', 'When using the default property (i.e. "exec process.exe args (...)", do not specify a Filename or Arguments property, because they will be ignored.');
    }
    const info = startInfo(args);
    if (!info) {
      ctx.log('ERROR', 'Invalid configuration; Target or FileName must be specified.');
      return { changed: false };
    }
    const host = ctx.resources.host;
    const resolved = ctx.path(info.file);
    const file = (await host.stat(resolved))?.type === 'file' ? resolved : info.file;
    const cwd = ctx.path(args.text('WorkingDirectory', ''));
    ctx.log('DEBUG', `Process: ${file}`);
    if (args.bool('LogArguments', true)) ctx.log('DEBUG', `Arguments: ${info.arguments}`);
    ctx.log('DEBUG', `Working directory: ${cwd}`);
    ctx.log('DEBUG', `Ensuring that ${cwd} exists...`);
    if ((await host.stat(cwd))?.type !== 'directory') await host.mkdir(cwd, { recursive: true });
    ctx.log('INFO', `Executing ${file}...`);
    if (ctx.simulation) return { changed: true, outputs: { ExitCode: '0', Output: '' } };
    const warn = regexArg(ctx, args, 'WarnRegex');
    const debug = regexArg(ctx, args, 'DebugRegex');
    const filter = regexArg(ctx, args, 'OutputFilterRegex');
    const outLevel = level(args, 'OutputLogLevel', 'INFO');
    const cmd = `${file.includes(' ') ? shellWord(file) : file}${info.arguments ? ` ${info.arguments}` : ''}`;
    const ran = (await run(ctx, cmd, cwd, {}));
    for (const line of lines(ran.stdout)) {
      if (filter && !filter.test(line)) continue;
      const w = warn?.exec(line);
      if (w) ctx.log('WARN', w.groups?.m || line);
      else {
        const d = debug?.exec(line);
        if (d) ctx.log('DEBUG', d.groups?.m || line);
        else ctx.log(outLevel, line);
      }
    }
    for (const line of lines(ran.stderr)) ctx.log(level(args, 'ErrorOutputLogLevel', 'ERROR'), line);
    const ok = exitCodeTest(args.text('SuccessExitCode', '== 0'));
    if (ok) {
      if (ok(ran.code)) ctx.log('INFO', `Process exited with code: ${ran.code} (success)`);
      else ctx.log('ERROR', `Process exited with code: ${ran.code} (failure)`);
    } else ctx.log('DEBUG', `Process exited with code: ${ran.code}`);
    return { changed: true, outputs: { ExitCode: String(ran.code), Output: ran.stdout.replace(/\s+$/, '') } };
  },
};

const OUT_MARK = '\u0001cairn-otter-out\u0001';

/** The text of a shell script: injected variables, the script, and the lines that report output variables. */
function wrapScript(text: string, injected: ReadonlyMap<string, Value>, outputs: readonly string[]): string {
  const head = [...injected].map(([k, v]) => `${k}=${shellWord(toText(v))}`).join('\n');
  const body = text.replace(/\r\n/g, '\n');
  if (outputs.length === 0) return `${head}${head ? '\n' : ''}${body}\n`;
  const report = outputs.map((o) => `printf '%s%s:%s\\n' '${OUT_MARK}' '${o}' "$${o}"`).join('\n');
  return `${head}${head ? '\n' : ''}__cairn_script() {\n${body}\n}\n__cairn_script "$@"\n__cairn_rc=$?\n${report}\nexit $__cairn_rc\n`;
}

interface ShellRun {
  readonly text: string;
  readonly injected: ReadonlyMap<string, Value>;
  readonly outputs: readonly string[];
  readonly env: Record<string, string>;
  readonly arguments: string;
}

/** Runs a shell script; output lines are logged, the marked lines become runtime variables. */
async function runShell(ctx: OpContext, args: OpArgs, s: ShellRun): Promise<OpOutcome> {
  const cmd = `/bin/sh -s --${s.arguments ? ` ${s.arguments}` : ''}`;
  const ran = (await run(ctx, cmd, ctx.cwd, s.env, wrapScript(s.text, s.injected, s.outputs)));
  const outLevel = level(args, 'OutputLogLevel', 'INFO');
  const captured: string[] = [];
  for (const line of lines(ran.stdout)) {
    if (line.startsWith(OUT_MARK)) {
      const rest = line.slice(OUT_MARK.length);
      const colon = rest.indexOf(':');
      ctx.setRuntimeVariable(rest.slice(0, colon), rest.slice(colon + 1));
      continue;
    }
    captured.push(line);
    ctx.log(outLevel, line);
  }
  for (const line of lines(ran.stderr)) ctx.log(level(args, 'ErrorOutputLogLevel', 'ERROR'), line);
  const ok = exitCodeTest(args.text('SuccessExitCode', 'ignored'));
  if (ok) {
    if (ok(ran.code)) ctx.log('INFO', `Script exited with code: ${ran.code} (success)`);
    else ctx.log('ERROR', `Script exited with code: ${ran.code} (failure)`);
  } else ctx.log('DEBUG', `Script exited with code: ${ran.code}`);
  return { changed: true, outputs: { ExitCode: String(ran.code), Output: captured.join('\n') } };
}

function stringMap(m: ReadonlyMap<string, Value>): Record<string, string> {
  return Object.fromEntries([...m].map(([k, v]) => [k, toText(v)]));
}

const shellCommon = [
  { name: 'Arguments', type: 'scalar' },
  { name: 'EnvironmentVariables', type: 'map' },
  { name: 'SuccessExitCode', type: 'scalar' },
  { name: 'OutputLogLevel', type: 'scalar' },
  { name: 'ErrorOutputLogLevel', type: 'scalar' },
  { name: 'Verbose', type: 'bool' },
  { name: 'CaptureDebug', type: 'bool' },
] as const;

export const shExecOp: ExecuteOperation = {
  type: 'execute',
  name: 'SHExec',
  aliases: ['Execute-Shell'],
  namespace: 'Linux',
  positional: 'Text',
  args: [
    { name: 'Text', type: 'scalar', required: true },
    { name: 'Variables', type: 'map' },
    { name: 'OutVariables', type: 'vector', aliases: ['OutputVariables'] },
    ...shellCommon,
  ],
  key: (args) => args.text('Text').split('\n')[0] ?? '',
  async execute(ctx, args) {
    if (ctx.simulation) return { changed: true };
    return runShell(ctx, args, {
      text: args.text('Text'),
      injected: args.map('Variables'),
      outputs: args.list('OutVariables', []),
      env: stringMap(args.map('EnvironmentVariables')),
      arguments: args.text('Arguments'),
    });
  },
};

export const shCall: ExecuteOperation = {
  type: 'execute',
  name: 'SHCall',
  namespace: 'Linux',
  positional: 'Name',
  args: [
    { name: 'Name', type: 'scalar', required: true, aliases: ['ScriptName'] },
    { name: 'Parameters', type: 'map' },
    { name: 'InputVariables', type: 'map' },
    { name: 'OutputVariables', type: 'vector' },
    ...shellCommon,
  ],
  outputs: ['ExitCode'],
  key: (args) => args.text('Name'),
  async execute(ctx, args) {
    // Inedo's SHCall does nothing in a simulation.
    if (ctx.simulation) return { changed: false };
    const name = args.text('Name');
    const path = await ctx.raftItem(name, ['.sh']);
    if (path === undefined) {
      ctx.log('ERROR', `Script ${name} was not found.`);
      return { changed: false };
    }
    const injected = new Map<string, Value>([...args.map('Parameters'), ...args.map('InputVariables')]);
    return runShell(ctx, args, {
      text: await ctx.readRaftItem(path),
      injected,
      outputs: args.list('OutputVariables', []),
      env: stringMap(args.map('EnvironmentVariables')),
      arguments: args.text('Arguments'),
    });
  },
};
