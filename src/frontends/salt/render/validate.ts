/**
 * Salt's verify_high: the structural checks on high data that run before compiling to low chunks, with
 * Salt's wording, each also positioned at the ID's line. A non-numeric `order` other than first/last is
 * accepted by Salt (it sorts as unordered); here it is also reported as a warning.
 */

import { type Diagnostic, error, type Span } from '../../../core/diag.js';
import { pyStr, toPy } from '../../../lang/jinja/index.js';
import type { HighData } from '../types.js';
import { SALT_STRUCTURE } from './codes.js';
import { isPlainObject } from './data-path.js';

const REQUISITES = new Set(
  ['require', 'watch', 'prereq', 'onchanges', 'onfail', 'listen', 'use'].flatMap((r) => [r, `${r}_in`, `${r}_any`]).concat(['require_any', 'onfail_all']),
);

export function verifyHigh(high: HighData): { errors: string[]; diagnostics: Diagnostic[] } {
  const errors: string[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const [name, body] of Object.entries(high.states)) {
    if (!isPlainObject(body)) continue;
    const sls = String(body.__sls__ ?? '');
    const span: Span | undefined = high.spans[name];
    const add = (text: string, severity: 'error' | 'warning' = 'error'): void => {
      if (severity === 'error') errors.push(text);
      diagnostics.push({ ...error(SALT_STRUCTURE, text, { span }), severity });
    };
    for (const [state, decl] of Object.entries(body)) {
      if (state.startsWith('__')) continue;
      if (!Array.isArray(decl)) {
        add(`State '${name}' in SLS '${sls}' is not formed as a list`);
        continue;
      }
      let fun = state.includes('.') ? 1 : 0;
      for (const arg of decl) {
        if (typeof arg === 'string') {
          fun++;
          if (arg.trim().includes(' ')) {
            add(`The function "${arg}" in state "${name}" in SLS "${sls}" has whitespace, a function with whitespace is not supported, perhaps this is an argument that is missing a ":"`);
          }
          continue;
        }
        if (!isPlainObject(arg)) continue;
        const keys = Object.keys(arg);
        const first = keys[0] ?? '';
        if (REQUISITES.has(first)) {
          const reqs = arg[first];
          if (!Array.isArray(reqs)) {
            add(`The ${first} statement in state '${name}' in SLS '${sls}' needs to be formed as a list`);
          } else {
            for (const req of reqs) {
              if (typeof req === 'string') continue;
              if (!isPlainObject(req)) {
                add(`Requisite declaration ${pyStr(toPy(req))} in SLS ${sls} is not formed as a single key dictionary`);
                continue;
              }
              const rk = Object.keys(req)[0] ?? '';
              if (rk.includes('.')) {
                add(`Invalid requisite type '${rk}' in state '${name}', in SLS '${sls}'. Requisite types must not contain dots, did you mean '${rk.slice(0, rk.indexOf('.'))}'?`);
              }
              const rv = req[rk];
              if (typeof rv === 'object' && rv !== null) add(`Illegal requisite "${pyStr(toPy(rv))}", is SLS ${sls}\n`);
            }
          }
          if (keys.length !== 1) add(`Multiple dictionaries defined in argument of state '${name}' in SLS '${sls}'`);
        }
        if (first === 'order') {
          const o = arg.order;
          if (typeof o !== 'number' && o !== 'first' && o !== 'last') {
            add(`The order '${pyStr(toPy(o))}' of state '${name}' in SLS '${sls}' is not a number, 'first' or 'last'; it is treated as unordered`, 'warning');
          }
        }
      }
      if (fun === 0) {
        if (state === 'require' || state === 'watch') continue;
        add(`No function declared in state '${state}' in SLS '${sls}'`);
      } else if (fun > 1) {
        add(`Too many functions declared in state '${state}' in SLS '${sls}'`);
      }
    }
  }
  return { errors, diagnostics };
}
