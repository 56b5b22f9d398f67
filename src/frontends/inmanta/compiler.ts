/** `compile`: load, define, execute gradually, then check that every instance is complete. */
import { maskValues } from '../../core/redact.js';
import type { Host } from '../../host/types.js';
import { Compilation } from './compilation.js';
import { defineAll } from './definitions.js';
import { InmantaError } from './errors.js';
import { emitBlock } from './execute.js';
import type { Instance } from './instance.js';
import { loadProject } from './project.js';
import { pythonPlugins } from './python-plugins.js';
import { checkCalls } from './resolve.js';

export interface CompileResult {
  readonly ok: boolean;
  readonly printed: readonly string[];
  readonly error?: InmantaError;
  readonly compilation?: Compilation;
}

export interface CompileOptions {
  /** The environment `std::get_env` reads: the target's (its facts), never this process's; empty when absent. */
  readonly env?: Readonly<Record<string, string>>;
}

export function compileProject(projectDir: string, options: CompileOptions = {}): CompileResult {
  return finish(start(projectDir, options.env ?? {}));
}

/** A project loaded, defined and name-checked, or the error that stopped it there. */
interface Started {
  readonly c?: Compilation;
  readonly error?: InmantaError;
}

function start(projectDir: string, env: Readonly<Record<string, string>>, parsed?: () => void): Started {
  let c: Compilation | undefined;
  try {
    const project = loadProject(projectDir);
    parsed?.();
    c = new Compilation({ modules: project.moduleDirs, project: projectDir }, env);
    for (const [name, ns] of project.namespaces) c.namespaces.set(name, ns);
    defineAll(c);
    pythonPlugins(c).load(c.printed);
    checkCalls(c);
    return { c };
  } catch (e) {
    if (!InmantaError.is(e)) throw e;
    return { c, error: e };
  }
}

/** Executes a started compile to the end and checks that every instance is complete. */
function finish({ c, error }: Started): CompileResult {
  if (error || !c) return { ok: false, printed: c ? printedOf(c) : [], ...(error ? { error } : {}) };
  try {
    for (const ns of c.namespaces.values()) emitBlock(c, ns.stmts, ns.scope, undefined);
    c.sched.run();
    finalCheck(c);
    return { ok: true, printed: printedOf(c), compilation: c };
  } catch (e) {
    if (!InmantaError.is(e)) throw e;
    return { ok: false, printed: printedOf(c), error: e };
  }
}

/** What std::print wrote, with every secret value (std::password) masked. */
function printedOf(c: Compilation): readonly string[] {
  const secrets = [...c.secrets];
  return secrets.length === 0 ? c.printed : c.printed.map((line) => maskValues(line, secrets));
}

/**
 * Compiles for a machine: `std::get_env` reads that machine's environment, from its facts. The facts are
 * gathered only for a model that can read it (it calls std::get_env, std::get_env_int or std::template).
 * `parsed` is called once every file of the project is parsed, before the model is defined and run.
 */
export async function compileFor(projectDir: string, target: Pick<Host, 'facts'>, parsed?: () => void): Promise<CompileResult> {
  const started = start(projectDir, {}, parsed);
  if (!started.error && started.c?.readsEnvironment) started.c.env = (await target.facts()).env;
  return finish(started);
}

/** Every instance in the order of their ids, the order they were made in (see Compilation). */
function allInstances(c: Compilation): readonly Instance[] {
  return c.instances;
}

/** After the last freeze: unanswered queries, then incomplete objects (several become a MultiException). */
function finalCheck(c: Compilation): void {
  for (const q of c.pendingQueries.values()) {
    if (!q.var.isSet && q.var.waiters.length > 0) {
      throw new InmantaError('NotFoundException', `No match in index on type ${q.type.fullName} with key ${q.desc}`, q.span);
    }
  }
  const problems: InmantaError[] = [];
  const instances = allInstances(c);
  for (let i = 0; i < instances.length; i++) (instances[i] as Instance).incomplete(problems);
  if (problems.length === 1) throw problems[0];
  if (problems.length > 1) throw new InmantaError('MultiException', '', undefined, problems);
  const stuck = c.sched.stuck();
  if (stuck.length > 0) {
    const first = stuck[0];
    throw new InmantaError('RuntimeException', `Unable to complete the model: ${stuck.length} statement(s) wait for a value that is never set (${first?.waitingOn?.label ?? 'unknown'})`, first?.span);
  }
}

export { allInstances };
