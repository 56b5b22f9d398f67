/** What every part of one execution shares: options, the pass, drift found, results and locks. */
import type { Limiter } from '../../core/limit.js';
import type { NodeResult } from '../../core/model.js';
import type { Host } from '../../host/types.js';
import type { Scope } from './scope.js';
import type { Value } from './values.js';
import type { RaftLoader } from './raft.js';
import type { Secrets } from './secrets.js';
import type { LogLevel } from './ast.js';

/** collect: ensure operations collect and compare; execute: everything runs; remediate: the pass after a collection. */
export type Pass = 'collect' | 'execute' | 'remediate';
export type Status = 'normal' | 'warning' | 'error';

/** A server an execution acts on: its name, the host its operations act through, and its roles. */
export interface ServerContext {
  readonly name: string;
  readonly host: Host;
  readonly roles: readonly string[];
}

/** The servers a `for server NAME` may switch to (an inventory); without one, only the execution's own. */
export interface ServerDirectory {
  /** Every server, in inventory order (`$AllServers`). */
  readonly names: readonly string[];
  /** The server of that name (case-insensitive), its host connected on first use; undefined when unknown. */
  server(name: string): ServerContext | undefined;
  /** The roles of a server (case-insensitive name); empty when unknown. */
  rolesOf(name: string): readonly string[];
}

export interface EngineOptions {
  readonly host: Host;
  /** Where raft items (modules, scripts, templates) are read: the controller when the host is another machine; `host` when absent. */
  readonly sources?: Host;
  /** The servers `for server` may switch to; absent, an execution stays on its own server. */
  readonly servers?: ServerDirectory;
  /** Absolute working directory of the run. */
  readonly root: string;
  readonly raftDir: string;
  readonly simulation: boolean;
  readonly serverName: string;
  readonly roles: readonly string[];
  readonly environmentName: string;
  /** Named rafts (`--raft NAME=DIR`); the default raft is `raftDir`. */
  readonly rafts?: ReadonlyMap<string, string>;
  /** Directory of the lock files that make `!token` locks hold across processes; in-process only when absent. */
  readonly lockDir?: string;
  /** Named credentials (`with credentials=NAME`): user name and secret. */
  readonly credentials?: ReadonlyMap<string, { readonly userName: string; readonly password: string }>;
  /** Most `with async` blocks running at once (`--jobs`); the others start as those finish. */
  readonly jobs?: number;
  /**
   * The lowest level of message the caller shows: lower ones are not kept in the log (they still count
   * for the status as every message does). Absent, every message is kept.
   */
  readonly keepLogFrom?: LogLevel;
}

/** What differs in one drifted property: the wanted and the found value, and a unified diff for text content. */
export interface DriftDetail {
  readonly property: string;
  readonly expected?: string;
  readonly actual?: string;
  readonly diff?: string;
}

export interface DriftItem {
  readonly operation: string;
  readonly key: string;
  readonly properties: readonly string[];
  readonly details?: readonly DriftDetail[];
}

export interface Shared {
  readonly pass: Pass;
  readonly options: EngineOptions;
  readonly global: Scope;
  readonly config: Map<string, Value>;
  readonly raft: RaftLoader;
  /** Filled by a collection pass; read by the remediation pass that follows it. */
  readonly drift: DriftItem[];
  readonly driftKeys: Set<string>;
  readonly driftBlocks: Set<string>;
  readonly results: NodeResult[];
  readonly locks: Map<string, Promise<void>>;
  /** Bounds the `with async` blocks running at once. */
  readonly asyncSlots: Limiter;
  /** Values never printed: secrets are masked in every log line. */
  readonly secrets: Secrets;
}

/** Where a statement runs: its scope, block, working directory and the directives in force. */
export interface Frame {
  readonly scope: Scope;
  readonly blockId: string;
  /**
   * Which run of a block this is: the loop iterations and module call sites on the way here. The
   * execution pass meets the same instances in the same order, so drift is matched per iteration and call.
   */
  readonly instance: string;
  readonly cwd: string;
  readonly role: string;
  /** The server in context: `for server NAME` switches it, and operations act through its host. */
  readonly server: ServerContext;
  readonly policyAlways: boolean;
  readonly locked: boolean;
  readonly inLoop: boolean;
  /** Timeouts of enclosing blocks; a statement does not start once one has expired. */
  readonly cancels: readonly Cancel[];
  /** Credentials named by an enclosing `with credentials=`; undefined outside such a block. */
  readonly credentials?: string;
  /** Module calls in progress (the depth limit of a recursive module). */
  readonly depth: number;
}

/** One `with timeout`: its deadline, and the controller aborted when it expires. */
export interface Cancel {
  reason?: string;
  readonly deadline: number;
  readonly controller: AbortController;
}
