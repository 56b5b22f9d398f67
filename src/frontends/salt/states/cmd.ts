/** Salt's cmd.run, cmd.wait and cmd.script on the shared command kind. */
import type { Chunk } from '../compile/index.js';
import type { StateImpl, TranslateContext, Translation } from './types.js';

function envOf(v: unknown): Record<string, string> | undefined {
  if (v === undefined || v === null) return undefined;
  const out: Record<string, string> = {};
  const add = (o: unknown) => {
    if (o && typeof o === 'object' && !Array.isArray(o)) for (const [k, val] of Object.entries(o)) out[k] = String(val);
  };
  if (Array.isArray(v)) v.forEach(add);
  else add(v);
  return out;
}

function guards(v: unknown): string | string[] | undefined {
  if (v === undefined || v === null) return undefined;
  return Array.isArray(v) ? v.map(String) : String(v);
}

function command(chunk: Chunk, ctx: TranslateContext, cmd: string): Translation {
  if (chunk.runas !== undefined && chunk.runas !== null && !ctx.isRoot) {
    return { fail: `User ${String(chunk.runas)} is not available: runas needs cairn to run as root` };
  }
  const params: Record<string, unknown> = { cmd };
  if (typeof chunk.cwd === 'string') params.cwd = chunk.cwd;
  const env = envOf(chunk.env);
  if (env) params.env = env;
  if (typeof chunk.shell === 'string') params.shell = chunk.shell;
  if (typeof chunk.timeout === 'number') params.timeout = chunk.timeout;
  if (typeof chunk.stdin === 'string') params.stdin = chunk.stdin;
  for (const g of ['unless', 'onlyif', 'creates'] as const) {
    const v = guards(chunk[g]);
    if (v !== undefined) params[g] = v;
  }
  if (Array.isArray(chunk.success_retcodes)) params.success_codes = [0, ...chunk.success_retcodes.map(Number)];
  return { type: 'command', params };
}

/** Salt's stateful commands print `changed=yes comment='…'` as their last line. */
function statefulOutcome(stdout: string): { changed: boolean; comment?: string } | undefined {
  const last = stdout.trimEnd().split('\n').pop() ?? '';
  const m = /changed=(\S+)/.exec(last);
  if (!m) return undefined;
  const changed = ['yes', 'true', 'True'].includes((m[1] as string).replace(/['"]/g, ''));
  const c = /comment=(['"])(.*)\1/.exec(last);
  return c ? { changed, comment: c[2] as string } : { changed };
}

const run: StateImpl = {
  modWatch: true,
  translate: (chunk, ctx) => command(chunk, ctx, chunk.name),
  finish(chunk, ret, ctx) {
    if (ctx.test && ret.result === null) return { ...ret, changes: {} };
    if (!chunk.stateful || ret.result !== true || typeof ret.changes.stdout !== 'string') return ret;
    const s = statefulOutcome(ret.changes.stdout);
    if (!s) return ret;
    const stdout = ret.changes.stdout.trimEnd().split('\n').slice(0, -1).join('\n');
    return { result: true, comment: s.comment ?? ret.comment, changes: s.changed ? { ...ret.changes, stdout } : {} };
  },
};

export const cmdStates: Record<string, StateImpl> = {
  run,
  wait: { ...run },
  script: {
    modWatch: true,
    translate(chunk, ctx) {
      const source = typeof chunk.source === 'string' ? chunk.source : chunk.name;
      let path = source;
      if (source.startsWith('salt://')) {
        const r = ctx.resolveUrl(source, chunk.__env__ || 'base');
        if (typeof r !== 'string') return { fail: r.error };
        path = r;
      }
      const args = typeof chunk.args === 'string' ? ` ${chunk.args}` : '';
      const shell = typeof chunk.shell === 'string' ? chunk.shell : '/bin/sh';
      return command(chunk, ctx, `${shell} ${JSON.stringify(path)}${args}`);
    },
    finish(chunk, ret, ctx) {
      if (ctx.test && ret.result === null) ret = { ...ret, changes: {} };
      return { ...ret, comment: ret.comment.replace(/^Command "[\s\S]*" (run|would have been executed)$/, `Command "${chunk.name}" $1`) };
    },
  },
};
