/**
 * Top files (state and pillar): each environment's top.sls rendered and merged with Salt's default
 * `merge` strategy (the base top file is authoritative; another env's top file only adds its own env's
 * section when base did not define it), then matched against this minion.
 */

import { readFileSync } from 'node:fs';
import { type Diagnostic, error, type Span } from '../../../core/diag.js';
import { SALT_TOP } from './codes.js';
import { isPlainObject } from './data-path.js';
import { pyStr } from '../pytext.js';
import type { FileRoots } from './file-roots.js';
import type { JinjaSession } from './jinja-session.js';
import { type MatchContext, targetMatches } from './match.js';
import { renderFile } from './renderer.js';

/** env → target → the list under it (SLS names and option dicts such as `{match: pcre}`). */
export type Top = Map<string, Map<string, unknown[]>>;

export interface Problems {
  errors: string[];
  diagnostics: Diagnostic[];
}

function envOrder(roots: FileRoots): string[] {
  const envs = Object.keys(roots.envs);
  return envs.includes('base') ? ['base', ...envs.filter((e) => e !== 'base')] : envs;
}

const pyTruthy = (v: unknown): boolean =>
  !(v === null || v === undefined || v === false || v === 0 || v === '' || (Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.keys(v).length === 0));

function topError(p: Problems, msg: string, file: string): void {
  p.errors.push(msg);
  p.diagnostics.push(error(SALT_TOP, msg, { span: { file, line: 1, col: 1 } }));
}

function addSection(top: Top, env: string, targets: unknown, file: string, p: Problems, states: boolean): void {
  if (!isPlainObject(targets)) {
    const msg = `The top file matches for saltenv ${env} are not formatted as a dict`;
    p.errors.push(msg);
    p.diagnostics.push(error(SALT_TOP, msg, { span: { file, line: 1, col: 1 } }));
    return;
  }
  let section = top.get(env);
  if (!section) top.set(env, (section = new Map()));
  sectionFiles.set(section, file);
  for (const [tgt, list] of Object.entries(targets)) {
    // Salt's verify_tops wants a list; the pillar top also takes a single name.
    if (!Array.isArray(list) && (states || typeof list !== 'string')) {
      const msg = 'Malformed topfile (state declarations not formed as a list)';
      p.errors.push(msg);
      p.diagnostics.push(error(SALT_TOP, `${msg}: target '${tgt}' in saltenv ${env}`, { span: { file, line: 1, col: 1 } }));
      continue;
    }
    if (states && Array.isArray(list)) {
      for (const entry of list) {
        if (entry === '') topError(p, `Environment ${env} contains an empty sls index`, file);
        else if (isPlainObject(entry)) {
          for (const v of Object.values(entry)) if (!pyTruthy(v)) topError(p, `Improperly formatted top file matcher in saltenv ${pyStr(entry)}: ${pyStr(v)} file`, file);
        }
      }
    }
    section.set(tgt, Array.isArray(list) ? list : [list]);
  }
}

/** Reads and merges the top files of every env (or of `onlyEnv`). */
/** `states`: the state top file (Salt's HighState), which checks more strictly than the pillar top. */
export function readTop(roots: FileRoots, jinja: JinjaSession, onlyEnv: string | undefined, p: Problems, states = false): Top {
  const top: Top = new Map();
  const envs = onlyEnv ? [onlyEnv] : envOrder(roots);
  for (const env of envs) {
    const found = roots.find(env, 'top.sls', 'top file');
    if (found === undefined) continue;
    if ('code' in found) {
      p.errors.push(found.message);
      p.diagnostics.push(found);
      continue;
    }
    const out = renderFile(readFileSync(found.path, 'utf8'), found.path, env, { tplfile: 'top.sls', tpldir: '.' }, jinja, 'the top file');
    if (!out.ok) {
      if (states) {
        // Salt's state top: it logs "Unable to render top file" and goes on with no top data at all.
        p.diagnostics.push({ ...out.diagnostic, severity: 'warning', message: `Unable to render top file: ${out.diagnostic.message}` });
        return new Map();
      }
      p.errors.push(`Unable to render top file: ${out.saltMessage}`);
      p.diagnostics.push(out.diagnostic);
      continue;
    }
    const data = out.value.data;
    if (!isPlainObject(data)) {
      p.errors.push('Top data was not formed as a dict');
      p.diagnostics.push(error(SALT_TOP, 'Top data was not formed as a dict', { span: { file: found.path, line: 1, col: 1 } }));
      continue;
    }
    for (const [sectionEnv, targets] of Object.entries(data)) {
      if (sectionEnv === 'include') continue;
      // Merge strategy: base is authoritative; elsewhere only the file's own env, and only if base had none.
      if (env !== 'base' && !onlyEnv && (sectionEnv !== env || top.has(sectionEnv))) continue;
      addSection(top, sectionEnv, targets, found.path, p, states);
    }
  }
  return top;
}

/** state.show_top: env → SLS names matched for this minion, in top-file order (duplicates kept, as Salt does; rendering skips repeats). */
/** The top file each section was read from, for the position of a problem found when matching. */
const sectionFiles = new WeakMap<Map<string, unknown[]>, string>();

/** Where a problem with what the top file of `env` names is reported: that top file, else the command line. */
export function topFileSpan(roots: FileRoots, env: string): Span {
  const found = roots.find(env, 'top.sls', 'top file');
  return found !== undefined && !('code' in found) ? { file: found.path, line: 1, col: 1 } : { file: '<command line>', line: 1, col: 1 };
}

export function topMatches(top: Top, ctx: MatchContext, onlyEnv: string | undefined, knownEnvs: (env: string) => boolean, p: Problems): Record<string, string[]> {
  const matches: Record<string, string[]> = {};
  const add = (env: string, sls: string): void => {
    const list = (matches[env] ??= []);
    list.push(sls);
  };
  for (const [env, section] of top) {
    if (onlyEnv && env !== onlyEnv) continue;
    for (const [target, items] of section) {
      const opt = items.find((i): i is Record<string, unknown> => isPlainObject(i) && 'match' in i);
      const kind = opt ? String(opt.match) : 'glob';
      let ok: boolean;
      try {
        ok = targetMatches(target, kind, ctx);
      } catch (e) {
        const msg = `Top file target '${target}' in saltenv ${env}: ${(e as Error).message}`;
        p.errors.push(msg);
        const file = sectionFiles.get(section);
        p.diagnostics.push(error(SALT_TOP, msg, file !== undefined ? { span: { file, line: 1, col: 1 } } : {}));
        continue;
      }
      if (!ok) continue;
      matches[env] ??= [];
      for (const item of items) {
        if (typeof item === 'string') add(env, item);
        else if (isPlainObject(item)) {
          const entries = Object.entries(item).filter(([k]) => k !== 'match');
          const last = entries[entries.length - 1];
          if (last && knownEnvs(last[0]) && typeof last[1] === 'string') add(last[0], last[1]);
        }
      }
    }
  }
  return matches;
}
