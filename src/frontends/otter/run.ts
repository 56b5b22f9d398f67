/**
 * Runs a parsed script in one of the seed's execution modes: collect only, collect then execute (an
 * execution pass only when the collection found drift), or execute only; simulation is the host's business.
 */
import { Limiter } from '../../core/limit.js';
import type { NodeResult } from '../../core/model.js';
import type { Script } from './ast.js';
import type { DriftItem, EngineOptions, Pass, Shared, Status } from './engine-types.js';
import { Engine } from './executer.js';
import { ExecutionLog, type LogLine } from './log.js';
import { RaftLoader } from './raft.js';
import { Scope } from './scope.js';
import { Secrets } from './secrets.js';
import type { Value } from './values.js';

export type ExecutionMode = 'collect' | 'collect-execute' | 'execute';

export interface OtterRunOptions extends EngineOptions {
  readonly mode: ExecutionMode;
  /** Configuration variables (`--var`, and `--secret-var` whose values are also in `secrets`). */
  readonly variables: ReadonlyMap<string, Value>;
  /** Values never shown: sensitive variables and credential secrets. */
  readonly secrets?: readonly string[];
}

export interface OtterRunResult {
  readonly status: Status;
  readonly log: readonly LogLine[];
  readonly drift: readonly DriftItem[];
  readonly results: readonly NodeResult[];
  /** True when something was changed (or, in a simulation, would have been). */
  readonly changed: boolean;
}

const RANK: Record<Status, number> = { normal: 0, warning: 1, error: 2 };

async function runPass(script: Script, opts: OtterRunOptions, pass: Pass, raft: RaftLoader, secrets: Secrets, collected?: Shared): Promise<{ engine: Engine; shared: Shared }> {
  const shared: Shared = {
    pass,
    options: opts,
    global: new Scope(),
    config: new Map([...opts.variables].map(([k, v]) => [k.toLowerCase(), v])),
    raft,
    drift: [],
    driftKeys: collected?.driftKeys ?? new Set(),
    driftBlocks: collected?.driftBlocks ?? new Set(),
    results: [],
    locks: new Map(),
    asyncSlots: new Limiter(opts.jobs ?? Number.POSITIVE_INFINITY),
    secrets,
  };
  const engine = new Engine(shared);
  await engine.runScript(script);
  return { engine, shared };
}

export async function runOtter(script: Script, opts: OtterRunOptions): Promise<OtterRunResult> {
  const raft = new RaftLoader(opts.raftDir, opts.sources ?? opts.host, opts.rafts);
  const secrets = new Secrets();
  for (const v of opts.secrets ?? []) secrets.add(v);
  if (opts.mode !== 'collect-execute') {
    const { engine, shared } = await runPass(script, opts, opts.mode === 'collect' ? 'collect' : 'execute', raft, secrets);
    return { status: engine.status, log: engine.log.lines, drift: shared.drift, results: shared.results, changed: shared.results.some((r) => r.status === 'changed') };
  }
  const log = new ExecutionLog();
  const first = await runPass(script, opts, 'collect', raft, secrets);
  let close = log.open('Collection pass');
  log.adopt(first.engine.log);
  close();
  let status = first.engine.status;
  const results = [...first.shared.results];
  // Seed: an execution pass follows only when the collection indicated drift (and did not fail).
  if (first.shared.drift.length > 0 && status !== 'error') {
    const second = await runPass(script, opts, 'remediate', raft, secrets, first.shared);
    close = log.open('Execution pass');
    log.adopt(second.engine.log);
    close();
    if (RANK[second.engine.status] > RANK[status]) status = second.engine.status;
    for (const r of second.shared.results) results.push(r);
  }
  return { status, log: log.lines, drift: first.shared.drift, results, changed: results.some((r) => r.status === 'changed') };
}
