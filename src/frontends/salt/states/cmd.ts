/** Salt's cmd.run, cmd.wait and cmd.script on the shared command kind (guards and check_cmd run in run/). */
import type { Chunk } from '../compile/index.js';
import { envOf, pyText, truthy } from './args.js';
import { NCRC, type SaltRet, type StateImpl, type TranslateContext, type Translation } from './types.js';

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

function command(chunk: Chunk, ctx: TranslateContext, cmd: string): Translation {
  if (chunk.env !== undefined && chunk.env !== null && typeof chunk.env !== 'object') return { fail: "Invalidly-formatted 'env' parameter. See documentation.", arg: 'env' };
  if (chunk.runas !== undefined && chunk.runas !== null && !ctx.isRoot) {
    return { fail: `User ${pyText(chunk.runas)} is not available: runas needs cairn to run as root`, arg: 'runas' };
  }
  let line = cmd;
  const runas = chunk.runas !== undefined && chunk.runas !== null && pyText(chunk.runas) !== '' ? pyText(chunk.runas) : undefined;
  if (runas !== undefined) {
    if (!/^[A-Za-z_][A-Za-z0-9_.-]*\$?$/.test(runas)) return { fail: `User '${runas}' is not available`, arg: 'runas' };
    // The user's own environment basics, as Salt's runas gives them.
    const shell = typeof chunk.shell === 'string' ? chunk.shell : '/bin/sh';
    line = `id -u ${runas} >/dev/null 2>&1 || { echo "User '${runas}' is not available" >&2; exit 1; }; exec runuser -u ${runas} -- env HOME="$(getent passwd ${runas} | cut -d: -f6)" USER=${runas} LOGNAME=${runas} ${shell} -c ${shellQuote(cmd)}`;
  }
  // Without cwd Salt runs in the (runas) user's home, or in / when that cannot be entered.
  if (typeof chunk.cwd !== 'string') line = `cd ~${runas ?? ''} 2>/dev/null || cd /; ${line}`;
  const params: Record<string, unknown> = { cmd: line };
  if (typeof chunk.cwd === 'string') params.cwd = chunk.cwd;
  const env = envOf(chunk.env);
  if (env) params.env = env;
  if (typeof chunk.shell === 'string') params.shell = chunk.shell;
  if (typeof chunk.timeout === 'number') params.timeout = chunk.timeout;
  if (typeof chunk.stdin === 'string') params.stdin = chunk.stdin;
  if (Array.isArray(chunk.success_retcodes)) params.success_codes = [0, ...chunk.success_retcodes.map(Number)];
  else if (typeof chunk.success_retcodes === 'number') params.success_codes = [0, chunk.success_retcodes];
  return { type: 'command', params };
}

/** Python's shlex.split for the `key=value` line of a stateful command (quotes and backslashes). */
function shlexSplit(s: string): string[] {
  const out: string[] = [];
  let cur: string | undefined;
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (/\s/.test(c)) {
      if (cur !== undefined) out.push(cur);
      cur = undefined;
    } else if (c === "'" || c === '"') {
      const end = s.indexOf(c, i + 1);
      if (end < 0) throw new Error('No closing quotation');
      cur = (cur ?? '') + s.slice(i + 1, end);
      i = end;
    } else if (c === '\\' && i + 1 < s.length) cur = (cur ?? '') + s[++i];
    else cur = (cur ?? '') + c;
  }
  if (cur !== undefined) out.push(cur);
  return out;
}

function isTrue(v: unknown): boolean {
  const s = pyText(v).toLowerCase();
  if (truthy(v) && ['true', 'yes', '1'].includes(s)) return true;
  if (['false', 'no', '0'].includes(s)) return false;
  throw new Error(`Failed parsing boolean value: ${pyText(v)}`);
}

