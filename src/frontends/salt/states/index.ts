/** Every Salt state function cairn implements, by `state.fun`. */
import { groupStates, pkgStates, userStates } from './accounts.js';
import { archiveStates } from './archive.js';
import { cmdStates } from './cmd.js';
import { cronStates } from './cron.js';
import { fileStates } from './file.js';
import { gitStates } from './git.js';
import { hostStates } from './host.js';
import { serviceStates } from './service.js';
import { TEST_FUNCTIONS, testState } from './test.js';
import type { StateImpl } from './types.js';

const modules: Record<string, Record<string, StateImpl>> = {
  file: fileStates,
  cmd: cmdStates,
  pkg: pkgStates,
  user: userStates,
  group: groupStates,
  service: serviceStates,
  host: hostStates,
  cron: cronStates,
  archive: archiveStates,
  git: gitStates,
  test: Object.fromEntries(TEST_FUNCTIONS.map((f) => [f, testState])),
};

export function stateImpl(state: string, fun: string): StateImpl | undefined {
  const mod = modules[state];
  return mod && Object.hasOwn(mod, fun) ? mod[fun] : undefined;
}

/** Every implemented `state.fun`, sorted (the docs list them). */
export function stateFunctions(): string[] {
  return Object.entries(modules)
    .flatMap(([state, funs]) => Object.keys(funs).map((fun) => `${state}.${fun}`))
    .sort();
}

export function knownFunction(state: string, fun: string): boolean {
  return fun === 'mod_watch' ? state in modules : stateImpl(state, fun) !== undefined;
}

export type { FinishContext, SaltRet, StateImpl, TranslateContext, Translation } from './types.js';
