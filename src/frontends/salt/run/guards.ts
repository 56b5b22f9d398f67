/**
 * The execution functions an `onlyif` / `unless` entry in the `fun:` form may call (Salt's
 * _run_check_function), acting through the host, read-only. `retcode` is what cmd.* functions leave in
 * Salt's state_con; other functions leave 0.
 */
import type { ExecOptions, Host } from '../../../host/types.js';
import type { Chunk } from '../compile/index.js';
import { envOf, pyText } from '../states/args.js';

/** The cmd options Salt passes on to guard commands: cwd, env, timeout. */
function cmdOptions(chunk: Chunk): ExecOptions {
  const env = envOf(chunk.env);
  return {
    readOnly: true,
    ...(typeof chunk.cwd === 'string' ? { cwd: chunk.cwd } : {}),
    ...(env ? { env } : {}),
    ...(typeof chunk.timeout === 'number' ? { timeout: chunk.timeout * 1000 } : {}),
  };
}

/** The execution functions a `fun:` guard may call, acting through the host. `retcode` is set by cmd.*. */
export async function callFunction(host: Host, entry: Record<string, unknown>, chunk: Chunk): Promise<{ value: unknown; retcode: number }> {
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

