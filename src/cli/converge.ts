/**
 * `cairn converge ...`: compiles every file first (so bad input anywhere changes nothing), then runs each
 * file as Converge does, one after another, each run recorded in the run store; with --hosts, the files
 * run so on every selected host, as one recorded run.
 */
import { dirname, resolve } from 'node:path';
import type { GraphIndex } from '../core/graph.js';
import { type ConvergeProgram, compileConverge, formatDot, formatHealth, formatRunReport, graphView, metaBlocks } from '../frontends/converge/index.js';
import { LocalHost } from '../host/local.js';
import type { Host, ResourceContext } from '../host/types.js';
import type { NodeResult, RunMode } from '../core/model.js';
import { emptyCounts, type RunReport, runGraph } from '../core/runtime.js';
import { kinds } from '../resources/index.js';
import type { HostRun } from './fleet-run.js';
import { type FleetOptions, wantsFleet } from './inventory.js';
import type { ConvergeOptions } from './converge-command.js';
import { reportJson } from '../engine/report.js';
import { exitCodeFor } from '../engine/exit-code.js';
import { checkCompiled, preflight, runCompiled } from '../engine/pipeline.js';
import { writeOut } from '../engine/stdio.js';

type Command = 'plan' | 'apply' | 'healthcheck' | 'graph';

function parseParams(list: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  // As converge does, one -p may hold several name=value pairs separated by commas.
  for (const p of list.flatMap((x) => x.split(','))) {
    const i = p.indexOf('=');
    if (i > 0) out.set(p.slice(0, i), p.slice(i + 1));
  }
  return out;
}

/**
 * For each file.directory node, the components of its destination missing now, outermost first, and the
 * nodes whose destination runs through something that is not a directory (Converge cannot stat those).
 */
type Dirs = { missingDirs: Map<string, string[]>; blockedDirs: Map<string, string> };

async function directoryState(
  program: ConvergeProgram,
  host: Host,
  resolved: ReadonlyMap<string, string> = new Map(),
  into: Dirs = { missingDirs: new Map<string, string[]>(), blockedDirs: new Map<string, string>() },
): Promise<Dirs> {
  for (const node of program.graph.nodes) {
    // Only file.directory nodes run as the directory kind: the others are passed over without a lookup.
    if (node.type !== 'directory') continue;
    const path = typeof node.params.path === 'string' ? node.params.path : resolved.get(node.id);
    if (program.types.get(node.id) !== 'file.directory' || path === undefined || into.missingDirs.has(node.id)) continue;
    const missing: string[] = [];
    let p = path;
    for (; p !== '/' && p !== '' && !(await host.stat(p)); p = dirname(p)) missing.unshift(p);
    into.missingDirs.set(node.id, missing);
    if (p !== path && (await host.stat(p))?.type !== 'directory') into.blockedDirs.set(node.id, path);
  }
  return into;
}

/** The paths of directories that came from lookups, as the run resolved them. */
function resolvedPaths(results: readonly NodeResult[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of results) if (typeof r.outputs?.path === 'string') out.set(r.id, r.outputs.path);
  return out;
}

interface Compiled {
  readonly file: string;
  readonly program: ConvergeProgram;
  readonly index: GraphIndex;
}

/** Compiles every file for one host (its facts, its shell for the syntax checks); bad input throws. */
async function compileAll(command: Command, files: readonly string[], params: ReadonlyMap<string, string>, host: Host): Promise<Compiled[]> {
  const programs: Compiled[] = [];
  for (const file of files) {
    const program = await compileConverge(file, params, command, host);
    programs.push({ file, program, index: checkCompiled(program.graph) });
  }
  return programs;
}

/** What one file's run prints, in Converge's format, and its exit code. */
async function present(command: Exclude<Command, 'graph'>, c: Compiled, host: Host, dirs: Dirs, report: RunReport, opts: ConvergeOptions): Promise<{ text: string; exitCode: number }> {
  const { program, index } = c;
  // A directory whose path came from a lookup: a plan changed nothing, so its components can be read now.
  if (report.mode !== 'apply') await directoryState(program, host, resolvedPaths(report.results), dirs);
  const failed = report.results.some((r) => r.result === false);
  if (command === 'healthcheck') {
    const health = formatHealth(program.graph.nodes, report.results, index.before, program.types, dirs);
    // Converge's healthcheck reports a node that cannot change in its block and still exits 0.
    return { text: health.text, exitCode: exitCodeFor({ failed: false, changed: health.unhealthy > 0 }, opts.detailedExitcode) };
  }
  const moduleIds = program.modules.map((m) => m.id);
  const moduleDeps = new Map<string, string[]>();
  for (const e of program.viewEdges) if (moduleIds.includes(e.from)) moduleDeps.set(e.to, [...(moduleDeps.get(e.to) ?? []), e.from]);
  const run = formatRunReport(program.graph.nodes, report.results, program.types, command, { onlyShowChanges: opts.onlyShowChanges, ...dirs, moduleIds, moduleDeps, ...(opts.showMeta ? { meta: metaBlocks(program.modules) } : {}) });
  const changed = report.counts.changed + report.counts.pending + report.counts.unresolvable > 0;
  return { text: run.text, exitCode: exitCodeFor({ failed: failed || run.errors > 0, changed }, opts.detailedExitcode) };
}