/** Salt's _reinterpreted_state: a stateful command's last line (or JSON output) says whether it changed anything. */
function reinterpret(ret: SaltRet): SaltRet {
  const run = ret.changes;
  const out: SaltRet = { ...ret, changes: {}, comment: '' };
  const stdout = typeof run.stdout === 'string' ? run.stdout : '';
  if (!stdout) {
    if (run.stderr) out.comment = pyText(run.stderr);
    return out;
  }
  let data: Record<string, unknown>;
  let isJson = false;
  let idx = -1;
  try {
    const parsed: unknown = JSON.parse(stdout);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return { ...out, result: false, comment: 'script JSON output must be a JSON object (e.g., {})!' };
    data = parsed as Record<string, unknown>;
    isJson = true;
  } catch {
    idx = stdout.trimEnd().lastIndexOf('\n');
    const last = idx !== -1 ? stdout.slice(idx + 1) : stdout;
    data = {};
    try {
      for (const item of shlexSplit(last)) {
        const parts = item.split('=');
        if (parts.length !== 2) throw new Error('not a pair');
        data[parts[0] as string] = parts[1];
      }
    } catch {
      return { result: false, comment: 'Failed parsing script output! Stdout must be JSON or a line of name=value pairs.', changes: { ...run } };
    }
  }
  const changed = isTrue(data.changed ?? 'no');
  if ('comment' in data) {
    out.comment = pyText(data.comment);
    delete data.comment;
  }
  if (changed) {
    for (const [k, v] of Object.entries(run)) if (!(k in data)) data[k] = v;
    const s = typeof data.stdout === 'string' ? data.stdout : '';
    // Python's [:idx] with idx -1 drops the last character.
    data.stdout = isJson ? '' : idx === -1 ? s.slice(0, -1) : s.slice(0, idx);
    out.changes = data;
  }
  return out;
}

function hidden(chunk: Chunk, ret: SaltRet): SaltRet {
  if (chunk.hide_output !== true || !('stdout' in ret.changes)) return ret;
  return { ...ret, changes: { ...ret.changes, stdout: '', stderr: '' } };
}

function finishRun(quote: '"' | "'") {
  return (chunk: Chunk, ret: SaltRet, ctx: { test: boolean }): SaltRet => {
    if (ctx.test && ret.result === null) ret = { ...ret, changes: {}, comment: `Command ${quote}${chunk.name}${quote} would have been executed` };
    else if ('retcode' in ret.changes && !ret.comment.startsWith('check_cmd determined')) ret = { ...ret, comment: `Command ${quote}${chunk.name}${quote} run` };
    if (chunk.stateful === true && (('retcode' in ret.changes) || (ctx.test && ret.result === null))) ret = reinterpret(ret);
    return hidden(chunk, ret);
  };
}

const run: StateImpl = {
  modWatch: true,
  retOrder: NCRC,
  translate: (chunk, ctx) => command(chunk, ctx, chunk.name),
  finish: finishRun('"'),
};

export const cmdStates: Record<string, StateImpl> = {
  run,
  wait: { ...run },
  script: {
    modWatch: true,
    retOrder: NCRC,
    translate(chunk, ctx) {
      const source = typeof chunk.source === 'string' ? chunk.source : chunk.name.split(' ')[0] as string;
      let path = source;
      if (source.startsWith('salt://')) {
        const r = ctx.resolveUrl(source, chunk.__env__ || 'base');
        if (typeof r !== 'string') return { fail: r.error };
        path = r;
      }
      // Arguments come from `args`, or else from the words of the name after the first.
      let args = chunk.args !== undefined && chunk.args !== null ? ` ${pyText(chunk.args)}` : '';
      if (!args && chunk.name.split(/\s+/).length > 1) args = ` ${chunk.name.slice(chunk.name.indexOf(' ') + 1)}`;
      const shell = typeof chunk.shell === 'string' ? chunk.shell : '/bin/sh';
      if (chunk.template === 'jinja') {
        // Salt renders the script (cp.get_template) before it runs; the rendered text runs in the same shell.
        let text: string;
        try {
          const extra = { ...((chunk.defaults as Record<string, unknown>) ?? {}), ...((chunk.context as Record<string, unknown>) ?? {}) };
          text = ctx.renderTemplate(ctx.readText(path), path, extra);
        } catch (e) {
          return { fail: `Unable to render ${source}: ${(e as Error).message}` };
        }
        const q = (t: string) => `'${t.replaceAll("'", "'\\''")}'`;
        return command(chunk, ctx, `${shell} -c ${q(text)} ${shell}${args}`);
      }
      if (source.startsWith('salt://') && ctx.opts.target) {
        // The file is on the controller and the minion is another machine: the script is written to a temp
        // file there (as Salt caches it on the minion), run, and removed.
        const text = ctx.readText(path);
        return command(chunk, ctx, `f=$(mktemp) || exit 1; trap 'rm -f "$f"' EXIT; printf '%s' ${shellQuote(text)} > "$f" && chmod 0644 "$f" && ${shell} "$f"${args}`);
      }
      return command(chunk, ctx, `${shell} ${JSON.stringify(path)}${args}`);
    },
    finish: finishRun("'"),
  },
};
