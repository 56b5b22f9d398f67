/**
 * Jinja for SLS files, top files, pillar and file.managed templates, with Salt's context. One session per
 * render call keeps one Environment (globals converted once); `{% import %}` / `{% include %}` names resolve
 * against the file roots: `x/map.jinja` from the root, `./x` and `../x` from the top template's directory
 * (as Salt's loader does with `tpldir`), `salt://x` as a URL. None may leave the file roots.
 */

import { posix } from 'node:path';
import { readFileSync } from 'node:fs';
import { type Diagnostic, DiagnosticError, error } from '../../../core/diag.js';
import { Environment } from '../../../lang/jinja/index.js';
import { SALT_JINJA, SALT_PATH_ESCAPE } from './codes.js';
import { execModules } from './exec-modules.js';
import type { FileRoots } from './file-roots.js';
import { SALT_FILTERS } from './salt-filters.js';
import { saltContext } from './yaml-load.js';

export interface TemplateFailure {
  /** Salt's text (what follows `Rendering SLS 'env:sls' failed: `). */
  readonly saltMessage: string;
  readonly diagnostic: Diagnostic;
}

export class TemplateError extends Error {
  constructor(readonly failure: TemplateFailure) {
    super(failure.saltMessage);
  }
}

/** A template asked for a path outside the file roots; raised out of the loader. */
class LoaderRefusal extends Error {
  constructor(readonly diagnostic: Diagnostic) {
    super(diagnostic.message);
  }
}

export interface SessionData {
  pillar: Record<string, unknown>;
  grains: Record<string, unknown>;
  opts: Record<string, unknown>;
}

/** Salt's per-template names: sls, slspath, tpldir, tplfile, ... (salt.utils.templates._generate_sls_context). */
export function slsContext(sls: string, tplfile: string): Record<string, string> {
  const tpldir = posix.dirname(tplfile) === '.' ? '.' : posix.dirname(tplfile);
  const isInit = tplfile.endsWith('/init.sls') || tplfile === 'init.sls';
  const slsParts = sls.split('.');
  const slspath = sls === '' ? '' : isInit ? slsParts.join('/') : slsParts.slice(0, -1).join('/');
  return {
    sls,
    slspath,
    sls_path: slspath.replace(/\//g, '_'),
    slsdotpath: slspath.replace(/\//g, '.'),
    slscolonpath: slspath.replace(/\//g, ':'),
    tplfile,
    tpldir,
    tpldot: tpldir === '.' ? '' : tpldir.replace(/\//g, '.'),
  };
}

export class JinjaSession {
  private readonly env: Environment;
  private saltenv = 'base';
  private tpldir = '.';

  constructor(private readonly roots: FileRoots, readonly data: SessionData) {
    this.env = new Environment({
      loader: (name) => this.load(name),
      filters: SALT_FILTERS,
      globals: { salt: execModules(data), grains: data.grains, pillar: data.pillar, opts: data.opts },
    });
  }

  private load(name: string): string | undefined {
    let rel = name;
    if (rel.startsWith('salt://')) rel = rel.slice('salt://'.length);
    else if (rel.startsWith('./') || rel.startsWith('../')) rel = posix.join(this.tpldir, rel);
    const found = this.roots.find(this.saltenv, rel, `template '${name}'`);
    if (found === undefined) return undefined;
    if ('code' in found) throw new LoaderRefusal(found);
    return readFileSync(found.path, 'utf8');
  }

  /**
   * Renders one template. `file` is the path shown in diagnostics, `tplfile` its path under the root.
   * Throws TemplateError with Salt's message and a positioned diagnostic.
   */
  render(source: string, file: string, saltenv: string, names: Record<string, unknown>): string {
    this.saltenv = saltenv;
    const tplfile = typeof names.tplfile === 'string' ? names.tplfile : '';
    this.tpldir = tplfile ? posix.dirname(tplfile) : '.';
    let out: string;
    try {
      out = this.env.render(source, { saltenv, ...names }, file);
    } catch (e) {
      throw new TemplateError(templateFailure(e, source, file));
    }
    // Salt puts back the final newline Jinja drops.
    if (source.endsWith('\n') && !out.endsWith('\n')) out += '\n';
    return out;
  }
}

function templateFailure(e: unknown, source: string, file: string): TemplateFailure {
  if (e instanceof LoaderRefusal) {
    return { saltMessage: `Jinja error: ${e.diagnostic.message}`, diagnostic: error(SALT_PATH_ESCAPE, e.diagnostic.message, { span: { file, line: 1, col: 1 } }) };
  }
  if (DiagnosticError.is(e)) {
    const d = e.diagnostics[0] ?? error(SALT_JINJA, e.message);
    const line = d.span && d.span.file === file ? d.span.line : undefined;
    const prefix = d.code === 'JINJA001' ? 'Jinja syntax error: ' : d.code === 'JINJA002' ? 'Jinja variable ' : 'Jinja error: ';
    const saltMessage = line ? `${prefix}${d.message}; line ${line}\n\n${saltContext(source, line)}` : `${prefix}${d.message}`;
    const span = d.span ?? { file, line: 1, col: 1 };
    return { saltMessage, diagnostic: error(SALT_JINJA, `${prefix}${d.message}`, { span }) };
  }
  const msg = e instanceof Error ? e.message : String(e);
  return { saltMessage: `Jinja error: ${msg}`, diagnostic: error(SALT_JINJA, `Jinja error: ${msg}`, { span: { file, line: 1, col: 1 } }) };
}
