/**
 * The run pipeline of every front end that compiles to a graph (the graph file, Converge, Inmanta, Salt):
 * check the compiled graph, preflight it against the target, then lock and record the run, run it, and
 * hand the report to the front end's printer. Imperative front ends use the step driver instead.
 */
import { DiagnosticError } from '../core/diag.js';
import type { Graph, GraphIndex } from '../core/graph.js';
import type { GraphNode, NodeResult, ResourceKind, RunMode } from '../core/model.js';
import { checkGraph, preflightGraph, type RunReport, runGraph } from '../core/runtime.js';
import type { ResourceContext } from '../host/types.js';
import { kinds } from '../resources/index.js';
import { exitCodeFor } from './exit-code.js';
import type { RunOptions } from './run-options.js';
import { withRunStore } from './session.js';

/** Indexes and validates a compiled graph; bad params or edges stop the command with diagnostics. */
export function checkCompiled(graph: Graph): GraphIndex {
  const checked = checkGraph(graph, kinds);
  if (!checked.index) throw new DiagnosticError(checked.diagnostics);
  return checked.index;
}

/** Read-only checks against the target (source files present, …) before anything changes. */
export async function preflight(graph: Graph, ctx: ResourceContext): Promise<void> {
  const problems = await preflightGraph(graph, kinds, ctx);
  if (problems.length > 0) throw new DiagnosticError(problems);
}

export interface CompiledRun {
  readonly frontEnd: string;
  readonly mode: RunMode;
  /** Absolute paths of what the run was compiled from. */
  readonly source: readonly string[];
  readonly graph: Graph;
  readonly index: GraphIndex;
  readonly ctx: ResourceContext;
  readonly label?: (node: GraphNode) => string;
  /** The resource kinds the graph uses; default every kind cairn has. */
  readonly kinds?: ReadonlyMap<string, ResourceKind<ResourceContext>>;
}

/** What a front end makes of a finished run: its exit code (default: the engine's policy) and its printout. */
export interface Presented {
  readonly exitCode?: number;
  readonly print: (runId: number) => void;
}

/** The verdict of a report under the engine's exit policy. */
export function reportExitCode(report: RunReport, detailed: boolean): number {
  const c = report.counts;
  const failed = c.failed > 0 || report.results.some((r: NodeResult) => r.result === false);
  return exitCodeFor({ failed, changed: c.changed + c.pending > 0 }, detailed);
}

/** Locks the store, runs the graph, records the run, prints; returns the exit code. */
export async function runCompiled(run: CompiledRun, opts: RunOptions, present: (report: RunReport) => Presented | Promise<Presented>): Promise<number> {
  return withRunStore(opts, { mode: run.mode, source: run.source, frontEnd: run.frontEnd }, async (progress) => {
    const report = await runGraph(run.graph, run.index, {
      mode: run.mode,
      jobs: opts.jobs,
      kinds: run.kinds ?? kinds,
      ctx: run.ctx,
      ...(run.label ? { label: run.label } : {}),
      onStart: progress.onStart,
      onResult: progress.onResult,
    });
    const shown = await present(report);
    return { results: report.results, exitCode: shown.exitCode ?? reportExitCode(report, opts.detailedExitcode), print: shown.print, edges: run.graph.edges };
  });
}
