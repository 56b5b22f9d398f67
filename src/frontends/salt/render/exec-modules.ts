/**
 * The `salt` dict of templates: the execution functions SLS and map.jinja files call at render time,
 * with Salt's argument names and defaults (`pillar.get` defaults to '', keys nest with ':').
 */

import { existsSync, readFileSync, statSync } from 'node:fs';
import { PyCallable, type PyValue, toJs, toPy } from '../../../lang/jinja/index.js';
import { PyObject } from '../../../lang/jinja/pyvalue.js';
import { deepMerge, has, isPlainObject, lookup } from './data-path.js';
import { runShell, targetFileKind, targetReadFile } from './exec-cmd.js';
import type { SaltTarget } from '../types.js';

export interface ExecContext {
  pillar: Record<string, unknown>;
  grains: Record<string, unknown>;
  opts: Record<string, unknown>;
  /** The minion, when it is not this machine: commands and file functions act on it. */
  target?: SaltTarget;
}

type Param = readonly [name: string, dflt?: unknown];

class ArgError extends Error {}

/** Binds Python-style positional and keyword arguments to named parameters (extra keywords are ignored, as **kwargs). */
function bind(fname: string, params: readonly Param[], args: PyValue[], kwargs: Map<string, PyValue>): unknown[] {
  if (args.length > params.length) throw new ArgError(`${fname}() takes at most ${params.length} arguments (${args.length} given)`);
  return params.map(([name, ...rest], i) => {
    if (i < args.length) return toJs(args[i] as PyValue);
    if (kwargs.has(name)) return toJs(kwargs.get(name) as PyValue);
    if (rest.length === 0) throw new ArgError(`${fname}() missing required argument: '${name}'`);
    return rest[0];
  });
}

function fn(name: string, params: readonly Param[], body: (...a: unknown[]) => unknown): PyCallable {
  return new PyCallable(name, (args, kwargs) => toPy(body(...bind(name, params, args, kwargs))));
}

const str = (v: unknown): string => (typeof v === 'string' ? v : String(v));

/** grains.filter_by / pillar.filter_by: pick a branch of a lookup table by a grain (or pillar) value. */
function filterBy(source: Record<string, unknown>, lookupDict: unknown, key: string, merge: unknown, dflt: string, base: unknown): unknown {
  if (!isPlainObject(lookupDict)) return null;
  const value = lookup(source, key, null);
  const pick = (v: unknown): unknown => (v !== null && Object.hasOwn(lookupDict, str(v)) ? lookupDict[str(v)] : undefined);
  let ret = (Array.isArray(value) ? value.map(pick).find((x) => x !== undefined) : pick(value)) ?? lookupDict[dflt] ?? null;
  if (base !== null && base !== undefined && Object.hasOwn(lookupDict, str(base))) {
    const b = lookupDict[str(base)];
    if (isPlainObject(b)) ret = isPlainObject(ret) ? deepMerge(b, ret) : b;
  }
  if (isPlainObject(merge)) ret = isPlainObject(ret) ? deepMerge(ret, merge) : merge;
  return ret;
}

function cmdOptions(cwd: unknown, env: unknown, shell: unknown): { cwd?: string; env?: Record<string, string>; shell?: string } {
  const o: { cwd?: string; env?: Record<string, string>; shell?: string } = {};
  if (typeof cwd === 'string') o.cwd = cwd;
  if (isPlainObject(env)) o.env = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, str(v)]));
  if (typeof shell === 'string') o.shell = shell;
  return o;
}

