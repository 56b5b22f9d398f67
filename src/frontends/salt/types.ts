/**
 * Types shared by the two halves of the Salt front end: render (top file, SLS, pillar, grains → high data)
 * and compile (high data → low chunks → core graph → run → Salt's output).
 *
 * High data here is what `salt-call --local state.show_highstate --out json` prints, split in three so the
 * compiler can walk the IDs without skipping Salt's bookkeeping keys:
 *   - `states`: every ID declaration, in render order (deepest include first), each already normalised the
 *     way Salt's render stage leaves it: `{"__sls__", "__env__", "<module>": [ {arg}, ..., "fun", {"order": n} ]}`
 *     (short declarations `file.managed` are split into module `file` + the function string appended after the
 *     args; `order` is injected when the SLS did not set one; `names` stays a list argument).
 *   - `extend`: Salt's top-level `__extend__` list, one entry per `extend:` block, unmerged.
 *   - `exclude`: Salt's top-level `__exclude__` list (`{sls: x}` / `{id: y}`), unmerged.
 * `showHighstateData()` in render/ rebuilds the exact single dict Salt prints.
 *
 * Caveat of plain objects: an ID that looks like an array index ("10") is enumerated first by JavaScript;
 * the injected `order` keeps the render order for the compiler either way.
 */

import type { Diagnostic, Span } from '../../core/diag.js';
import type { ExecResult, HostFacts, SyncExecOptions } from '../../host/types.js';

/** One element of a state declaration's list: an argument `{name: value}`, the function name, or `{order: n}`. */
export type StateArg = Record<string, unknown> | string;

/** One ID declaration: `__sls__` / `__env__` plus one key per state module (`file`, `pkg`, ...). */
export interface IdDecl {
  __sls__: string;
  __env__: string;
  [stateModule: string]: string | StateArg[];
}

/** An entry of Salt's `__extend__`: `{id: {"__sls__": s, "__env__": e, "<module>": [ {arg}, ..., "fun" ]}}`. */
export type ExtendBlock = Record<string, Record<string, string | StateArg[]>>;

/** An entry of Salt's `__exclude__`. */
export type ExcludeEntry = { sls: string } | { id: string };

/** ID → state declaration, in render order. */
export type HighStates = Record<string, IdDecl>;

export interface HighData {
  states: HighStates;
  /** The same declarations as a Map in render order, when the render has one (cheaper to go over than `states`). */
  ids?: ReadonlyMap<string, IdDecl>;
  extend: ExtendBlock[];
  exclude: ExcludeEntry[];
  /** Where each ID is declared (the source line of its key), for the compiler's positioned diagnostics. */
  spans: Record<string, Span>;
  /** `saltenv:sls` → the file it was read from (absolute path). */
  files: Record<string, string>;
  /** Salt's top-level key order including where `__extend__` / `__exclude__` sit (for show_highstate). */
  keyOrder?: string[];
  /** IDs that were not strings in the SLS (an int, bool, …): their Python type name. */
  idTypes?: Record<string, string>;
  /** IDs declared short (`id: mod.fun`): Salt builds their body as a plain dict, `__sls__` and `__env__` first. */
  shortIds?: string[];
}

export interface SaltOptions {
  /** Roots of the `base` environment (or of `saltenv` when given), searched in order. */
  fileRoots: string[];
  pillarRoots: string[];
  minionId: string;
  saltenv?: string;
  /** `pillar='{...}'` on the command line, merged on top of the rendered pillar. */
  pillarOverride?: Record<string, unknown>;
  test?: boolean;
  /** Several environments: env name → roots. When absent, `fileRoots` is the only env (`base`, or `saltenv`). */
  envRoots?: Record<string, string[]>;
  /** The machine the states are for, when it is not this one: its grains and render-time commands are its own. */
  target?: SaltTarget;
  /** Told the length in characters of each SLS file read for the states, before it is rendered. */
  onSource?: (chars: number) => void;
}

/**
 * A minion that is not the machine running cairn. Rendering is synchronous, so its facts are read before
 * rendering starts, and render-time execution functions (`salt['cmd.run']`, `file.*`, `#!py`) run on it
 * to completion through the host's synchronous exec.
 */
export interface SaltTarget {
  readonly facts: HostFacts;
  readonly execSync: (command: string | readonly string[], options?: SyncExecOptions) => ExecResult;
}

export interface RenderResult {
  high: HighData;
  /** Salt's error strings, as `salt-call --out json` lists them under "local". Non-empty means: do not run. */
  errors: string[];
  /** The same problems with file:line:col (one per error, same order). */
  diagnostics: Diagnostic[];
  /** Highstate only: the top file matched nothing for this minion (`none`), or matched but gave no states
   *  (`empty`). Salt then runs nothing and returns its one `no_|-states_|-states_|-None` result. */
  noStates?: 'none' | 'empty';
}

export interface ShowTopResult {
  /** saltenv → SLS names matched for this minion, as state.show_top prints it. */
  top: Record<string, string[]>;
  errors: string[];
  diagnostics: Diagnostic[];
}

/** The functions render/ offers to the compiler (all synchronous; implemented in render/index.ts). */
export interface SaltRenderApi {
  /** top file → SLS matched for this minion → high data (state.highstate / state.apply / show_highstate). */
  renderHighstate(opts: SaltOptions): RenderResult;
  /** state.sls / state.show_sls: the named SLS (and their includes) in `opts.saltenv ?? 'base'`. */
  renderSls(mods: string[], opts: SaltOptions): RenderResult;
  showTop(opts: SaltOptions): ShowTopResult;
  /** Pillar for this minion: pillar top → pillar SLS (Jinja+YAML) deep-merged, then `pillarOverride`. */
  loadPillar(opts: SaltOptions): Record<string, unknown>;
  /** The grains of the machine whose facts are given, else this machine's (cached per process). */
  grains(facts?: HostFacts): Record<string, unknown>;
  /** A `template: jinja` source of file.managed, rendered with Salt's context plus `ctxExtra`
   *  (the state's `context`/`defaults`). Throws DiagnosticError positioned in `file` on a template error. */
  renderTemplateFile(text: string, file: string, ctxExtra: Record<string, unknown>, opts: SaltOptions): string;
  /** `salt://a/b` → an existing path inside the file roots of `saltenv`; a Diagnostic when missing or escaping. */
  resolveSaltUrl(url: string, opts: SaltOptions, saltenv: string): string | Diagnostic;
  /** Salt's verify_high on (extended) high data: structure errors ("State 'x' in SLS 'y' is not formed as a
   *  list", "No function declared ...", requisite shapes), positioned at the ID. Call after reconciling extend. */
  verifyHigh(high: HighData): { errors: string[]; diagnostics: Diagnostic[] };
  /** The single dict `state.show_highstate --out json` prints under "local". */
  showHighstateData(high: HighData): Record<string, unknown>;
}
