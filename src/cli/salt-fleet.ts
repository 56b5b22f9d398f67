/**
 * `cairn salt state.apply [SLS] --hosts PATTERN`: Salt on many minions over SSH, as `salt '*' state.apply`
 * (or salt-ssh) does it. Each selected inventory host is a minion whose id is its inventory name: its facts
 * are read first and become its grains, then the top file, pillar and SLS are rendered for it on the
 * controller (render-time commands run on the minion), and its states act on it; `salt://` files are read
 * here and written there. One recorded run holds every minion's results, each marked with its host.
 */
import { type Diagnostic, formatDiagnostic } from '../core/diag.js';
import type { NodeResult } from '../core/model.js';
import { countResults, type RunReport } from '../core/runtime.js';
import { UserError } from '../engine/errors.js';
import { fleetExitCode, type FleetTotals, type HostOutcome, runOnHosts, totalsLine } from '../engine/fanout.js';
import { compile } from '../frontends/salt/compile/index.js';
import { formatMinions, type OutputSettings } from '../frontends/salt/output/index.js';
import { nodeResult, runChunks, runSucceeded } from '../frontends/salt/run/index.js';
import { knownFunction } from '../frontends/salt/states/index.js';
import type { SaltOptions } from '../frontends/salt/types.js';
import { hostsFor } from '../host/fleet.js';
import { LocalHost } from '../host/local.js';
import type { Host } from '../host/types.js';
import { defaultStateDir, ensureStateDir } from '../store/index.js';
import { reportResults, runFleet } from './fleet-run.js';
import { type HostClass, totalsOf } from './hosts-report.js';
import { fanoutOptions, type FleetOptions, fleetSecurity, hostPattern, selectFromInventory } from './inventory.js';
import * as render from '../frontends/salt/render/index.js';
import { type Call, excludeArg, loadConfig, noStatesResult, outputSettings, parseCall, renderFor, saltOptions, pillarMask, showData, translateContext } from './salt.js';
import type { SaltCliOptions } from './salt-command.js';
import { writeErr, writeOut } from '../engine/stdio.js';

const FLEET_FUNCTIONS = ['state.apply', 'state.sls', 'state.highstate', 'state.test'];
/** What a minion would get, shown per minion id; nothing runs and no run is recorded. */
const SHOW_FUNCTIONS = ['state.show_top', 'state.show_highstate', 'state.show_sls', 'state.show_lowstate', 'state.show_low_sls', 'state.show_states'];

/** What one minion returned: Salt's running dict (or show data), or its error list when its data failed to compile. */
interface MinionReturn {
  readonly data: unknown;
  readonly failed: boolean;
  readonly diagnostics: string[];
}

/** The minion's options: its id, and its facts and commands for the render. */
async function minionOptions(host: Host, base: SaltOptions): Promise<SaltOptions> {
  const facts = await host.facts();
  const execSync = host.execSync?.bind(host);
  if (!execSync) throw new Error(`${host.name} cannot run render-time commands`);
  return { ...base, minionId: host.name, target: { facts, execSync } };
}

/** A state.show_* function on one minion: its data, or its errors (as Salt's list). */
async function showOnMinion(host: Host, fun: string, call: Call, opts: SaltCliOptions, base: SaltOptions): Promise<MinionReturn> {
  const so = await minionOptions(host, base);
  const asErrors = (errors: string[], diagnostics: readonly Diagnostic[]): MinionReturn => ({ data: errors, failed: true, diagnostics: diagnostics.map((d) => formatDiagnostic(d)) });
  if (fun === 'state.show_top') {
    const top = render.showTop(so);
    return top.errors.length > 0 ? asErrors(top.errors, top.diagnostics) : { data: top.top, failed: false, diagnostics: [] };
  }
  const rendered = renderFor(call, opts, so);
  if (rendered.errors.length > 0) return asErrors(rendered.errors, rendered.diagnostics);
  const shown = showData(fun, rendered, opts.highData !== undefined);
  if (!shown) throw new Error(`${fun} is not a show function`);
  if ('errors' in shown) return asErrors(shown.errors, shown.diagnostics);
  return { data: shown.data, failed: false, diagnostics: [] };
}

async function showOnHosts(hosts: Host[], fun: string, call: Call, opts: SaltCliOptions & FleetOptions, base: SaltOptions, settings: OutputSettings): Promise<number> {
  const outcomes = await runOnHosts(hosts, fanoutOptions(opts), (host) => showOnMinion(host, fun, call, opts, base));
  const byMinion: Record<string, unknown> = {};
  const t = { hosts: outcomes.length, changed: 0, ok: 0, failed: 0, unreachable: 0 };
  for (const o of outcomes) {
    byMinion[o.host] = o.status === 'done' ? o.value.data : noReturn(o);
    if (o.status === 'unreachable') t.unreachable += 1;
    else if (o.status === 'failed' || o.value.failed) t.failed += 1;
    else t.ok += 1;
  }
  const ordered = fun === 'state.show_top' ? 'top' : fun === 'state.show_highstate' || fun === 'state.show_sls' ? 'high' : false;
  if (opts.out !== 'quiet') writeOut(`${formatMinions(byMinion, opts.out, settings, { show: true, ordered })}\n`);
  printOnce(outcomes.map((o) => (o.status === 'done' ? o.value.diagnostics : [])));
  const lines = outcomes.flatMap((o) => (o.status === 'done' ? [] : [`${o.status === 'unreachable' ? 'unreachable' : 'failed'}: ${o.host}: ${o.reason}`]));
  writeErr([...lines, totalsLine(t)].join('\n') + '\n');
  return fleetExitCode(t, false);
}

