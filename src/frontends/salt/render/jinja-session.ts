/**
 * Jinja for SLS files, top files, pillar and file.managed templates, with Salt's context. One session per
 * render call keeps one Environment (globals converted once); `{% import %}` / `{% include %}` names resolve
 * against the file roots: `x/map.jinja` from the root, `./x` and `../x` from the top template's directory
 * (as Salt's loader does with `tpldir`), `salt://x` as a URL. None may leave the file roots.
 */

import { posix } from 'node:path';
import { readFileSync } from 'node:fs';
import { type Diagnostic, DiagnosticError, error } from '../../../core/diag.js';
import type { SaltTarget } from '../types.js';
import { Environment } from '../../../lang/jinja/index.js';
import { PyError } from '../../../lang/jinja/errors.js';
import { SALT_JINJA, SALT_PATH_ESCAPE } from './codes.js';
import { execModules, SaltLoader } from './exec-modules.js';
import type { FileRoots } from './file-roots.js';
import { SALT_FILTERS, SALT_PY_FILTERS, SALT_TESTS } from './salt-filters.js';
import { loadSaltYaml } from './yaml-load.js';
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
  /** The minion, when it is not this machine: render-time commands run there. */
  target?: SaltTarget;
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
  private built: Environment | undefined;
  private saltenv = 'base';
  private tpldir = '.';

  constructor(private readonly roots: FileRoots, readonly data: SessionData) {}

  /** Made on first use: a run whose files have no Jinja in them needs no environment (nor the grains in it). */
  private get env(): Environment {
    return (this.built ??= this.build());
  }

  private build(): Environment {
    const data = this.data;
    return new Environment({
      loader: (name) => this.load(name),
      // Salt 3006 renders with StrictUndefined: printing an undefined variable is an error.
      undefined: 'strict',
      filters: SALT_FILTERS,
      pyFilters: SALT_PY_FILTERS,
      tests: SALT_TESTS,
      globals: {
        // Salt's `raise` global fails the render with the given message.
        raise: (msg: unknown) => {
          throw new PyError('TemplateError', String(msg));
        },
        salt: new SaltLoader(execModules(data)),
        grains: data.grains,
        pillar: data.pillar,
        opts: data.opts,
        [IMPORT_FN]: (name: unknown, kind: unknown) => this.importData(String(name), String(kind)),
      },
    });
  }

  /** Salt's import_yaml / import_json / import_text: a template file from the roots, loaded as data. */
  private importData(name: string, kind: string): unknown {
    const text = this.load(name);
    if (text === undefined) throw new Error(`Template '${name}' not found`);
    const rendered = this.env.render(text, { saltenv: this.saltenv }, name);
    if (kind === 'text') return rendered;
    if (kind === 'json') return JSON.parse(rendered);
    const r = loadSaltYaml(rendered);
    if (!r.ok) throw new Error(r.failure.message);
    return r.data;
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
      out = this.env.render(saltTags(source), { saltenv, ...names }, file);
    } catch (e) {
      throw new TemplateError(templateFailure(e, source, file));
    }
    // Salt puts back the final newline Jinja drops.
    if (source.endsWith('\n') && !out.endsWith('\n')) out += '\n';
    return out;
  }
}

const IMPORT_FN = '__cairn_salt_import__';

/**
 * Salt's serializer tags, written as the plain Jinja they mean (on the same lines, so positions hold):
 * `{% import_yaml 'f' as x %}` loads a file as data, `{% load_yaml as x %}…{% endload %}` a block.
 */
export function saltTags(source: string): string {
  if (!/\{%-?\s*(?:import|load)_(?:yaml|json|text)\b/.test(source)) return source;
  const open: Array<{ name: string; kind: string }> = [];
  return source.replace(/\{%(-?)\s*(?:(import|load)_(yaml|json|text)\b(.*?)|endload)\s*(-?)%\}/gs, (whole, l: string, verb: string | undefined, kind: string | undefined, rest: string | undefined, r: string) => {
    if (verb === 'import') {
      const m = /^\s*(.+?)\s+as\s+(\w+)\s*$/s.exec(rest ?? '');
      if (!m) return whole;
      return `{%${l} set ${m[2]} = ${IMPORT_FN}(${m[1]}, '${kind}') ${r}%}`;
    }
    if (verb === 'load') {
      const m = /^\s+as\s+(\w+)\s*$/.exec(rest ?? '');
      if (!m) return whole;
      open.push({ name: m[1] as string, kind: kind as string });
      return `{%${l} set ${m[1]} %}`;
    }
    const top = open.pop();
    if (!top) return whole;
    if (top.kind === 'text') return `{%${l} endset ${r}%}`;
    return `{%${l} endset %}{% set ${top.name} = ${top.name} | load_${top.kind} ${r}%}`;
  });
}

function lastTokenLine(source: string): number | undefined {
  const end = Math.max(source.lastIndexOf('%}'), source.lastIndexOf('}}'), source.lastIndexOf('#}'));
  if (end < 0) return undefined;
  return source.slice(0, end).split('\n').length;
}

function templateFailure(e: unknown, source: string, file: string): TemplateFailure {
  if (e instanceof LoaderRefusal) {
    return { saltMessage: `Jinja error: ${e.diagnostic.message}`, diagnostic: error(SALT_PATH_ESCAPE, e.diagnostic.message, { span: { file, line: 1, col: 1 } }) };
  }
  if (DiagnosticError.is(e)) {
    const d = e.diagnostics[0] ?? error(SALT_JINJA, e.message);
    let line = d.span && d.span.file === file ? d.span.line : undefined;
    // Jinja2 reports an unexpected end of template at the line where the template's last token starts: the
    // text after the last tag starts on that tag's line.
    if (line !== undefined && d.message.startsWith('Unexpected end of template')) line = lastTokenLine(source) ?? line;
    let prefix = d.code === 'JINJA001' ? 'Jinja syntax error: ' : d.code === 'JINJA002' ? 'Jinja variable ' : 'Jinja error: ';
    let message = d.message;
    // Salt prints str(exc): no exception type. Jinja's assertion and runtime errors are caught with its
    // syntax errors ("Jinja syntax error: "); any other exception is a "Jinja error: ".
    const typed = /^(TemplateAssertionError|TemplateRuntimeError|SecurityError|TemplateError|TemplateNotFound|RuntimeError): /.exec(message);
    if ((d.code === 'JINJA003' || d.code === 'JINJA004') && typed) {
      message = message.slice(typed[0].length);
      if (!['TemplateError', 'TemplateNotFound', 'RuntimeError'].includes(typed[1] as string)) prefix = 'Jinja syntax error: ';
    }
    const saltMessage = line ? `${prefix}${message}; line ${line}\n\n${saltContext(source, line)}` : `${prefix}${message}`;
    const span = d.span ?? { file, line: 1, col: 1 };
    return { saltMessage, diagnostic: error(SALT_JINJA, `${prefix}${message}`, { span }) };
  }
  const msg = e instanceof Error ? e.message : String(e);
  return { saltMessage: `Jinja error: ${msg}`, diagnostic: error(SALT_JINJA, `Jinja error: ${msg}`, { span: { file, line: 1, col: 1 } }) };
}
