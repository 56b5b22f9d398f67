/** `cairn inmanta compile|export|deploy`: compile the project, print or deploy what it exports. */
import { existsSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { compileFor } from '../frontends/inmanta/compiler.js';
import { type ExportedResource, exportResources, resourceJson, toGraph } from '../frontends/inmanta/exporter.js';
import { InmantaError } from '../frontends/inmanta/errors.js';
import { LocalHost } from '../host/local.js';
import type { ResourceContext } from '../host/types.js';
import { printDiagnostics, UserError } from '../engine/errors.js';
import type { InmantaOptions } from './inmanta-command.js';
import { wantsFleet } from './inventory.js';
import { checkCompiled, preflight, runCompiled } from '../engine/pipeline.js';
import { printReport } from '../engine/report.js';
import { keepYoungGenerationForLargeCompile, LARGE_INPUT, limitInliningForLargeCompile, tuneJitForOneRun, tuneJitForOneRunOf } from '../engine/heap.js';
import { writeOut } from '../engine/stdio.js';

/** The error as `--out json` shows it; paths inside the message are relative to the project, like `file`. */
function errorJson(e: InmantaError, projectDir: string): Record<string, unknown> {
  const message = e.msg.split(`${projectDir}/`).join('');
  return { kind: e.kind, message, file: e.span ? relative(projectDir, e.span.file) : null, line: e.span?.line ?? null };
}

/** The size of a file in bytes, 0 when it cannot be read (the compile reports that). */
function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

function printText(resources: readonly ExportedResource[]): void {
  const lines: string[] = [];
  for (const r of resources) {
    lines.push(r.id);
    for (const [k, v] of Object.entries(resourceJson(r))) if (k !== 'id') lines.push(`    ${k}: ${JSON.stringify(v)}`);
  }
  writeOut(lines.length > 0 ? `${lines.join('\n')}\n` : '');
}

export async function runInmanta(action: string, project: string, opts: InmantaOptions): Promise<number> {
  if (!existsSync(project) || !statSync(project).isDirectory()) throw new UserError(`project directory ${project} does not exist`);
  const projectDir = resolve(project);
  const fleet = wantsFleet(opts);
  if (fleet && action !== 'deploy') throw new UserError(`--inventory and --hosts are options of deploy; ${action} does not act on hosts`);
  // std::get_env reads the target's environment. A fleet deploy compiles once for every agent, on this
  // machine (as Inmanta's server compiles), so there the target of the compile is this machine too.
  const here = new LocalHost();
  // The compile goes over the model once: V8 optimizes only what stays hot (engine/heap.ts). The parser of a
  // large main.cf goes over hundreds of thousands of tokens and is better optimized early, so there the
  // budget is raised only once the project is parsed (a 10,000-line model takes about a tenth fewer
  // instructions; a 1,000-line one about a tenth more, so a small one keeps the larger budget throughout).
  const mainSize = fileSize(join(projectDir, 'main.cf'));
  const largeModel = mainSize >= LARGE_INPUT;
  if (!largeModel) tuneJitForOneRunOf(mainSize);
  else {
    limitInliningForLargeCompile();
    keepYoungGenerationForLargeCompile(mainSize);
  }
  const result = await compileFor(projectDir, here, largeModel ? tuneJitForOneRun : undefined);
  let resources: ExportedResource[] = [];
  let error = result.error;
  if (!error && result.compilation && action !== 'compile') {
    try {
      resources = exportResources(result.compilation);
    } catch (e) {
      if (!InmantaError.is(e)) throw e;
      error = e;
    }
  }
  if (action === 'compile' && opts.out === 'json') {
    writeOut(`${JSON.stringify({ ok: !error, printed: result.printed, error: error ? errorJson(error, projectDir) : null }, null, 2)}\n`);
    return error ? 1 : 0;
  }
  if (opts.out === 'text' && result.printed.length > 0) writeOut(`${result.printed.join('\n')}\n`);
  if (error) {
    if (opts.out === 'json') writeOut(`${JSON.stringify({ ok: false, error: errorJson(error, projectDir) }, null, 2)}\n`);
    printDiagnostics(error.toDiagnostics());
    return 1;
  }
  if (action === 'compile') return 0;
  if (action === 'export') {
    if (opts.out === 'json') writeOut(`${JSON.stringify(resources.map(resourceJson), null, 2)}\n`);
    else printText(resources);
    return 0;
  }
  if (fleet) {
    const { deployOnHosts } = await import('./inmanta-fleet.js');
    return deployOnHosts(resources, projectDir, resolve(projectDir, 'main.cf'), opts);
  }
  const graph = toGraph(resources);
  const index = checkCompiled(graph);
  const ctx: ResourceContext = { host: here, baseDir: projectDir };
  await preflight(graph, ctx);
  const mode = opts.dryRun ? 'check' : 'apply';
  const run = { frontEnd: 'inmanta', mode, source: [resolve(projectDir, 'main.cf')], graph, index, ctx } as const;
  return runCompiled(run, opts, (report) => ({ print: (runId) => printReport(report, opts.out, runId, { project: projectDir }, { changesOnly: opts.changesOnly }) }));
}
