/** `cairn plan|apply|collect GRAPH`: load, validate, lock, run, record, print. */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DiagnosticError } from '../core/diag.js';
import type { Graph, GraphIndex } from '../core/graph.js';
import type { RunMode } from '../core/model.js';
import { checkGraph, preflightGraph, type RunReport, runGraph } from '../core/runtime.js';
import { parseGraphText } from '../frontends/graph/load.js';
import { LocalHost } from '../host/local.js';
import { SimulatedHost } from '../host/simulated.js';
import type { Host, ResourceContext } from '../host/types.js';
import { kinds } from '../resources/index.js';
import { UserError } from './errors.js';
import type { CommonOptions } from './main.js';
import { printReport } from './report.js';
import { withRunStore } from './session.js';

function readSource(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : ((e as Error).message ?? String(e));
    throw new UserError(`cannot read graph file ${file}: ${why}`);
  }
}

/** Reads and checks a graph file; the index comes from the same check, so it is done once. */
export async function loadGraph(file: string, options: { withSpans?: boolean } = {}): Promise<{ graph: Graph; index: GraphIndex }> {
  let index: GraphIndex | undefined;
  const graph = await parseGraphText(
    file,
    readSource(file),
    (g) => {
      const checked = checkGraph(g, kinds);
      index = checked.index;
      return checked.diagnostics;
    },
    options,
  );
  if (!index) throw new Error('graph passed the load check without an index');
  return { graph, index };
}

/** Exit code of a finished run, as DESIGN.md has it. */
export function exitCodeOf(report: RunReport, detailed: boolean): number {
  const c = report.counts;
  if (c.failed > 0 || report.results.some((r) => r.result === false)) return 1;
  if (detailed && c.changed + c.pending > 0) return 2;
  return 0;
}

export async function runGraphFile(file: string, mode: RunMode, opts: CommonOptions): Promise<number> {
  const { graph, index } = await loadGraph(file);
  const local: Host = new LocalHost();
  const host: Host = mode === 'simulate' ? new SimulatedHost(local) : local;
  const ctx: ResourceContext = { host, baseDir: dirname(resolve(file)) };
  if ((await preflightGraph(graph, kinds, ctx)).length > 0) {
    // The fast load keeps no positions; read the file again with them so the report points at the params.
    throw new DiagnosticError(await preflightGraph((await loadGraph(file, { withSpans: true })).graph, kinds, ctx));
  }
  return withRunStore(opts, { mode, source: [file], frontEnd: 'graph' }, async (progress) => {
    const report = await runGraph(graph, index, {
      mode,
      jobs: opts.jobs,
      kinds,
      ctx,
      onStart: progress.onStart,
      onResult: progress.onResult,
    });
    const exitCode = exitCodeOf(report, opts.detailedExitcode);
    return { results: report.results, exitCode, edges: graph.edges, print: (runId) => printReport(report, opts.out, runId, { source: file }) };
  });
}
