/** `cairn otter run`: reading, parsing and checking a script with its variables, credentials and rafts. */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { DiagnosticError, formatDiagnostic } from '../core/diag.js';
import type { RunMode } from '../core/model.js';
import { checkScript, type OtterRunOptions, parseScript, RaftLoader, type Script, type Value } from '../frontends/otter/index.js';
import type { Host } from '../host/types.js';
import { UserError } from '../engine/errors.js';
import type { OtterOptions } from './otter-command.js';
import { writeErr } from '../engine/stdio.js';

/** The lowest level each `--log-level` shows. */
const SHOWN_FROM = { debug: 'DEBUG', information: 'INFO', warning: 'WARN', error: 'ERROR' } as const;

function readScript(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UserError(`cannot read script ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (e as Error).message}`);
  }
}

function variables(pairs: readonly string[]): Map<string, Value> {
  const out = new Map<string, Value>();
  for (const pair of pairs) {
    const i = pair.indexOf('=');
    out.set(pair.slice(0, i).replace(/^\$/, ''), pair.slice(i + 1));
  }
  return out;
}

/** Named credentials: the `--credentials` JSON file, then `CAIRN_OTTER_CREDENTIAL_NAME=user:password` variables. */
function credentials(file: string | undefined): Map<string, { userName: string; password: string }> {
  const out = new Map<string, { userName: string; password: string }>();
  if (file !== undefined) {
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new UserError(`cannot read credentials ${file}: ${code === 'ENOENT' ? 'no such file' : code ?? 'not valid JSON'}`);
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new UserError(`credentials ${file}: expected an object of named credentials`);
    for (const [name, c] of Object.entries(data as Record<string, unknown>)) {
      const v = c as { UserName?: unknown; Password?: unknown } | null;
      if (typeof v !== 'object' || v === null || typeof v.UserName !== 'string' || typeof v.Password !== 'string') {
        throw new UserError(`credentials ${file}: ${name} needs "UserName" and "Password" strings`);
      }
      out.set(name, { userName: v.UserName, password: v.Password });
    }
  }
  for (const [key, value] of Object.entries(process.env)) {
    const m = /^CAIRN_OTTER_CREDENTIAL_(.+)$/.exec(key);
    if (!m || value === undefined) continue;
    const colon = value.indexOf(':');
    out.set(m[1] as string, { userName: colon < 0 ? value : value.slice(0, colon), password: colon < 0 ? '' : value.slice(colon + 1) });
  }
  return out;
}

/** `--raft DIR` is the default raft, `--raft NAME=DIR` a named one. */
function rafts(values: readonly string[], file: string): { dir: string; named: Map<string, string> } {
  let dir = dirname(file);
  const named = new Map<string, string>();
  for (const v of values) {
    const eq = v.indexOf('=');
    if (eq > 0 && !v.slice(0, eq).includes('/')) named.set(v.slice(0, eq), resolve(v.slice(eq + 1)));
    else dir = v;
  }
  return { dir: resolve(dir), named };
}

/** A script read, parsed and checked, with its variables, credentials and rafts: what every run of it needs. */
export interface PreparedScript {
  readonly file: string;
  readonly script: Script;
  readonly raftDir: string;
  readonly named: Map<string, string>;
  readonly vars: Map<string, Value>;
  readonly secrets: string[];
  readonly credentials: Map<string, { userName: string; password: string }>;
  /** Warnings told before anything runs (collect modes), as `--out json` lists them. */
  readonly warnings: string[];
  readonly runMode: RunMode;
}

/** Reads, parses and checks the script (rafts read through `sources`); errors stop here, before any run. */
export async function prepareScript(file: string, opts: OtterOptions, sources: Host): Promise<PreparedScript> {
  const source = readScript(file);
  const script = parseScript(file, source);
  const { dir: raftDir, named } = rafts(opts.raft ?? [], file);
  const secretVars = variables(opts.secretVar ?? []);
  const vars = new Map([...variables(opts.var), ...secretVars]);
  const creds = credentials(opts.credentials);
  const problems = await checkScript(script, new RaftLoader(raftDir, sources, named), new Set(vars.keys()));
  const errors = problems.filter((d) => d.severity === 'error');
  if (errors.length > 0) throw new DiagnosticError(errors);
  // What the run raises only when it gets there is told before anything runs when collecting.
  const warnings = opts.mode === 'execute' ? [] : problems.filter((d) => d.severity === 'warning').map((d) => formatDiagnostic({ ...d, message: `warning: ${d.message}` }));
  for (const d of problems) {
    if (opts.mode !== 'execute' && d.severity === 'warning') writeErr(`${formatDiagnostic({ ...d, message: `warning: ${d.message}` }, source)}\n`);
  }
  const runMode: RunMode = opts.simulation ? 'simulate' : opts.mode === 'collect' ? 'collect' : 'apply';
  return { file, script, raftDir, named, vars, secrets: [...secretVars.values()].map((v) => String(v)), credentials: creds, warnings, runMode };
}

/** The run options of one execution of a prepared script, for a host and a server. */
export function otterRunOptions(p: PreparedScript, opts: OtterOptions, stateDir: string, target: Pick<OtterRunOptions, 'host' | 'serverName' | 'roles' | 'root' | 'sources' | 'servers'>): OtterRunOptions {
  return {
    ...target,
    mode: opts.mode,
    simulation: opts.simulation,
    raftDir: p.raftDir,
    rafts: p.named,
    lockDir: join(stateDir, 'otter-locks'),
    credentials: p.credentials,
    secrets: p.secrets,
    variables: p.vars,
    jobs: opts.jobs,
    environmentName: '',
    // Messages below what the output shows are not kept (text shows from information up unless told);
    // warnings and errors always are: the summary counts them.
    keepLogFrom: SHOWN_FROM[opts.logLevel === 'error' ? 'warning' : (opts.logLevel ?? (opts.out === 'json' ? 'debug' : 'information'))],
  };
}

