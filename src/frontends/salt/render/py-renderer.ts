/**
 * Salt's `#!py` renderer: the file is Python, run under python3 with the globals Salt gives it
 * (`__grains__`/`grains`, `__pillar__`/`pillar`, `__opts__`/`opts`, `__sls__`/`sls`, `__env__`/`saltenv`,
 * `__salt__`/`salt` with the execution functions cairn offers there, and the template names), and its
 * `run()` returns the data. Dict order is kept (the result comes back as JSON object pairs).
 */
import { runSync } from '../../../host/run-sync.js';
import type { SaltTarget } from '../types.js';

/** The Python side: builds the globals, runs the file, prints run()'s result as JSON. */
const BRIDGE = String.raw`
import json, shlex, subprocess, sys, traceback
ctx = json.load(sys.stdin)
path = ctx['path']

def _get(data, key, default='', delimiter=':'):
    cur = data
    for part in str(key).split(delimiter):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        elif isinstance(cur, list):
            try:
                cur = cur[int(part)]
            except (ValueError, IndexError):
                return default
        else:
            return default
    return cur

def _run(cmd, cwd=None, python_shell=None, **kwargs):
    argv = cmd if python_shell else (shlex.split(cmd) if isinstance(cmd, str) else cmd)
    p = subprocess.run(argv, shell=bool(python_shell), cwd=cwd, capture_output=True, text=True)
    return p

def _cmd_run(cmd, cwd=None, python_shell=None, **kwargs):
    p = _run(cmd, cwd, python_shell)
    return '\n'.join(x for x in (p.stdout.rstrip(), p.stderr.rstrip()) if x)

def _config_get(key, default='', delimiter=':'):
    for src in (ctx['opts'], ctx['grains'], ctx['pillar']):
        marker = object()
        v = _get(src, key, marker, delimiter)
        if v is not marker:
            return v
    return default

salt = {
    'pillar.get': lambda key, default='', merge=False, delimiter=':': _get(ctx['pillar'], key, default, delimiter),
    'grains.get': lambda key, default='', delimiter=':': _get(ctx['grains'], key, default, delimiter),
    'config.get': _config_get,
    'cmd.run': _cmd_run,
    'cmd.shell': lambda cmd, cwd=None, **kw: _cmd_run(cmd, cwd, True),
    'cmd.run_stdout': lambda cmd, cwd=None, python_shell=None, **kw: _run(cmd, cwd, python_shell).stdout.rstrip(),
    'cmd.retcode': lambda cmd, cwd=None, python_shell=None, **kw: _run(cmd, cwd, python_shell).returncode,
    'test.true': lambda *a, **kw: True,
    'test.ping': lambda *a, **kw: True,
}
g = {
    '__name__': 'salt.loaded.ext.render.py', '__file__': path,
    '__grains__': ctx['grains'], 'grains': ctx['grains'], '__pillar__': ctx['pillar'], 'pillar': ctx['pillar'],
    '__opts__': ctx['opts'], 'opts': ctx['opts'], '__salt__': salt, 'salt': salt,
    '__env__': ctx['env'], 'saltenv': ctx['env'], '__sls__': ctx['names'].get('sls', ''),
}
g.update(ctx['names'])
try:
    exec(compile(ctx['source'], path, 'exec'), g)
    if 'run' not in g:
        raise RuntimeError('the file defines no run() function')
    data = g['run']()
    sys.stdout.write(json.dumps(data, default=str))
except Exception:
    sys.stderr.write(traceback.format_exc())
    sys.exit(3)
`;

export type PyOutcome = { ok: true; data: unknown } | { ok: false; message: string };

/** Runs on the target minion when there is one (as salt-ssh runs it there: it needs python3 there), else here. */
export function renderPy(source: string, file: string, saltenv: string, names: Record<string, unknown>, data: { pillar: unknown; grains: unknown; opts: unknown; target?: SaltTarget }): PyOutcome {
  const input = JSON.stringify({ source, path: file, env: saltenv, names, pillar: data.pillar, grains: data.grains, opts: data.opts });
  if (data.target) {
    const r = data.target.execSync(['python3', '-c', BRIDGE], { stdin: input });
    if (r.code === 127 && /cannot run python3/.test(r.stderr)) return { ok: false, message: 'the #!py renderer needs python3 on the minion, which is not installed there' };
    return outcome(r.code, r.stdout, r.stderr);
  }
  const r = runSync('python3', ['-c', BRIDGE], { input });
  if (r.status === null && r.failure !== undefined) {
    return { ok: false, message: r.missing ? 'the #!py renderer needs python3, which is not installed' : r.failure };
  }
  return outcome(r.status, r.stdout, r.stderr);
}

function outcome(status: number | null, stdout: string, stderr: string): PyOutcome {
  if (status !== 0) return { ok: false, message: (stderr || `python3 exited with ${status}`).trimEnd() };
  try {
    return { ok: true, data: JSON.parse(stdout) };
  } catch {
    return { ok: false, message: 'run() returned data that is not JSON-serializable' };
  }
}
