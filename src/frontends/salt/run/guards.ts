/**
 * Salt's state-level requisite checks (state.py's _run_check): `onlyif`, `unless` and `creates`, for every
 * state function. A guard is a shell command (its exit code decides) or, in the `fun:` form, an execution
 * function whose return value decides. Everything runs through the host, read-only.
 */
import { posix } from 'node:path';
import type { ExecOptions, Host } from '../../../host/types.js';
import type { Chunk } from '../compile/index.js';
import { pyText, truthy } from '../states/args.js';

export interface GuardVerdict {
  /** True: the state is not called; `comment` says why. */
  readonly skip: boolean;
  readonly comment: string;
}

export function hasGuards(chunk: Chunk): boolean {
  return ['onlyif', 'unless', 'creates'].some((k) => chunk[k] !== undefined);
}

function envOf(v: unknown): Record<string, string> | undefined {
  if (v === undefined || v === null) return undefined;
  const out: Record<string, string> = {};
  const add = (o: unknown) => {
    if (o && typeof o === 'object' && !Array.isArray(o)) for (const [k, val] of Object.entries(o)) out[k] = pyText(val);
  };
  if (Array.isArray(v)) v.forEach(add);
  else add(v);
  return out;
}

/** The cmd options Salt passes on to guard commands: cwd, env, timeout (and shell). */
function cmdOptions(chunk: Chunk): ExecOptions {
  const env = envOf(chunk.env);
  return {
    readOnly: true,
    ...(typeof chunk.cwd === 'string' ? { cwd: chunk.cwd } : {}),
    ...(env ? { env } : {}),
    ...(typeof chunk.timeout === 'number' ? { timeout: chunk.timeout * 1000 } : {}),
  };
}

async function retcode(host: Host, cmd: string, chunk: Chunk): Promise<number> {
  const shell = typeof chunk.shell === 'string' ? chunk.shell : '/bin/sh';
  const r = await host.exec([shell, '-c', cmd], cmdOptions(chunk));
  return r.code ?? 1;
}

/** The execution functions a `fun:` guard may call, acting through the host. `retcode` is set by cmd.*. */
async function callFunction(host: Host, entry: Record<string, unknown>, chunk: Chunk): Promise<{ value: unknown; retcode: number }> {
  const fun = pyText(entry.fun);
  const args = Array.isArray(entry.args) ? entry.args : [];
  const kw = Object.fromEntries(Object.entries(entry).filter(([k]) => k !== 'fun' && k !== 'args' && k !== 'get_return'));
  const arg = (i: number, name: string): unknown => (args.length > i ? args[i] : kw[name]);
  const stat = async () => host.stat(pyText(arg(0, 'path')));
  switch (fun) {
    case 'file.file_exists':
      return { value: (await stat())?.type === 'file', retcode: 0 };
    case 'file.directory_exists':
      return { value: (await stat())?.type === 'directory', retcode: 0 };
    case 'file.exists':
    case 'file.path_exists_glob':
      return { value: (await stat()) !== null, retcode: 0 };
    case 'file.is_link':
      return { value: (await host.lstat(pyText(arg(0, 'path'))))?.type === 'symlink', retcode: 0 };
    case 'file.search': {
      const path = pyText(arg(0, 'path'));
      let text = '';
      try {
        text = (await host.readFile(path)).toString('utf8');
      } catch {
        return { value: false, retcode: 0 };
      }
      return { value: new RegExp(pyText(arg(1, 'pattern')), 'm').test(text), retcode: 0 };
    }
    case 'cmd.retcode':
    case 'cmd.run':
    case 'cmd.run_stdout':
    case 'cmd.shell': {
      const shell = typeof chunk.shell === 'string' ? chunk.shell : '/bin/sh';
      const r = await host.exec([shell, '-c', pyText(arg(0, 'cmd'))], { ...cmdOptions(chunk), ...(typeof kw.cwd === 'string' ? { cwd: kw.cwd } : {}) });
      const code = r.code ?? 1;
      return { value: fun === 'cmd.retcode' ? code : r.stdout.replace(/\n$/, ''), retcode: code };
    }
    case 'test.true':
      return { value: true, retcode: 0 };
    case 'test.false':
      return { value: false, retcode: 0 };
    default:
      throw new Error(`'${fun}' is not available as a requisite check function`);
  }
}

