/**
 * Checks made before anything runs, so that a wrong program stops with positions and an untouched
 * machine: every zdb type named literally must be found, every [load] folder readable, and every
 * `{{name}}` must name a param that can exist where it is used. Values built at run time (a type or
 * dir that holds `{{…}}`) are checked when they run.
 */
import { join } from 'node:path';
import { type Diagnostic, error } from '../../core/diag.js';
import { findTypeDir, prependDirs } from './lookup.js';
import { loadProgram, type Params, type Program, ProgramError, type Step } from './program.js';
import { refsIn, ValuePositions } from './refs.js';
import { BUILTIN_TYPES } from './steps.js';

export const SPECIAL_PARAMS = ['name', 'global_name', 'global_prefix', 'state_dir', 'zdb_dir', 'zapusk_tool', 'zapusk_tool_dir'];

/** Whether a value holds `{{`: most steps have none, and need no checker or wording made for them. */
function anyRefs(params: Params): boolean {
  for (const p of params.values()) if (p.value !== true && p.value.includes('{{')) return true;
  return false;
}

function refsInParams(params: Params, known: (name: string) => boolean, where: string, out: Diagnostic[]): void {
  for (const [key, p] of params) {
    // Most values hold no reference: no positions, no scan.
    if (p.value === true || !p.value.includes('{{')) continue;
    const positions = new ValuePositions(p.valueSpan, p.value);
    for (const m of refsIn(p.value)) {
      const name = m.raw.trim();
      if (known(name)) continue;
      out.push(error('Z020', `unknown param ${JSON.stringify(name)} in ${key} of ${where}`, { span: positions.at(m.index) }));
    }
  }
}

export interface PreflightOptions {
  readonly libDirs: readonly string[];
  /** Names of the global params. */
  readonly globals?: readonly string[];
}

/** Steps after these in a component are never run, so never computed. */
const ENDS_COMPONENT = new Set(['os', 'file', 'disabled']);

export function preflight(
  program: Program,
  requestKeys: readonly string[],
  o: PreflightOptions,
  lookupDirs: readonly string[] = o.libDirs,
  seen = new Set<string>(),
  /** Some lookup folders are known only at run time (prepend_zdb_dirs with {{…}}): a type not found now may be found then. */
  unsureDirs = false,
): Diagnostic[] {
  const visitKey = `${program.dir}\0${[...requestKeys].sort().join(',')}`;
  if (seen.has(visitKey)) return [];
  seen.add(visitKey);
  const out: Diagnostic[] = [];
  const programKeys = new Set([...program.params.keys(), ...requestKeys, ...(program.conf?.keys() ?? []), ...SPECIAL_PARAMS, ...(o.globals ?? [])]);
  if (requestKeys.includes('type')) programKeys.add('zdb_type');
  refsInParams(program.params, (n) => programKeys.has(n), `the params of ${program.name}`, out);
  const prepend = program.params.get('prepend_zdb_dirs')?.value ?? program.conf?.get('prepend_zdb_dirs')?.value;
  const own = typeof prepend === 'string' && !prepend.includes('{{') ? prependDirs(prepend) : [];
  const unsure = unsureDirs || (typeof prepend === 'string' && prepend.includes('{{'));
  const dirs = [...own, ...lookupDirs];
  for (const comp of program.components) {
    /** Set once a step of the component runs a sub-program: the steps after it are its arguments. */
    let argumentsOf: string | undefined;
    let ended = false;
    const steps = comp.steps;
    for (let index = 0; index < steps.length; index++) {
      const step = steps[index] as Step;
      if (ended) break;
      const type = step.type;
      ended = argumentsOf === undefined && typeof type === 'string' && ENDS_COMPONENT.has(type);
      if (anyRefs(step.params)) refsInParams(step.params, (n) => programKeys.has(n) || n === 'cmd' || step.params.has(n), `step [${step.id}] of component ${comp.name}`, out);
      if (type === true || type.includes('{{')) continue;
      // Most steps are built-in ones other than guard and load, run here: nothing more to check.
      if (argumentsOf === undefined && type !== 'load' && type !== 'guard' && BUILTIN_TYPES.has(type)) continue;
      const key = step.params.get('key');
      if (type === 'guard' && key && typeof key.value === 'string' && !key.value.includes('{{') && (key.value === '.' || key.value === '..' || key.value.includes('/'))) {
        out.push(error('Z034', `guard: key ${JSON.stringify(key.value)} must be one folder name (destroy removes <dir>/<key>)`, { span: key.valueSpan }));
      }
      const typeSpan = step.params.get('type')?.valueSpan ?? step.span;
      if (argumentsOf !== undefined) {
        // zapusk-tool hands such a step to the sub-program with the folder of its type, which must exist.
        if (!step.params.has('type_dir') && !unsure && !findTypeDir([program.dir, ...dirs], type).found) {
          out.push(
            error('Z010', `cannot find zdb of type \`${type}\` (looked for ${type}.zdb in ${[program.dir, ...dirs].join(', ')}): a step after [${argumentsOf}] is passed to that sub-program as an argument, not run here`, {
              span: typeSpan,
            }),
          );
        }
        continue;
      }
      if (type !== 'load' && BUILTIN_TYPES.has(type)) continue;
      argumentsOf = step.id;
      const childKeys = [...step.params.keys(), 'type', 'parent_global_name', 'component_global_name', 'stack_of_types_dirs', ...(index + 1 < comp.steps.length ? ['arg_files'] : [])];
      for (const k of programKeys) {
        const parts = k.split('/');
        if (parts.length > 1 && (parts[0] === comp.name || parts[0] === '*')) childKeys.push(parts.slice(1).join('/'));
      }
      let subDir: string | undefined;
      if (type === 'load') {
        const dir = step.params.get('dir')?.value;
        if (typeof dir === 'string' && !dir.includes('{{')) subDir = dir.startsWith('/') ? dir : join(program.dir, dir);
      } else {
        if (step.params.has('type_dir')) continue;
        subDir = findTypeDir([program.dir, ...dirs], type).found;
        if (!subDir) {
          if (unsure) continue;
          out.push(error('Z010', `cannot find zdb of type \`${type}\` (looked for ${type}.zdb in ${[program.dir, ...dirs].join(', ')})`, { span: typeSpan }));
          continue;
        }
      }
      if (subDir === undefined) continue;
      try {
        const sub = loadProgram(subDir);
        out.push(...preflight(sub, childKeys, o, dirs, seen, unsure));
      } catch (e) {
        if (!(e instanceof ProgramError)) throw e;
        for (const d of e.diagnostics) out.push(d.span ? d : { ...d, span: typeSpan });
      }
    }
  }
  return out;
}
