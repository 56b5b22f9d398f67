/**
 * How each Converge resource type's fields become the params of a shared resource kind: durations, modes,
 * booleans and numbers as converge reads them, relative destinations resolved against the working
 * directory, and the check script to syntax-check as converge checks it when it prepares a task.
 */
import { resolve } from 'node:path';
import { type Diagnostic, error } from '../../core/diag.js';
import { deferred, isDeferred } from '../../core/model.js';
import { type SyntaxCheck, syntaxCheckFor } from './target.js';
import type { RawNode } from './types.js';

/** The shared resource kind each Converge type runs as. */
export const CORE_TYPE: Readonly<Record<string, string>> = {
  task: 'task',
  'task.query': 'task',
  'healthcheck.task': 'task',
  'file.content': 'file',
  'file.directory': 'directory',
  'file.mode': 'chmod',
  'file.owner': 'chown',
  'file.fetch': 'fetch',
  unarchive: 'unarchive',
  'wait.query': 'wait',
  'wait.port': 'wait',
  'systemd.unit.state': 'unit',
  'package.apt': 'package',
  'user.user': 'user',
  'user.group': 'group',
};

const DURATION_UNITS: Readonly<Record<string, number>> = { ns: 1e-9, us: 1e-6, 'µs': 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/** Go's duration text ("10s", "1m30s") or a number of seconds. */
function seconds(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v);
  const parts = [...v.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((m) => m[0]).join('') !== v) return undefined;
  return parts.reduce((sum, m) => sum + Number(m[1]) * (DURATION_UNITS[m[2] as string] ?? 0), 0);
}

/** Converge resolves a relative destination against the directory it runs in (once it is known). */
export function abs(v: unknown): unknown {
  if (isDeferred(v)) return deferred(v.refs, (values) => abs(v.render(values)), v.display);
  return typeof v === 'string' && v !== '' && !v.startsWith('/') ? resolve(v) : v;
}

export function bool(v: unknown): unknown {
  if (v === 'true') return true;
  if (v === 'false') return false;
  return v;
}

function num(v: unknown): unknown {
  return typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
}

function defined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== ''));
}

/** What reads a node's fields, rendered (the Renderer). */
export interface FieldReader {
  field(node: RawNode, name: string): unknown;
}

/**
 * The params of the shared kind a node of this type runs as; problems go to `diags`, and the check scripts
 * converge syntax-checks when it prepares a task go to `checks` (run later, on the target).
 */
export function resourceParams(node: RawNode, fields: FieldReader, diags: Diagnostic[], checks: SyntaxCheck[] = []): Record<string, unknown> | undefined {
  // The most common type, read without a function made for the node.
  if (node.ctype === 'file.content') return { path: abs(fields.field(node, 'destination')), content: fields.field(node, 'content') ?? '', new_mode: '0600' };
  const f = (name: string): unknown => fields.field(node, name);
  switch (node.ctype) {
    case 'task':
    case 'healthcheck.task':
    case 'task.query': {
      const timeoutRaw = f('timeout');
      const timeout = timeoutRaw === undefined ? undefined : seconds(timeoutRaw);
      if (timeoutRaw !== undefined && timeout === undefined) {
        diags.push(error('CV040', `timeout must be a duration such as "30s", got ${JSON.stringify(timeoutRaw)}`, { span: node.fields.get('timeout')?.span }));
      }
      const env = f('env');
      const envField = node.fields.get('env');
      if (envField?.kind === 'object') {
        for (const item of envField.items) {
          if (item.value.kind !== 'string') diags.push(error('CV042', `env values must be strings: ${item.keys.map((k) => k.name).join('.')} is not`, { span: item.value.span }));
        }
      }
      const p = {
        check: node.ctype === 'task.query' ? (f('query') ?? '') : (f('check') ?? ''),
        apply: f('apply'),
        interpreter: f('interpreter'),
        // check_flags only syntax-check the check script (below); every script runs with exec_flags.
        check_flags: f('exec_flags'),
        exec_flags: f('exec_flags'),
        dir: f('dir'),
        timeout,
      };
      const syntax = syntaxCheckFor(p.interpreter, f('check_flags'), p.check, node.fields.get(node.ctype === 'task.query' ? 'query' : 'check')?.span ?? node.span);
      if (typeof syntax === 'string') diags.push(error('CV041', syntax, { span: node.fields.get(node.ctype === 'task.query' ? 'query' : 'check')?.span ?? node.span }));
      else if (syntax !== undefined) checks.push(syntax);
      return { ...defined(p), ...(env !== undefined ? { env } : {}), ...(node.ctype === 'task.query' ? { query: true } : {}), ...(node.ctype === 'healthcheck.task' ? { health: true } : {}) };
    }
    case 'file.directory':
      // Converge creates directories (and, with create_all, their parents) with mode 0700.
      return defined({ path: abs(f('destination')), makedirs: bool(f('create_all')), new_mode: '0700' });
    case 'file.mode': {
      // A number is the mode itself (HCL reads 0644 as octal, so 644 is decimal 644, which Go's chmod
      // keeps the permission bits of); a string is read in base 8.
      const mode = f('mode');
      return defined({ path: abs(f('destination')), mode: typeof mode === 'number' ? (mode & 0o777).toString(8).padStart(3, '0') : mode });
    }
    case 'file.owner':
      return defined({ path: abs(f('destination')), owner: num(f('user') ?? f('uid')), group: num(f('group') ?? f('gid')), recursive: bool(f('recursive')) });
    case 'file.fetch':
    case 'unarchive':
      return defined({ source: f('source'), destination: abs(f('destination')), hash_type: f('hash_type'), hash: f('hash'), force: bool(f('force')) });
    case 'wait.query':
    case 'wait.port': {
      const dur = (name: string): unknown => {
        const raw = f(name);
        if (raw === undefined) return undefined;
        const s = seconds(raw);
        if (s === undefined) diags.push(error('CV040', `${name} must be a duration such as "5s", got ${JSON.stringify(raw)}`, { span: node.fields.get(name)?.span }));
        return s;
      };
      const retry = { interval: dur('interval'), grace_period: dur('grace_period'), max_retry: num(f('max_retry')) };
      if (node.ctype === 'wait.port') return defined({ host: f('host'), port: num(f('port')), ...retry });
      const env = f('env');
      return { ...defined({ check: f('check') ?? '', interpreter: f('interpreter'), check_flags: f('exec_flags'), dir: f('dir'), timeout: dur('timeout'), ...retry }), ...(env !== undefined ? { env } : {}) };
    }
    case 'systemd.unit.state':
      return defined({ unit: f('unit'), state: f('state'), reload: bool(f('reload')), signal_name: f('signal_name'), signal_number: num(f('signal_number')) });
    case 'package.apt': {
      const state = f('state');
      return defined({ name: f('name'), state: state === 'absent' ? 'removed' : state === 'present' || state === undefined ? 'installed' : state });
    }
    case 'user.user':
      return defined({
        name: f('username'),
        uid: num(f('uid')),
        gid: num(f('groupname') ?? f('gid')),
        home: f('home_dir'),
        createhome: bool(f('create_home')),
        state: f('state'),
      });
    case 'user.group':
      return defined({ name: f('name'), gid: num(f('gid')), state: f('state') });
    default:
      return undefined;
  }
}