function asList(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [v];
}

async function onlyif(host: Host, chunk: Chunk): Promise<{ result: boolean; comment: string }> {
  let comment = '';
  for (const entry of asList(chunk.onlyif)) {
    if (typeof entry === 'string') {
      if ((await retcode(host, entry, chunk)) !== 0) return { result: true, comment: 'onlyif condition is false' };
      comment = 'onlyif condition is true';
    } else if (entry && typeof entry === 'object' && !Array.isArray(entry)) {
      if (!('fun' in entry)) return { result: false, comment: `no \`fun\` argument in onlyif: ${pyText(entry)}` };
      const r = await callFunction(host, entry as Record<string, unknown>, chunk);
      if (r.retcode !== 0 || !truthy(r.value)) return { result: true, comment: 'onlyif condition is false' };
      comment = 'onlyif condition is true';
    } else return { result: false, comment: 'onlyif execution failed, bad type passed' };
  }
  return { result: false, comment };
}

async function unless(host: Host, chunk: Chunk): Promise<{ result: boolean; comment: string }> {
  let out = { result: false, comment: '' };
  for (const entry of asList(chunk.unless)) {
    if (typeof entry === 'string') {
      if ((await retcode(host, entry, chunk)) !== 0) return { result: false, comment: 'unless condition is false' };
      out = { result: true, comment: 'unless condition is true' };
    } else if (entry && typeof entry === 'object' && !Array.isArray(entry)) {
      if (!('fun' in entry)) return { result: false, comment: `no \`fun\` argument in unless: ${pyText(entry)}` };
      const r = await callFunction(host, entry as Record<string, unknown>, chunk);
      if (r.retcode !== 0 || !truthy(r.value)) return { result: false, comment: 'unless condition is false' };
      out = { result: true, comment: 'unless condition is true' };
    } else out = { result: false, comment: 'unless condition is false, bad type passed' };
  }
  return out;
}

async function creates(host: Host, chunk: Chunk): Promise<{ result: boolean; comment: string }> {
  const c = chunk.creates;
  const cwd = typeof chunk.cwd === 'string' ? chunk.cwd : undefined;
  const there = async (p: unknown) => (await host.stat(cwd && !pyText(p).startsWith('/') ? posix.join(cwd, pyText(p)) : pyText(p))) !== null;
  if (typeof c === 'string' && (await there(c))) return { result: true, comment: `${c} exists` };
  if (Array.isArray(c)) {
    let all = true;
    for (const p of c) if (!(await there(p))) all = false;
    if (all) return { result: true, comment: 'All files in creates exist' };
  }
  return { result: false, comment: 'Creates files not found' };
}

/** onlyif, then unless, then creates, each adding its comment; any of them true skips the state. */
export async function runGuards(host: Host, chunk: Chunk): Promise<GuardVerdict> {
  const comments: string[] = [];
  let skip = false;
  for (const [key, check] of [['onlyif', onlyif], ['unless', unless], ['creates', creates]] as const) {
    if (chunk[key] === undefined) continue;
    const r = await check(host, chunk);
    skip = skip || r.result;
    comments.push(r.comment);
  }
  return { skip, comment: comments.join('\n') };
}

/** state.py's _run_check_cmd: every command must exit 0 for the state to count as succeeded. */
export async function stateCheckCmd(host: Host, chunk: Chunk): Promise<{ ok: boolean; comment: string }> {
  let out = { ok: false, comment: '' };
  for (const cmd of asList(chunk.check_cmd)) {
    const code = await host.exec(['/bin/sh', '-c', pyText(cmd)], { readOnly: true });
    if (code.code !== 0) return { ok: false, comment: 'check_cmd determined the state failed' };
    out = { ok: true, comment: 'check_cmd determined the state succeeded' };
  }
  return out;
}