/** The render, compile and run of one minion; its Salt data goes to `returns`, its records to the report. */
async function applyOnMinion(
  host: Host,
  call: Call,
  opts: SaltCliOptions,
  base: SaltOptions,
  conf: ReturnType<typeof loadConfig>,
  returns: Map<string, MinionReturn>,
  unstored: Set<string>,
): Promise<RunReport> {
  const started = Date.now();
  const start = new Date(started).toISOString();
  const so = await minionOptions(host, base);
  const facts = so.target?.facts;
  const test = so.test === true;
  const report = (results: NodeResult[]): RunReport => ({ mode: test ? 'check' : 'apply', results, counts: countResults(results), start, durationMs: Date.now() - started });
  const refuse = (errors: string[], diagnostics: readonly Diagnostic[]): RunReport => {
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
  // The state caller turns what goes wrong in a state into that state's failed result.
  const run = await runChunks(compiled.chunks, {
    test,
    failhard: conf.failhard === true,
    ctx: { host, sources: new LocalHost(), baseDir: process.cwd() },
    translate: { ...translateContext(so, conf, rendered.high), isRoot: facts?.user?.uid === 0 },
  });
  returns.set(host.name, { data: run.running, failed: !runSucceeded(run.running, compiled.chunks, run.results), diagnostics: compiled.warnings.map((w) => formatDiagnostic(w)) });
  // The run store gets the results with this minion's pillar values masked; the output is Salt's.
  const mask = pillarMask(so);
  for (const v of mask.unstored) unstored.add(v);
  return report(run.results.map(mask.keep));
}

function classOf(o: HostOutcome<RunReport>, returns: ReadonlyMap<string, MinionReturn>): HostClass {
  if (o.status !== 'done') return o.status === 'unreachable' ? 'unreachable' : 'failed';
  if (returns.get(o.host)?.failed !== false) return 'failed';
  return o.value.counts.changed + o.value.counts.pending > 0 ? 'changed' : 'ok';
}

function totals(outcomes: readonly HostOutcome<RunReport>[], returns: ReadonlyMap<string, MinionReturn>): FleetTotals {
  return totalsOf(outcomes, (o) => classOf(o, returns));
}

/** The positioned diagnostics and warnings of every minion on stderr, each once (minions share their files). */
function printOnce(perMinion: ReadonlyArray<readonly string[]>): void {
  for (const d of new Set(perMinion.flat())) writeErr(`${d}\n`);
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
  if (opts.out !== 'quiet') writeOut(`${formatMinions(byMinion, opts.out, settings)}\n`);
  printOnce(outcomes.map((o) => returns.get(o.host)?.diagnostics ?? []));
  // The fleet's own lines: on stdout after the highstate text, on stderr when stdout is data.
  const lines: string[] = [];
  for (const o of outcomes) if (o.status === 'failed') lines.push(`${o.host}: ${o.reason}`);
  const unreachable = outcomes.filter((o) => o.status === 'unreachable');
  if (unreachable.length > 0) lines.push('unreachable:', ...unreachable.map((o) => `  ${o.host}: ${o.status === 'unreachable' ? o.reason : ''}`));
  lines.push(`${totalsLine(totals(outcomes, returns))} (run ${runId})`);
  (opts.out === 'highstate' ? writeOut : writeErr)(`${lines.join('\n')}\n`);
}

export async function runSaltOnHosts(fun: string, args: readonly string[], opts: SaltCliOptions & FleetOptions): Promise<number> {
  if (!FLEET_FUNCTIONS.includes(fun) && !SHOW_FUNCTIONS.includes(fun)) throw new UserError(`${fun} does not run on --hosts yet (${[...FLEET_FUNCTIONS, ...SHOW_FUNCTIONS].join(', ')} do)`);
  if (opts.id !== undefined) throw new UserError('--id names one minion: with --hosts each minion\'s id is its inventory name');
  const call = parseCall(fun, args);
  const conf = loadConfig(opts);
  const base = saltOptions(opts, call, conf);
  const settings = outputSettings(opts, conf);
  // What does not depend on the minion (no SLS named) fails before any host is contacted.
  if (['state.sls', 'state.show_sls', 'state.show_low_sls'].includes(fun) && call.positional.length === 0 && call.kwargs.mods === undefined) throw new UserError(`${fun} needs the SLS to apply, e.g. cairn salt ${fun} webserver --hosts web`);
  const { inventory, selected } = await selectFromInventory(opts);
  if (SHOW_FUNCTIONS.includes(fun)) {
    const hosts = hostsFor(selected, inventory, fleetSecurity(opts, ensureStateDir(opts.stateDir ?? defaultStateDir())));
    return showOnHosts(hosts, fun, call, opts, base, settings);
  }
  const returns = new Map<string, MinionReturn>();
  const unstored = new Set<string>();
  return runFleet<RunReport>({ ...opts, detailedExitcode: opts.detailedExitcode === true }, inventory, selected, {
    mode: base.test === true ? 'check' : 'apply',
    frontEnd: 'salt',
    source: [...(opts.highData ? [opts.highData] : base.fileRoots), `--hosts ${hostPattern(opts)}`],
    run: (host) => applyOnMinion(host, call, opts, base, conf, returns, unstored),
    classify: (o) => classOf(o, returns),
    results: reportResults,
    unstored: () => [...unstored].sort((a, b) => b.length - a.length),
    print: (outcomes, _totals, runId) => print(outcomes, returns, opts, settings, runId),
  });
}
