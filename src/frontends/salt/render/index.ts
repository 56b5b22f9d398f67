/**
 * The render half of the Salt front end: top file, SLS, pillar and grains → high data. Everything here is
 * synchronous; one session (grains, pillar, Jinja environment) is kept per options object, so a compile that
 * renders the highstate and then 1,000 file templates builds the context once.
 */

import { relative, sep } from 'node:path';
import { type Diagnostic, DiagnosticError, error } from '../../../core/diag.js';
import type { HostFacts } from '../../../host/types.js';
import type { HighData, RenderResult, SaltOptions, ShowTopResult } from '../types.js';
import { SALT_MISSING_SLS } from './codes.js';
import { FileRoots, parseSaltUrl } from './file-roots.js';
import { toJs, toPy } from '../../../lang/jinja/index.js';
import { execModules } from './exec-modules.js';
import { grainsFor } from './grains.js';
import { HighRenderer } from './high-render.js';
import { JinjaSession, TemplateError } from './jinja-session.js';
import { compilePillar, type PillarResult } from './pillar.js';
import { readTop, topFileSpan, topMatches, type Problems } from './top.js';

export { showHighstateData } from './show.js';
export { verifyHigh } from './validate.js';

interface Session {
  roots: FileRoots;
  /** Read on first use: gathering a machine's facts runs a script on it, and most SLS never look. */
  readonly grains: Record<string, unknown>;
  saltOpts: Record<string, unknown>;
  pillar: PillarResult;
  jinja: JinjaSession;
}

const sessions = new WeakMap<SaltOptions, Session>();

function session(opts: SaltOptions): Session {
  const hit = sessions.get(opts);
  if (hit) return hit;
  const roots = FileRoots.fromOptions(opts);
  let machine: Record<string, unknown> | undefined;
  const grains = (): Record<string, unknown> => (machine ??= grainsFor(opts.minionId, opts.target?.facts));
  const saltOpts: Record<string, unknown> = {
    // grainsFor gives the minion id as `id` whenever there is one.
    id: opts.minionId || grains().id,
    file_client: 'local',
    file_roots: roots.envs,
    pillar_roots: { [opts.saltenv ?? 'base']: opts.pillarRoots },
    saltenv: opts.saltenv ?? null,
    pillarenv: null,
    test: opts.test === true,
    renderer: 'jinja|yaml',
    state_top: 'top.sls',
    state_auto_order: true,
    get grains() {
      return grains();
    },
  };
  const pillar = compilePillar(opts, grains, saltOpts);
  saltOpts.pillar = pillar.pillar;
  const jinja = new JinjaSession(roots, {
    pillar: pillar.pillar,
    get grains() {
      return grains();
    },
    opts: saltOpts,
    ...(opts.target ? { target: opts.target } : {}),
  });
  const s: Session = {
    roots,
    get grains() {
      return grains();
    },
    saltOpts,
    pillar,
    jinja,
  };
  sessions.set(opts, s);
  return s;
}

const emptyHigh = (): HighData => ({ states: {}, extend: [], exclude: [], spans: {}, files: {}, keyOrder: [] });

function pillarFailure(s: Session): RenderResult | undefined {
  if (s.pillar.errors.length === 0) return undefined;
  return {
    high: emptyHigh(),
    errors: ['Pillar failed to render with the following messages:', ...s.pillar.errors],
    diagnostics: s.pillar.diagnostics,
  };
}

function matchTop(s: Session, opts: SaltOptions, p: Problems): Record<string, string[]> {
  const top = readTop(s.roots, s.jinja, opts.saltenv, p, true);
  const ctx = {
    minionId: String(s.saltOpts.id),
    get grains() {
      return s.grains;
    },
    pillar: s.pillar.pillar,
  };
  return topMatches(top, ctx, opts.saltenv, (e) => s.roots.hasEnv(e), p);
}

/** state.highstate / state.apply without mods / show_highstate. No matches gives empty high data. */
export function renderHighstate(opts: SaltOptions): RenderResult {
  const s = session(opts);
  const failed = pillarFailure(s);
  if (failed) return failed;
  const p: Problems = { errors: [], diagnostics: [] };
  const matches = matchTop(s, opts, p);
  if (p.errors.length === 0 && Object.keys(matches).length === 0) return { high: emptyHigh(), errors: [], diagnostics: p.diagnostics, noStates: 'none' };
  const r = new HighRenderer(s.roots, s.jinja, opts.onSource);
  // An SLS the top file names but that cannot be found is reported at the top file that named it.
  const high = r.renderMatches(matches, (env) => topFileSpan(s.roots, env));
  const errors = [...p.errors, ...r.errors];
  const empty = errors.length === 0 && (high.ids !== undefined ? high.ids.size : Object.keys(high.states).length) === 0 && high.extend.length === 0 && high.exclude.length === 0;
  return { high, errors, diagnostics: [...p.diagnostics, ...r.diagnostics], ...(empty ? { noStates: 'empty' as const } : {}) };
}

