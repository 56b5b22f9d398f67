/**
 * `cairn salt state.apply [SLS] --hosts PATTERN`: Salt on many minions over SSH, as `salt '*' state.apply`
 * (or salt-ssh) does it. Each selected inventory host is a minion whose id is its inventory name: its facts
 * are read first and become its grains, then the top file, pillar and SLS are rendered for it on the
 * controller (render-time commands run on the minion), and its states act on it; `salt://` files are read
 * here and written there. One recorded run holds every minion's results, each marked with its host.
 */
import { formatDiagnostic } from '../core/diag.js';
import type { NodeResult } from '../core/model.js';
import { countResults, type RunReport } from '../core/runtime.js';
import { UserError } from '../engine/errors.js';
import { fleetExitCode, type FleetTotals, type HostOutcome, runOnHosts, totalsLine } from '../engine/fanout.js';
import { withRunStore } from '../engine/session.js';
import { compile } from '../frontends/salt/compile/index.js';
import { formatMinions, type OutputSettings } from '../frontends/salt/output/index.js';
import { nodeResult, runChunks, runSucceeded } from '../frontends/salt/run/index.js';
import { knownFunction } from '../frontends/salt/states/index.js';
import type { SaltOptions } from '../frontends/salt/types.js';
import { hostsFor } from '../host/fleet.js';
import { LocalHost } from '../host/local.js';
import type { Host } from '../host/types.js';
import { defaultStateDir, ensureStateDir } from '../store/index.js';
import { fanoutOptions, type FleetOptions, fleetSecurity, hostPattern, selectFromInventory } from './inventory.js';
import { type Call, excludeArg, loadConfig, noStatesResult, outputSettings, parseCall, renderFor, saltOptions, translateContext } from './salt.js';
import type { SaltCliOptions } from './salt-command.js';

const FLEET_FUNCTIONS = ['state.apply', 'state.sls', 'state.highstate', 'state.test'];

/** What one minion returned: Salt's running dict, or its error list when its data failed to compile. */
interface MinionReturn {
  readonly data: Record<string, unknown> | string[];
  readonly failed: boolean;
  readonly diagnostics: string[];
}

/** The render, compile and run of one minion; its Salt data goes to `returns`, its records to the report. */
async function applyOnMinion(host: Host, call: Call, opts: SaltCliOptions, base: SaltOptions, conf: ReturnType<typeof loadConfig>, returns: Map<string, MinionReturn>): Promise<RunReport> {
  const started = Date.now();
  const start = new Date(started).toISOString();
  const facts = await host.facts();
  const execSync = host.execSync?.bind(host);
  if (!execSync) throw new Error(`${host.name} cannot run render-time commands`);
  const so: SaltOptions = { ...base, minionId: host.name, target: { facts, execSync } };
  const test = so.test === true;
  const report = (results: NodeResult[]): RunReport => ({ mode: test ? 'check' : 'apply', results, counts: countResults(results), start, durationMs: Date.now() - started });
  const refuse = (errors: string[], diagnostics: readonly Parameters<typeof formatDiagnostic>[0][]): RunReport => {
    returns.set(host.name, { data: errors, failed: true, diagnostics: diagnostics.map((d) => formatDiagnostic(d)) });
    return report([]);
  };
  const rendered = renderFor(call, opts, so);
  if (call.kwargs.exclude !== undefined) rendered.high.exclude.push(...excludeArg(call.kwargs.exclude));
  if (rendered.errors.length > 0) return refuse(rendered.errors, rendered.diagnostics);
  if (rendered.noStates) {
    const data = noStatesResult(rendered.noStates);
    returns.set(host.name, { data, failed: true, diagnostics: [] });
    return report(Object.entries(data).map(([tag, r]) => nodeResult(tag, r as Parameters<typeof nodeResult>[1], test)));
  }
  const compiled = compile(rendered.high, { requisiteIn: true, knownFunction, checkRequisites: true });
  if (compiled.errors.length > 0) return refuse(compiled.errors, compiled.diagnostics);
  const uid = facts.user?.uid;
  const run = await runChunks(compiled.chunks, {
    test,
    failhard: conf.failhard === true,
    ctx: { host, sources: new LocalHost(), baseDir: process.cwd() },
    translate: { ...translateContext(so, conf, rendered.high), isRoot: uid === 0 },
  });
  returns.set(host.name, { data: run.running, failed: !runSucceeded(run.running, compiled.chunks), diagnostics: compiled.warnings.map((w) => formatDiagnostic(w)) });
  return report(run.results);
}

type MinionClass = 'changed' | 'ok' | 'failed' | 'unreachable';

function classOf(o: HostOutcome<RunReport>, returns: ReadonlyMap<string, MinionReturn>): MinionClass {
  if (o.status !== 'done') return o.status === 'unreachable' ? 'unreachable' : 'failed';
  if (returns.get(o.host)?.failed !== false) return 'failed';
  return o.value.counts.changed + o.value.counts.pending > 0 ? 'changed' : 'ok';
}