export function execModules(ctx: ExecContext): Record<string, PyCallable> {
  const { pillar, grains, opts, target } = ctx;
  const getFrom = (data: Record<string, unknown>) => (key: unknown, dflt: unknown, merge: unknown, delimiter: unknown) => {
    // merge=True: a dict default is updated with the value found, a list default extended with it.
    if (merge === true && isPlainObject(dflt)) {
      const found = lookup(data, str(key), {}, str(delimiter));
      return isPlainObject(found) ? deepMerge(structuredClone(dflt), found) : dflt;
    }
    if (merge === true && Array.isArray(dflt)) {
      const found = lookup(data, str(key), [], str(delimiter));
      return Array.isArray(found) ? [...dflt, ...found.filter((x) => !dflt.some((d) => JSON.stringify(d) === JSON.stringify(x)))] : dflt;
    }
    return lookup(data, str(key), dflt, str(delimiter));
  };
  // Salt's execution module runs without a shell unless python_shell=True (cmd.shell's default).
  const cmdParams: Param[] = [['cmd'], ['cwd', null], ['stdin', null], ['runas', null], ['shell', '/bin/sh'], ['env', null], ['python_shell', null]];
  const shellParams: Param[] = cmdParams.map((p) => (p[0] === 'python_shell' ? ['python_shell', true] : p));
  const cmd = (...a: unknown[]) => runShell(str(a[0]), { ...cmdOptions(a[1], a[5], a[4]), pythonShell: a[6] === true }, target);
  const fileKind = (p: unknown): 'file' | 'dir' | 'other' | undefined => {
    if (target) return targetFileKind(target, str(p));
    try {
      const st = statSync(str(p));
      return st.isDirectory() ? 'dir' : st.isFile() ? 'file' : undefined;
    } catch {
      return undefined;
    }
  };
  const configGet = (key: unknown, dflt: unknown, delimiter: unknown) => {
    for (const src of [opts, grains, pillar]) if (has(src, str(key), str(delimiter))) return lookup(src, str(key), dflt, str(delimiter));
    return dflt;
  };
  return {
    'pillar.get': fn('pillar.get', [['key'], ['default', ''], ['merge', false], ['delimiter', ':']], getFrom(pillar)),
    'pillar.item': fn('pillar.item', [['key']], (k) => ({ [str(k)]: lookup(pillar, str(k), '') })),
    'pillar.items': fn('pillar.items', [], () => pillar),
    'pillar.raw': fn('pillar.raw', [['key', null]], (k) => (k === null ? pillar : lookup(pillar, str(k), ''))),
    'pillar.filter_by': fn('pillar.filter_by', [['lookup_dict'], ['pillar', 'os_family'], ['merge', null], ['default', 'default'], ['base', null]], (l, k, m, d, b) =>
      filterBy(pillar, l, str(k), m, str(d), b),
    ),
    'grains.get': fn('grains.get', [['key'], ['default', ''], ['delimiter', ':']], (k, d, delim) => lookup(grains, str(k), d, str(delim))),
    'grains.item': fn('grains.item', [['key']], (k) => ({ [str(k)]: lookup(grains, str(k), '') })),
    'grains.items': fn('grains.items', [], () => grains),
    'grains.filter_by': fn('grains.filter_by', [['lookup_dict'], ['grain', 'os_family'], ['merge', null], ['default', 'default'], ['base', null]], (l, k, m, d, b) =>
      filterBy(grains, l, str(k), m, str(d), b),
    ),
    'config.get': fn('config.get', [['key'], ['default', ''], ['delimiter', ':']], configGet),
    'config.option': fn('config.option', [['value'], ['default', '']], (k, d) => (Object.hasOwn(opts, str(k)) ? opts[str(k)] : d)),
    'cmd.run': fn('cmd.run', cmdParams, (...a) => {
      const r = cmd(...a);
      return [r.stdout, r.stderr].filter((s) => s !== '').join('\n');
    }),
    'cmd.shell': fn('cmd.shell', shellParams, (...a) => {
      const r = cmd(...a);
      return [r.stdout, r.stderr].filter((s) => s !== '').join('\n');
    }),
    'cmd.run_stdout': fn('cmd.run_stdout', cmdParams, (...a) => cmd(...a).stdout),
    'cmd.run_stderr': fn('cmd.run_stderr', cmdParams, (...a) => cmd(...a).stderr),
    'cmd.retcode': fn('cmd.retcode', cmdParams, (...a) => cmd(...a).retcode),
    'cmd.run_all': fn('cmd.run_all', cmdParams, (...a) => {
      const r = cmd(...a);
      return { pid: 0, retcode: r.retcode, stdout: r.stdout, stderr: r.stderr };
    }),
    'file.file_exists': fn('file.file_exists', [['path']], (p) => fileKind(p) === 'file'),
    'file.directory_exists': fn('file.directory_exists', [['path']], (p) => fileKind(p) === 'dir'),
    'file.exists': fn('file.exists', [['path']], (p) => (target ? fileKind(p) !== undefined : existsSync(str(p)))),
    'file.read': fn('file.read', [['path'], ['binary', false]], (p) => (target ? targetReadFile(target, str(p)) : readFileSync(str(p), 'utf8'))),
    'test.true': fn('test.true', [], () => true),
    'test.false': fn('test.false', [], () => false),
    'test.ping': fn('test.ping', [], () => true),
    'test.echo': fn('test.echo', [['text']], (t) => t),
  };
}

export { ArgError };

/** One execution module seen as an attribute of `salt` (`salt.pillar.get`). */
class SaltModule extends PyObject {
  readonly typeName = 'module';
  constructor(
    private readonly fns: Record<string, PyCallable>,
    private readonly mod: string,
  ) {
    super();
  }
  getAttr(name: string): PyValue | undefined {
    return this.fns[`${this.mod}.${name}`];
  }
}

/** Salt's `salt` in templates (its LazyLoader): `salt['mod.fun']` and `salt.mod.fun`. */
export class SaltLoader extends PyObject {
  readonly typeName = 'LazyLoader';
  constructor(private readonly fns: Record<string, PyCallable>) {
    super();
  }
  getAttr(name: string): PyValue | undefined {
    if (name.includes('.')) return this.fns[name];
    return Object.keys(this.fns).some((k) => k.startsWith(`${name}.`)) ? new SaltModule(this.fns, name) : undefined;
  }
}
