/** `cairn plan|apply|collect GRAPH`: load, validate, preflight, then the engine's run pipeline. */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DiagnosticError } from '../core/diag.js';
import type { Graph, GraphIndex } from '../core/graph.js';
import type { RunMode } from '../core/model.js';
import { checkGraph, preflightGraph } from '../core/runtime.js';
import { UserError } from '../engine/errors.js';
import { runCompiled } from '../engine/pipeline.js';
import { printReport } from '../engine/report.js';
import { tuneForGraphInput } from '../engine/heap.js';
import { mark } from '../engine/profile.js';
import type { RunOptions } from '../engine/run-options.js';
import { parseGraphText } from '../frontends/graph/load.js';
import { LocalHost } from '../host/local.js';
import { SimulatedHost } from '../host/simulated.js';
import type { Host, ResourceContext } from '../host/types.js';
import { kinds } from '../resources/index.js';

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
  const text = readSource(file);
  tuneForGraphInput(text.length);
  mark('read');
  const graph = await parseGraphText(
    file,
    text,
    (g) => {
      const checked = checkGraph(g, kinds);
      index = checked.index;
      return checked.diagnostics;
    },
    options,
  );
  if (!index) throw new Error('graph passed the load check without an index');
  mark('load');
  return { graph, index };
}

export async function runGraphFile(file: string, mode: RunMode, opts: RunOptions & { changesOnly?: boolean }): Promise<number> {
  const { graph, index } = await loadGraph(file);
  const local: Host = new LocalHost();
  const host: Host = mode === 'simulate' ? new SimulatedHost(local) : local;
  const ctx: ResourceContext = { host, baseDir: dirname(resolve(file)) };
  if ((await preflightGraph(graph, kinds, ctx)).length > 0) {
    // The fast load keeps no positions; read the file again with them so the report points at the params.
    throw new DiagnosticError(await preflightGraph((await loadGraph(file, { withSpans: true })).graph, kinds, ctx));
  }
  mark('preflight');
  const out = opts.out === 'json' ? 'json' : 'text';
  return runCompiled({ frontEnd: 'graph', mode, source: [resolve(file)], graph, index, ctx }, opts, (report) => ({
    print: (runId) => printReport(report, out, runId, { source: file }, { changesOnly: opts.changesOnly === true }),
  }));
}
