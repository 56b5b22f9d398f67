/** File functions: they read through the host, so a simulation sees its own pending changes. */
import { posix } from 'node:path';
import type { Span } from '../../core/diag.js';
import { OtterError } from './errors.js';
import { int, scalar } from './fn-args.js';
import type { FunctionContext } from './functions.js';
import type { Value } from './values.js';

type Impl = (args: readonly Value[], ctx: FunctionContext, span: Span) => Value | Promise<Value>;

function resolve(ctx: FunctionContext, p: string): string {
  return posix.resolve(ctx.cwd, p);
}

async function listFiles(ctx: FunctionContext, dir: string, recurse: boolean, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const name of (await ctx.host.readdir(dir)).sort()) {
    const full = posix.join(dir, name);
    const st = await ctx.host.stat(full);
    if (st?.type === 'file') out.push(posix.join(prefix, name));
    else if (st?.type === 'directory' && recurse) out.push(...(await listFiles(ctx, full, true, posix.join(prefix, name))));
  }
  return out;
}

export const fileFunctions: Record<string, [number, number, Impl]> = {
  FileExists: [1, 1, async (a, ctx, span) => String((await ctx.host.stat(resolve(ctx, scalar(a[0], span))))?.type === 'file')],
  DirectoryExists: [1, 1, async (a, ctx, span) => String((await ctx.host.stat(resolve(ctx, scalar(a[0], span))))?.type === 'directory')],
  FileContents: [1, 2, async (a, ctx, span) => {
    const path = resolve(ctx, scalar(a[0], span));
    let text: string;
    try {
      text = (await ctx.host.readFile(path)).toString('utf8');
    } catch {
      throw new OtterError(`cannot read file ${path}`, span);
    }
    return a[1] === undefined ? text : text.slice(0, int(a[1], span));
  }],
  FilesOnDisk: [1, 2, async (a, ctx, span) => {
    const dir = resolve(ctx, scalar(a[0], span));
    if ((await ctx.host.stat(dir))?.type !== 'directory') return [];
    return listFiles(ctx, dir, scalar(a[1] ?? '', span).toLowerCase() === 'true');
  }],
  // A rooted part starts the path over, as .NET's Path.Combine does.
  PathCombine: [1, 99, (a, _c, span) => a.map((x) => scalar(x, span)).reduce((acc, p) => (p.startsWith('/') ? p : posix.join(acc, p)))],
  ResolvePath: [1, 1, (a, ctx, span) => resolve(ctx, scalar(a[0], span))],
  WorkingDirectory: [0, 0, (_a, ctx) => (ctx.cwd.endsWith('/') ? ctx.cwd : `${ctx.cwd}/`)],
};
