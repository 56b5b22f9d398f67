/**
 * `cairn converge ...`: compiles every file first (so bad input anywhere changes nothing), then runs each
 * file as Converge does, one after another, each run recorded in the run store.
 */
import { dirname, resolve } from 'node:path';
import type { GraphIndex } from '../core/graph.js';
import { type ConvergeProgram, compileConverge, formatDot, formatHealth, formatRunReport, graphView, metaBlocks } from '../frontends/converge/index.js';
import { LocalHost } from '../host/local.js';
import type { ResourceContext } from '../host/types.js';
import type { NodeResult } from '../core/model.js';
import type { ConvergeOptions } from './converge-command.js';
import { reportJson } from '../engine/report.js';
import { exitCodeFor } from '../engine/exit-code.js';
import { checkCompiled, preflight, runCompiled } from '../engine/pipeline.js';

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
async function directoryState(
  program: ConvergeProgram,
  host: LocalHost,
  resolved: ReadonlyMap<string, string> = new Map(),
  into = { missingDirs: new Map<string, string[]>(), blockedDirs: new Map<string, string>() },
): Promise<{ missingDirs: Map<string, string[]>; blockedDirs: Map<string, string> }> {
  for (const node of program.graph.nodes) {
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

export async function runConverge(command: Command, files: readonly string[], opts: ConvergeOptions): Promise<number> {
  const params = parseParams(opts.params);
  const programs: Array<{ file: string; program: ConvergeProgram; index: GraphIndex }> = [];
  for (const file of files) {
    const program = compileConverge(file, params, command);
    programs.push({ file, program, index: checkCompiled(program.graph) });
  }
  if (command === 'graph') {
    for (const { program } of programs) {
      const graphOptions = { showParams: opts.showParams === true };
      process.stdout.write(opts.out === 'json' ? `${JSON.stringify(graphView(program, graphOptions), null, 2)}\n` : formatDot(program, graphOptions));
    }
    return 0;
  }
  const host = new LocalHost();
  for (const { file, program } of programs) {
    await preflight(program.graph, { host, baseDir: dirname(resolve(file)) });
  }
  let code = 0;
  for (const { file, program, index } of programs) {
    const mode = command === 'apply' ? 'apply' : 'check';
    const ctx: ResourceContext = { host, baseDir: dirname(resolve(file)) };
    const dirs = await directoryState(program, host);
    code = await runCompiled({ frontEnd: 'converge', mode, source: [resolve(file)], graph: program.graph, index, ctx }, opts, async (report) => {
      // A directory whose path came from a lookup: a plan changed nothing, so its components can be read now.
      if (mode !== 'apply') await directoryState(program, host, resolvedPaths(report.results), dirs);
      const failed = report.results.some((r) => r.result === false);
      let text: string;
      let exitCode: number;
      if (command === 'healthcheck') {
        const health = formatHealth(program.graph.nodes, report.results, index.before, program.types, dirs);
        text = health.text;
        // Converge's healthcheck reports a node that cannot change in its block and still exits 0.
        exitCode = exitCodeFor({ failed: false, changed: health.unhealthy > 0 }, opts.detailedExitcode);
      } else {
        const moduleIds = program.modules.map((m) => m.id);
        const moduleDeps = new Map<string, string[]>();
        for (const e of program.viewEdges) if (moduleIds.includes(e.from)) moduleDeps.set(e.to, [...(moduleDeps.get(e.to) ?? []), e.from]);
        const run = formatRunReport(program.graph.nodes, report.results, program.types, command, { onlyShowChanges: opts.onlyShowChanges, ...dirs, moduleIds, moduleDeps, ...(opts.showMeta ? { meta: metaBlocks(program.modules) } : {}) });
        text = run.text;
        const changed = report.counts.changed + report.counts.pending + report.counts.unresolvable > 0;
        exitCode = exitCodeFor({ failed: failed || run.errors > 0, changed }, opts.detailedExitcode);
      }
      return {
        exitCode,
        print: (runId) => process.stdout.write(opts.out === 'json' ? `${JSON.stringify(reportJson(report, runId, { command, source: file }), null, 2)}\n` : text),
      };
    });
    // Converge stops at the first file whose run has errors.
    if (code === 1) break;
  }
  return code;
}