/** state.sls / show_sls: the named SLS (comma-separated names allowed) in `saltenv` (base by default). */
export function renderSls(mods: string[], opts: SaltOptions): RenderResult {
  const s = session(opts);
  const failed = pillarFailure(s);
  if (failed) return failed;
  const names = mods.flatMap((m) => m.split(',')).map((m) => m.trim()).filter((m) => m !== '');
  const r = new HighRenderer(s.roots, s.jinja, opts.onSource);
  const high = r.renderMatches({ [opts.saltenv ?? 'base']: names }, () => ({ file: '<command line>', line: 1, col: 1 }));
  return { high, errors: r.errors, diagnostics: r.diagnostics };
}

export function showTop(opts: SaltOptions): ShowTopResult {
  const s = session(opts);
  const p: Problems = { errors: [], diagnostics: [] };
  const top = matchTop(s, opts, p);
  return { top, errors: p.errors, diagnostics: p.diagnostics };
}

/** Pillar with `_errors` when something failed to render (as Salt keeps it). */
export function loadPillar(opts: SaltOptions): Record<string, unknown> {
  return session(opts).pillar.pillar;
}

/**
 * Every string of the pillar (3 characters or more): what Salt keeps in pillar is where secrets live, so
 * none of it is kept in the run store. An empty list when the pillar cannot be rendered.
 */
export function pillarValues(opts: SaltOptions): string[] {
  let pillar: unknown;
  try {
    pillar = loadPillar(opts);
  } catch {
    return [];
  }
  const out = new Set<string>();
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      if (v.trim().length >= 3) out.add(v);
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === 'object' && v !== null) Object.values(v).forEach(walk);
  };
  walk(pillar);
  // Longer values first, so a value that holds a shorter one is masked whole.
  return [...out].sort((a, b) => b.length - a.length);
}

/** The grains of the machine whose facts are given (a minion over SSH), else of this machine. */
export function grains(facts?: HostFacts): Record<string, unknown> {
  return grainsFor('', facts);
}

/** A file.managed `template: jinja` source. Throws DiagnosticError (positioned in `file`) on a template error. */
export function renderTemplateFile(text: string, file: string, ctxExtra: Record<string, unknown>, opts: SaltOptions): string {
  const s = session(opts);
  const saltenv = typeof ctxExtra.saltenv === 'string' ? ctxExtra.saltenv : (opts.saltenv ?? 'base');
  let tplfile = '';
  for (const root of s.roots.envs[saltenv] ?? []) {
    const rel = relative(root, file);
    if (!rel.startsWith('..') && !rel.startsWith(sep)) {
      tplfile = rel.split(sep).join('/');
      break;
    }
  }
  try {
    const tpldir = tplfile.includes('/') ? tplfile.slice(0, tplfile.lastIndexOf('/')) : '.';
    const names = { tplfile, tplpath: file, tpldir, tpldot: tpldir === '.' ? '' : tpldir.replace(/\//g, '.') };
    return s.jinja.render(text, file, saltenv, { ...names, ...ctxExtra });
  } catch (e) {
    if (e instanceof TemplateError) throw new DiagnosticError([e.failure.diagnostic]);
    throw e;
  }
}

/** `salt://a/b` → an existing file inside the roots of `saltenv` (or of `?saltenv=`). */
export function resolveSaltUrl(url: string, opts: SaltOptions, saltenv: string): string | Diagnostic {
  const parsed = parseSaltUrl(url, saltenv);
  if (!parsed) return error(SALT_MISSING_SLS, `'${url}' is not a salt:// URL`);
  const found = session(opts).roots.find(parsed.env, parsed.path, `source '${url}'`);
  if (found === undefined) return error(SALT_MISSING_SLS, `Source file ${url} not found in saltenv '${parsed.env}'`);
  if ('code' in found) return found;
  return found.path;
}

/** The read-only execution functions salt-call can run besides the state functions. */
export const EXEC_FUNCTIONS = new Set([
  'pillar.items', 'pillar.get', 'pillar.item', 'pillar.raw', 'grains.get', 'grains.item', 'config.get', 'config.option', 'test.ping', 'test.true', 'test.false', 'test.echo',
]);

/**
 * One of EXEC_FUNCTIONS with the arguments of the command line (positional, then keyword), as the same
 * functions Jinja sees as `salt[...]`. Returns undefined when the pillar failed to render (then Salt fails).
 */
export function callExecFunction(opts: SaltOptions, fun: string, args: unknown[], kwargs: Record<string, unknown>): unknown {
  const s = session(opts);
  const f = execModules(s.jinja.data)[fun];
  if (!f) throw new Error(`no execution function ${fun}`);
  return toJs(f.fn(args.map(toPy), new Map(Object.entries(kwargs).map(([k, v]) => [k, toPy(v)]))));
}
