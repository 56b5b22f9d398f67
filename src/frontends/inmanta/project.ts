/** Loads a project: main.cf, then every namespace it imports (transitively), from libs/ or the bundled modules. */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import type { Span } from '../../core/diag.js';
import type { Stmt } from './ast.js';
import { InmantaError } from './errors.js';
import { Namespace } from './namespace.js';
import { parseFile } from './parser.js';
import { BUNDLED } from './std-model.js';

export const MAIN_NS = '__config__';

/**
 * The yaml library takes tens of milliseconds to load, and only a project.yml or a module's module.yml
 * needs it: a project of main.cf and the bundled modules never loads it.
 */
function parseYaml(text: string): unknown {
  return (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parse(text);
}

export interface LoadedProject {
  readonly namespaces: Map<string, Namespace>;
  /** module name → its directory; bundled modules have none. */
  readonly moduleDirs: Map<string, string>;
}

function modulePath(projectDir: string): string[] {
  const yml = join(projectDir, 'project.yml');
  if (!existsSync(yml)) return [join(projectDir, 'libs')];
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(yml, 'utf8'));
  } catch (e) {
    throw new InmantaError('ParserException', `invalid project.yml: ${(e as Error).message}`, { file: yml, line: 1, col: 1 });
  }
  const mp = (doc as { modulepath?: unknown } | null)?.modulepath;
  const list = typeof mp === 'string' ? [mp] : Array.isArray(mp) ? mp.map(String) : ['libs'];
  return list.map((p) => resolve(projectDir, p));
}

/** A v1 module needs a module.yml with at least a name, a version and a license. */
function validModuleYml(dir: string): boolean {
  try {
    const doc = parseYaml(readFileSync(join(dir, 'module.yml'), 'utf8')) as Record<string, unknown> | null;
    return !!doc && ['name', 'version', 'license'].every((k) => doc[k] !== undefined && doc[k] !== null);
  } catch {
    return false;
  }
}

export function loadProject(projectDir: string): LoadedProject {
  const main = join(projectDir, 'main.cf');
  if (!existsSync(main) || !statSync(main).isFile()) {
    throw new InmantaError('ModuleNotFoundException', `could not find main.cf in project directory ${projectDir}`, { file: main, line: 1, col: 1 });
  }
  const searchPath = modulePath(projectDir);
  const namespaces = new Map<string, Namespace>();
  const moduleDirs = new Map<string, string>();

  const findModule = (name: string): string | undefined => {
    if (moduleDirs.has(name)) return moduleDirs.get(name);
    for (const dir of searchPath) {
      const d = join(dir, name);
      if (existsSync(join(d, 'model', '_init.cf'))) {
        moduleDirs.set(name, d);
        return d;
      }
    }
    return undefined;
  };

  const parse = (name: string, file: string, src: string): void => {
    const stmts = parseFile(file, src);
    namespaces.set(name, new Namespace(name, file, stmts));
    for (let i = 0; i < stmts.length; i++) {
      const s = stmts[i] as Stmt;
      if (s.kind === 'import') load(s.name, s.span);
    }
    load('std', undefined);
  };

  const load = (name: string, span: Span | undefined): void => {
    if (namespaces.has(name)) return;
    const [mod, ...sub] = name.split('::');
    const dir = findModule(mod as string);
    if (!dir) {
      const bundled = sub.length === 0 ? BUNDLED[mod as string] : undefined;
      if (bundled === undefined) throw new InmantaError('ModuleLoadingException', `Failed to load module ${name}`, span);
      parse(name, `<bundled ${name}>/_init.cf`, bundled);
      return;
    }
    if (sub.length > 0) load(mod as string, span);
    const base = join(dir, 'model', ...sub);
    // As the real loader: a directory of that name wins over a file `name.cf` beside it.
    const file = sub.length === 0 || (existsSync(base) && statSync(base).isDirectory()) ? join(base, '_init.cf') : `${base}.cf`;
    if (!existsSync(file) || !validModuleYml(dir)) throw new InmantaError('ModuleLoadingException', `Failed to load module ${name}`, span);
    parse(name, file, readFileSync(file, 'utf8'));
  };

  parse(MAIN_NS, main, readFileSync(main, 'utf8'));
  return { namespaces, moduleDirs };
}

export type { Stmt };
