/**
 * `cairn plan|apply|collect GRAPH --hosts PATTERN`: the graph runs once per selected host, acting on that
 * host over SSH; source files are read here, on the controller. One recorded run holds every host's
 * results, each marked with its host.
 */
import { dirname, resolve } from 'node:path';
import { DiagnosticError } from '../core/diag.js';
import type { RunMode } from '../core/model.js';
import { preflightGraph, type RunReport, runGraph } from '../core/runtime.js';
import { LocalHost } from '../host/local.js';
import { SimulatedHost } from '../host/simulated.js';
import type { Host, ResourceContext } from '../host/types.js';
import { kinds } from '../resources/index.js';
import { jobsOn, runOnFleet } from './fleet-run.js';
import { type FleetOptions, selectFromInventory } from './inventory.js';
import type { RunOptions } from '../engine/run-options.js';
import { loadGraph } from './run-graph.js';

export async function runGraphOnHosts(file: string, mode: RunMode, opts: RunOptions & FleetOptions & { out: 'text' | 'json'; changesOnly?: boolean }): Promise<number> {
  const { graph, index } = await loadGraph(file);
  const selection = await selectFromInventory(opts);
  const baseDir = dirname(resolve(file));
  const sources = new LocalHost();
  // Problems with the configuration itself (a missing source file) stop the run before any host is touched.
  const here: ResourceContext = { host: sources, sources, baseDir };
  const sourceProblems = (await preflightGraph(graph, kinds, here)).filter((d) => d.code === 'R002');
  if (sourceProblems.length > 0) throw new DiagnosticError((await preflightGraph((await loadGraph(file, { withSpans: true })).graph, kinds, here)).filter((d) => d.code === 'R002'));
  return runOnFleet(opts, { mode, frontEnd: 'graph', source: [file], json: { source: file } }, async (target: Host): Promise<RunReport> => {
    const host = mode === 'simulate' ? new SimulatedHost(target) : target;
    const ctx: ResourceContext = { host, sources, baseDir };
    return runGraph(graph, index, { mode, jobs: jobsOn(target, opts.jobs), kinds, ctx });
  }, selection);
}
