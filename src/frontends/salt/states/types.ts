/** How a Salt state function maps onto a shared resource kind, and how its result is worded. */
import type { Host } from '../../../host/types.js';
import type { Chunk } from '../compile/index.js';
import type { SaltOptions } from '../types.js';

/** A Salt state return before the runtime keys are added. */
export interface SaltRet {
  result: boolean | null;
  comment: string;
  changes: Record<string, unknown>;
}

export interface TranslateContext {
  readonly opts: SaltOptions;
  readonly pillar: () => Record<string, unknown>;
  /** Reports a refused argument (the state fails with `message`); the CLI points at the argument's line. */
  readonly warn?: (chunk: Chunk, arg: string, message: string) => void;
  /** A minion config option (config.option), e.g. `hosts.file`. */
  readonly config?: (key: string) => unknown;
  /** This minion's grains (contents_grains). */
  readonly grains?: () => Record<string, unknown>;
  readonly renderTemplate: (text: string, file: string, ctxExtra: Record<string, unknown>) => string;
  /** `salt://…` → a path inside the file roots, or an error message. */
  readonly resolveUrl: (url: string, saltenv: string) => string | { error: string };
  readonly readText: (path: string) => string;
  readonly isRoot: boolean;
  /** Every low chunk of the run (Salt's __lowstate__), for file.directory's clean. */
  readonly lowstate?: readonly Chunk[];
}

/** A node's resource: shared kind type plus params; `fail` makes the state fail with that comment. */
export type Translation = { type: string; params: Record<string, unknown> } | { fail: string; arg?: string };

export interface FinishContext {
  readonly test: boolean;
}

/** What a state function that acts by itself (not through one shared kind) is given. */
export interface CallContext {
  readonly host: Host;
  readonly translate: TranslateContext;
  readonly test: boolean;
  /** Another state function's call, as Salt's state modules call each other (file.recurse → file.managed). */
  invoke(low: Chunk): Promise<SaltRet>;
}

export interface StateImpl {
  /** The shared kind and params the state maps onto (a state with `call` has none). */
  translate?(chunk: Chunk, ctx: TranslateContext): Translation;
  /** A state function that composes others or acts through the host itself (file.recurse, archive.extracted, git.latest); undefined: the translation applies. */
  call?(chunk: Chunk, ctx: CallContext): Promise<SaltRet | undefined>;
  /** Whether `call` has anything to do for the chunk (when false it would return undefined); default: always. */
  calls?(chunk: Chunk): boolean;
  /** Salt's wording of a finished node's result, where it differs from the shared kind's. */
  finish?(chunk: Chunk, ret: SaltRet, ctx: FinishContext): SaltRet;
  /** The state has a mod_watch (cmd, test); otherwise Salt treats watch as require. */
  readonly modWatch?: boolean;
  /** The order of name/changes/result/comment in the function's return dict (Salt's JSON keeps it); default name, changes, result, comment. */
  readonly retOrder?: readonly RetKey[];
}

export type RetKey = 'name' | 'changes' | 'result' | 'comment';
/** `ret = {"name": name, "changes": {}, "result": True, "comment": ""}`, the usual start of a Salt state function. */
export const NCRC: readonly RetKey[] = ['name', 'changes', 'result', 'comment'];
