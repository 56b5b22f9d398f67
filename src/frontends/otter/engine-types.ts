/** What every part of one execution shares: options, the pass, drift found, results and locks. */
import type { NodeResult } from '../../core/model.js';
import type { Host } from '../../host/types.js';
import type { Scope } from './scope.js';
import type { Value } from './values.js';
import type { RaftLoader } from './raft.js';

/** collect: ensure operations collect and compare; execute: everything runs; remediate: the pass after a collection. */
export type Pass = 'collect' | 'execute' | 'remediate';
export type Status = 'normal' | 'warning' | 'error';

export interface EngineOptions {
  readonly host: Host;
  /** Absolute working directory of the run. */
  readonly root: string;
  readonly raftDir: string;
  readonly simulation: boolean;
  readonly serverName: string;
  readonly roles: readonly string[];
  readonly environmentName: string;
}

export interface DriftItem {
  readonly operation: string;
  readonly key: string;
  readonly properties: readonly string[];
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
}

/** Where a statement runs: its scope, block, working directory and the directives in force. */
export interface Frame {
  readonly scope: Scope;
  readonly blockId: string;
  readonly cwd: string;
  readonly role: string;
  readonly policyAlways: boolean;
  readonly locked: boolean;
  readonly inLoop: boolean;
  /** Timeouts of enclosing blocks; a statement does not start once one has expired. */
  readonly cancels: readonly { reason?: string }[];
}