function totals(outcomes: readonly HostOutcome<RunReport>[], returns: ReadonlyMap<string, MinionReturn>): FleetTotals {
  const t = { hosts: outcomes.length, changed: 0, ok: 0, failed: 0, unreachable: 0 };
  for (const o of outcomes) t[classOf(o, returns)] += 1;
  return t;
}

/** What Salt shows for a minion that gave nothing back. */
function noReturn(o: HostOutcome<RunReport>): string {
  return o.status === 'unreachable' ? 'Minion did not return. [Not connected]' : 'Minion did not return. [No response]';
}

function print(outcomes: readonly HostOutcome<RunReport>[], returns: ReadonlyMap<string, MinionReturn>, opts: SaltCliOptions, settings: OutputSettings, runId: number): void {
  const byMinion: Record<string, unknown> = {};
  for (const o of outcomes) {
    if (o.status === 'unreachable' && opts.out === 'highstate') continue;
    byMinion[o.host] = returns.get(o.host)?.data ?? noReturn(o);
  }
  if (opts.out !== 'quiet') process.stdout.write(`${formatMinions(byMinion, opts.out, settings)}\n`);
  // The positioned diagnostics and warnings of each minion, once each.
  const seen = new Set<string>();
  for (const o of outcomes) {
    for (const d of returns.get(o.host)?.diagnostics ?? []) {
      if (seen.has(d)) continue;
      seen.add(d);
      process.stderr.write(`${d}\n`);
    }
  }
  // The fleet's own lines: on stdout after the highstate text, on stderr when stdout is data.
  const lines: string[] = [];
  for (const o of outcomes) if (o.status === 'failed') lines.push(`${o.host}: ${o.reason}`);
  const unreachable = outcomes.filter((o) => o.status === 'unreachable');
  if (unreachable.length > 0) lines.push('unreachable:', ...unreachable.map((o) => `  ${o.host}: ${o.status === 'unreachable' ? o.reason : ''}`));
  lines.push(`${totalsLine(totals(outcomes, returns))} (run ${runId})`);
  (opts.out === 'highstate' ? process.stdout : process.stderr).write(`${lines.join('\n')}\n`);
}

/** On a terminal, one line per minion as it finishes; silent when piped. */
function progressLine(returns: ReadonlyMap<string, MinionReturn>): ((o: HostOutcome<unknown>) => void) | undefined {
  if (!process.stderr.isTTY || process.env.CI) return undefined;
  let done = 0;
  return (o) => {
    done += 1;
    const outcome = o as HostOutcome<RunReport>;
    const why = outcome.status === 'done' ? '' : `: ${outcome.reason}`;
    process.stderr.write(`[${done}] ${o.host}: ${classOf(outcome, returns)}${why} (${(o.durationMs / 1000).toFixed(1)} s)\n`);
  };
}

export async function runSaltOnHosts(fun: string, args: readonly string[], opts: SaltCliOptions & FleetOptions): Promise<number> {
  if (!FLEET_FUNCTIONS.includes(fun)) throw new UserError(`${fun} does not run on --hosts yet (${FLEET_FUNCTIONS.join(', ')} do)`);
  if (opts.id !== undefined) throw new UserError('--id names one minion: with --hosts each minion\'s id is its inventory name');
  const call = parseCall(fun, args);
  const conf = loadConfig(opts);
  const base = saltOptions(opts, call, conf);
  const settings = outputSettings(opts, conf);
  // What does not depend on the minion (no SLS named) fails before any host is contacted.
  if (['state.sls'].includes(fun) && call.positional.length === 0 && call.kwargs.mods === undefined) throw new UserError(`${fun} needs the SLS to apply, e.g. cairn salt ${fun} webserver --hosts web`);
  const { inventory, selected } = await selectFromInventory(opts);
  const stateDir = ensureStateDir(opts.stateDir ?? defaultStateDir());
  const hosts = hostsFor(selected, inventory, fleetSecurity(opts, stateDir));
  const returns = new Map<string, MinionReturn>();
  const mode = base.test === true ? 'check' : 'apply';
  const meta = { mode, source: [...(opts.highData ? [opts.highData] : base.fileRoots), `--hosts ${hostPattern(opts)}`], frontEnd: 'salt' } as const;
  return withRunStore({ store: opts.store, stateDir, lockTimeout: opts.lockTimeout }, meta, async () => {
    const outcomes = await runOnHosts(hosts, { ...fanoutOptions(opts), onDone: progressLine(returns) }, (host) => applyOnMinion(host, call, opts, base, conf, returns));
    const t = totals(outcomes, returns);
    return {
      results: outcomes.flatMap((o) => (o.status === 'done' ? o.value.results.map((r) => ({ ...r, host: o.host })) : [])),
      exitCode: fleetExitCode(t, opts.detailedExitcode === true),
      print: (runId) => print(outcomes, returns, opts, settings, runId),
    };
  });
}