const modeOf = (command: Command): RunMode => (command === 'apply' ? 'apply' : 'check');

/**
 * On many hosts: the files are compiled here first (bad input stops the command before any host is
 * touched), then for each host again with that host's facts, and run there one after another, as Converge
 * runs them, stopping at the first file whose run has errors. One recorded run holds every host's results.
 */
async function runOnHosts(command: Exclude<Command, 'graph'>, files: readonly string[], params: ReadonlyMap<string, string>, opts: ConvergeOptions & FleetOptions): Promise<number> {
  const mode = modeOf(command);
  const sources = files.map((f) => resolve(f));
  // Loaded only for a fleet: the remote transports cost a local run their start-up time.
  const { jobsOn, runOnFleet } = await import('./fleet-run.js');
  return runOnFleet(opts, { mode, frontEnd: 'converge', source: sources, json: { command, source: files.length === 1 ? files[0] : files } }, async (host): Promise<HostRun> => {
    const programs = await compileAll(command, files, params, host);
    for (const c of programs) await preflight(c.program.graph, { host, baseDir: dirname(resolve(c.file)) });
    const reports: RunReport[] = [];
    let text = '';
    let failed = false;
    for (const c of programs) {
      const ctx: ResourceContext = { host, baseDir: dirname(resolve(c.file)) };
      const dirs = await directoryState(c.program, host);
      const report = await runGraph(c.program.graph, c.index, { mode, jobs: jobsOn(host, opts.jobs), kinds, ctx });
      const shown = await present(command, c, host, dirs, report, opts);
      reports.push(report);
      text += shown.text;
      failed = shown.exitCode === 1;
      if (failed) break;
    }
    return { ...mergeReports(mode, reports), text, failed };
  });
}

function mergeReports(mode: RunMode, reports: readonly RunReport[]): RunReport {
  const counts = emptyCounts();
  for (const r of reports) for (const k of Object.keys(counts) as Array<keyof typeof counts>) counts[k] += r.counts[k];
  return { mode, results: reports.flatMap((r) => r.results), counts, start: reports[0]?.start ?? new Date().toISOString(), durationMs: reports.reduce((n, r) => n + r.durationMs, 0) };
}

export async function runConverge(command: Command, files: readonly string[], opts: ConvergeOptions & Partial<FleetOptions>): Promise<number> {
  const params = parseParams(opts.params);
  const host = new LocalHost();
  const programs = await compileAll(command, files, params, host);
  if (command === 'graph') {
    for (const { program } of programs) {
      const graphOptions = { showParams: opts.showParams === true };
      writeOut(opts.out === 'json' ? `${JSON.stringify(graphView(program, graphOptions), null, 2)}\n` : formatDot(program, graphOptions));
    }
    return 0;
  }
  if (wantsFleet(opts)) return runOnHosts(command, files, params, opts as ConvergeOptions & FleetOptions);
  for (const { file, program } of programs) {
    await preflight(program.graph, { host, baseDir: dirname(resolve(file)) });
  }
  let code = 0;
  for (const c of programs) {
    const ctx: ResourceContext = { host, baseDir: dirname(resolve(c.file)) };
    const dirs = await directoryState(c.program, host);
    code = await runCompiled({ frontEnd: 'converge', mode: modeOf(command), source: [resolve(c.file)], graph: c.program.graph, index: c.index, ctx }, opts, async (report) => {
      const shown = await present(command, c, host, dirs, report, opts);
      return {
        exitCode: shown.exitCode,
        print: (runId) => writeOut(opts.out === 'json' ? `${JSON.stringify(reportJson(report, runId, { command, source: c.file }), null, 2)}\n` : shown.text),
      };
    });
    // Converge stops at the first file whose run has errors.
    if (code === 1) break;
  }
  return code;
}
