/**
 * Pillar for one minion: the pillar top file in pillar_roots matched like the state top, each matched SLS
 * rendered (Jinja + YAML, with its own includes) and merged recursively in top order, then the command
 * line's `pillar=` override on top. Problems go to `_errors`, as Salt keeps them, so a state run can refuse.
 */

import { readFileSync } from 'node:fs';
import type { Diagnostic } from '../../../core/diag.js';
import type { SaltOptions } from '../types.js';
import { deepMerge, isPlainObject } from './data-path.js';
import { FileRoots } from './file-roots.js';
import { JinjaSession, slsContext } from './jinja-session.js';
import { renderFile } from './renderer.js';
import { readTop, topFileSpan, topMatches, type Problems } from './top.js';

export interface PillarResult {
  pillar: Record<string, unknown>;
  errors: string[];
  diagnostics: Diagnostic[];
}

/** `grains` is called only when a template or a top-file matcher reads them. */
export function compilePillar(opts: SaltOptions, grains: () => Record<string, unknown>, saltOpts: Record<string, unknown>): PillarResult {
  const p: Problems = { errors: [], diagnostics: [] };
  const override = opts.pillarOverride ?? {};
  let pillar: Record<string, unknown> = {};
  if (opts.pillarRoots.length > 0) {
    const roots = FileRoots.fromOptions(opts, 'pillar');
    const data = {
      pillar: override,
      get grains() {
        return grains();
      },
      opts: saltOpts,
      ...(opts.target ? { target: opts.target } : {}),
    };
    const jinja = new JinjaSession(roots, data);
    const top = readTop(roots, jinja, undefined, p);
    const ctx = {
      minionId: opts.minionId,
      get grains() {
        return grains();
      },
      pillar: override,
    };
    const matches = topMatches(top, ctx, undefined, (e) => roots.hasEnv(e), p);
    const done = new Set<string>();
    const render = (sls: string, env: string): Record<string, unknown> => {
      done.add(`${env}:${sls}`);
      const found = roots.findSls(env, sls);
      if (found === undefined) {
        p.errors.push(`Specified SLS '${sls}' in environment '${env}' is not available on the salt master`);
        p.diagnostics.push({ code: 'SALTR010', severity: 'error', message: `pillar SLS '${sls}' in environment '${env}' was not found in the pillar roots`, span: topFileSpan(roots, env) });
        return {};
      }
      if ('code' in found) {
        p.errors.push(found.message);
        p.diagnostics.push(found);
        return {};
      }
      const out = renderFile(readFileSync(found.path, 'utf8'), found.path, env, slsContext(sls, found.rel), jinja, `pillar SLS ${sls}`);
      if (!out.ok) {
        // pillar_safe_render_error (on by default) keeps the render error out of the result; the positioned
        // diagnostic on stderr carries it.
        p.errors.push(`Rendering SLS '${sls}' failed. Please see master log for details.`);
        p.diagnostics.push({ ...out.diagnostic, message: `${out.diagnostic.message} (Salt: ${out.saltMessage.split('\n')[0]})` });
        return {};
      }
      let data = out.value.data;
      if (!isPlainObject(data)) {
        if (data !== null && data !== undefined && data !== '' && data !== false) {
          p.errors.push(`SLS '${sls}' does not render to a dictionary`);
          p.diagnostics.push({ code: 'SALTR010', severity: 'error', message: `pillar SLS '${sls}' does not render to a dictionary`, span: { file: found.path, line: 1, col: 1 } });
        }
        return {};
      }
      data = { ...data };
      const state = data as Record<string, unknown>;
      const include = state.include;
      delete state.include;
      let merged: Record<string, unknown> = state;
      if (Array.isArray(include)) {
        for (const inc of include) {
          let name = isPlainObject(inc) ? Object.keys(inc)[0] ?? '' : String(inc);
          let key: string | undefined;
          if (isPlainObject(inc) && isPlainObject(inc[name]) && typeof (inc[name] as Record<string, unknown>).key === 'string') {
            key = (inc[name] as Record<string, unknown>).key as string;
          }
          if (name.startsWith('.')) {
            const parts = sls.split('.');
            if (found.rel.endsWith('init.sls')) parts.push('init');
            const m = /^(\.+)(.*)$/.exec(name) as RegExpExecArray;
            name = [...parts.slice(0, parts.length - (m[1] ?? '').length), m[2] ?? ''].join('.');
          }
          if (done.has(`${env}:${name}`)) continue;
          let nstate = render(name, env);
          if (key) for (const part of key.split(':').reverse()) nstate = { [part]: nstate };
          merged = deepMerge(merged, nstate);
        }
      }
      return merged;
    };
    for (const [env, list] of Object.entries(matches)) {
      for (const sls of list) {
        if (done.has(`${env}:${sls}`)) continue;
        pillar = deepMerge(pillar, render(sls, env));
      }
    }
  }
  pillar = deepMerge(pillar, override);
  if (p.errors.length > 0) pillar._errors = p.errors;
  return { pillar, errors: p.errors, diagnostics: p.diagnostics };
}
