/** `cairn salt …`: render (or read) high data, compile, run with the run store, print as salt-call does. */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { type Diagnostic, DiagnosticError, error, formatDiagnostic } from '../core/diag.js';
import type { NodeResult } from '../core/model.js';
import { maskResult } from '../core/redact.js';
import { type Chunk, compile, showChunk } from '../frontends/salt/compile/index.js';
import { ConfigError, type MinionConfig, readMinionConfig } from '../frontends/salt/config.js';
import { formatData, formatRun, type OutputFormat, type OutputSettings } from '../frontends/salt/output/index.js';
import { PLAIN_DICTS } from '../frontends/salt/output/plain-dicts.js';
import * as render from '../frontends/salt/render/index.js';
import { loadSaltYaml } from '../frontends/salt/render/yaml-load.js';
import { exitCodeFor } from '../engine/exit-code.js';
import { endJitForLargeRun, tuneJitForLargeInput } from '../engine/heap.js';
import { argWarning } from '../frontends/salt/run/arg-span.js';
import { RequisiteNestingError, runChunks, runSucceeded } from '../frontends/salt/run/index.js';
import { knownFunction, type TranslateContext } from '../frontends/salt/states/index.js';
import type { HighData, RenderResult, SaltOptions } from '../frontends/salt/types.js';
import { LocalHost } from '../host/local.js';
import { printDiagnostics, UserError } from '../engine/errors.js';
import type { SaltCliOptions } from './salt-command.js';
import { withRunStore } from '../engine/session.js';
import { isTerminal, writeErr, writeOut } from '../engine/stdio.js';

export interface Call {
  fun: string;
  positional: string[];
  kwargs: Record<string, string>;
}

export function parseCall(fun: string, args: readonly string[]): Call {
  const positional: string[] = [];
  const kwargs: Record<string, string> = {};
  for (const a of args) {
    const m = /^([A-Za-z_][\w-]*)=([\s\S]*)$/.exec(a);
    if (m && !(fun === 'state.low' && positional.length === 0 && a.trim().startsWith('{'))) kwargs[m[1] as string] = m[2] as string;
    else positional.push(a);
  }
  if (MODS_THEN_TEST.has(fun) && positional.length > 1 && kwargs.test === undefined) kwargs.test = positional[1] as string;
  return { fun, positional, kwargs };
}

/** Python truth of a command-line value as Salt's YAML argument parser reads it. */
function truthy(v: string | undefined): boolean {
  return v !== undefined && !['false', 'no', 'off', '0', '0.0', '', 'none', 'null', '~', '[]', '{}', "''", '""'].includes(v.trim().toLowerCase());
}

/** A key=value given on the command line, as Salt's YAML-ish argument parser reads it. */
function cliValue(v: string): unknown {
  if (/^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
  if (/^-?\d+$/.test(v)) return Number(v);
  if (/^[[{]/.test(v.trim())) {
    try {
      return JSON.parse(v);
    } catch {
      return v;
    }
  }
  return v;
}

export function loadConfig(opts: SaltCliOptions): MinionConfig {
  if (!opts.configDir) return {};
  try {
    return readMinionConfig(resolve(opts.configDir));
  } catch (e) {
    if (e instanceof ConfigError) throw new UserError(e.message);
    throw e;
  }
}

export function saltOptions(opts: SaltCliOptions, call: Call, conf: MinionConfig): SaltOptions {
  const envRoots = opts.fileRoot.length > 0 ? undefined : conf.fileRoots;
  const pillarRoots = opts.pillarRoot.length > 0 ? opts.pillarRoot : (conf.pillarRoots?.[call.kwargs.pillarenv ?? conf.pillarenv ?? 'base'] ?? conf.pillarRoots?.base ?? []);
  const o: SaltOptions = {
    fileRoots: opts.fileRoot.length > 0 ? opts.fileRoot.map((d) => resolve(d)) : (envRoots?.base ?? []),
    pillarRoots: pillarRoots.map((d) => resolve(d)),
    minionId: opts.id ?? conf.id ?? hostname(),
    test: call.kwargs.test !== undefined ? truthy(call.kwargs.test) : call.fun === 'state.test' || conf.test === true,
  };
  if (envRoots) o.envRoots = Object.fromEntries(Object.entries(envRoots).map(([e, ds]) => [e, ds.map((d) => resolve(d))]));
  if (call.fun === 'state.test') o.test = true;
  const saltenv = call.kwargs.saltenv ?? conf.saltenv;
  if (saltenv) o.saltenv = saltenv;
  if (call.kwargs.pillar !== undefined) {
    // Salt reads the value as YAML (JSON being a part of it).
    const loaded = loadSaltYaml(call.kwargs.pillar);
    if (!loaded.ok) throw new UserError(`pillar= is not valid YAML or JSON: ${loaded.failure.message}`);
    const p = loaded.data;
    if (typeof p !== 'object' || p === null || Array.isArray(p)) throw new UserError('pillar= must be a dictionary, e.g. pillar=\'{"key": "value"}\'');
    o.pillarOverride = p as Record<string, unknown>;
  }
  return o;
}

/** Functions whose signature is `(mods, test=None, …)`: a second positional argument is `test`. */
const MODS_THEN_TEST = new Set(['state.sls', 'state.show_sls', 'state.show_low_sls']);

export function mods(call: Call): string[] {
  const given = MODS_THEN_TEST.has(call.fun) ? call.positional.slice(0, 1) : call.positional;
  const list = [...given, ...(call.kwargs.mods ? [call.kwargs.mods] : [])];
  return list.flatMap((m) => m.split(',')).map((m) => m.trim()).filter(Boolean);
}

function print(text: string): void {
  // The quiet outputter prints nothing at all.
  if (settings.quiet) return;
  writeOut(`${text}\n`);
}

/** salt-call's exit: the function's retcode with --retcode-passthrough, else 1 for any non-zero retcode. */
function exitCode(retcode: number, opts: SaltCliOptions): number {
  if (opts.retcodePassthrough) return retcode;
  return retcode === 0 ? 0 : 1;
}

export function outputSettings(opts: SaltCliOptions, conf: MinionConfig): OutputSettings {
  const verbose = opts.stateVerbose ?? (conf.stateVerbose === undefined ? undefined : String(conf.stateVerbose));
  return {
    stateOutput: opts.stateOutput ?? conf.stateOutput ?? 'full',
    stateVerbose: verbose === undefined ? true : truthy(verbose),
    color: opts.forceColor === true || (opts.color !== false && !process.env.NO_COLOR && isTerminal(1)),
    ...(opts.outIndent === undefined ? {} : { outIndent: opts.outIndent }),
  };
}

let settings: OutputSettings & { quiet?: boolean } = { stateOutput: 'full', stateVerbose: true, color: false };

/** Salt's error list on stdout, the positioned diagnostics on stderr, retcode 1 (a compile error). */
function failCompile(errors: readonly string[], diagnostics: readonly Diagnostic[], out: OutputFormat, opts?: SaltCliOptions): number {
  print(formatRun([...errors], out, settings));
  if (diagnostics.length > 0) printDiagnostics(diagnostics);
  return opts ? exitCode(1, opts) : 1;
}

function readHighData(file: string): RenderResult {
  let data: Partial<HighData>;
  try {
    data = JSON.parse(readFileSync(file, 'utf8')) as Partial<HighData>;
  } catch (e) {
    throw new UserError(`cannot read high data ${file}: ${(e as Error).message}`);
  }
  return { high: { states: data.states ?? {}, extend: data.extend ?? [], exclude: data.exclude ?? [], spans: data.spans ?? {}, files: data.files ?? {} }, errors: [], diagnostics: [] };
}

export function renderFor(call: Call, opts: SaltCliOptions, so: SaltOptions): RenderResult {
  if (opts.highData) return readHighData(opts.highData);
  const m = mods(call);
  const highstate = ['state.highstate', 'state.show_highstate', 'state.show_lowstate', 'state.show_states'].includes(call.fun) || (['state.apply', 'state.test'].includes(call.fun) && m.length === 0);
  if (!highstate && m.length === 0) throw new UserError(`${call.fun} needs the SLS to apply, e.g. cairn salt ${call.fun} webserver`);
  return highstate ? render.renderHighstate(so) : render.renderSls(m, so);
}

/** `exclude=` on the command line: a JSON/YAML list of `{sls: x}` / `{id: y}`, or comma-separated SLS names. */
export function excludeArg(v: string): Array<{ sls: string } | { id: string }> {
  const parsed = cliValue(v);
  const list = Array.isArray(parsed) ? parsed : String(parsed).split(',').map((x) => x.trim()).filter(Boolean);
  return list.map((e) => (typeof e === 'object' && e !== null ? (e as { sls: string } | { id: string }) : { sls: String(e) }));
}

/** Salt's check_result on show_highstate's data (no run results in it): only the shape can fail it. */
function highDataPasses(data: Record<string, unknown>): boolean {
  const entries = Object.entries(data);
  if (entries.length === 0) return false;
  return entries.every(([id, v]) => (id === '__extend__' ? Array.isArray(v) : typeof v === 'object' && v !== null && !Array.isArray(v)));
}

/** What Salt's call_highstate returns when the top file gives it nothing to run. */
export function noStatesResult(why: 'none' | 'empty'): Record<string, unknown> {
  const comment = why === 'none' ? 'No Top file or master_tops data matches found. Please see master log for details.' : 'No states found for this minion';
  return { 'no_|-states_|-states_|-None': { result: false, comment, name: 'No States', changes: {}, __run_num__: 0 } };
}

/** state.single / state.low: one chunk, no SLS. */
function singleChunk(call: Call): Chunk {
  let low: Record<string, unknown>;
  if (call.fun === 'state.low') {
    const text = call.positional[0];
    if (!text) throw new UserError("state.low needs the low chunk as JSON, e.g. '{\"state\": \"test\", \"fun\": \"nop\", \"name\": \"x\"}'");
    try {
      low = JSON.parse(text) as Record<string, unknown>;
    } catch (e) {
      throw new UserError(`state.low: the low chunk is not valid JSON: ${(e as Error).message}`);
    }
  } else {
    const [fn, name] = call.positional;
    if (!fn || !fn.includes('.')) throw new UserError('state.single needs FUN NAME, e.g. cairn salt state.single pkg.installed vim');
    const [state, fun] = [fn.slice(0, fn.indexOf('.')), fn.slice(fn.indexOf('.') + 1)];
    low = { state, fun, name: name ?? call.kwargs.name };
    for (const [k, v] of Object.entries(call.kwargs)) if (!['test', 'pillar', 'saltenv', 'name', 'failhard'].includes(k)) low[k] = cliValue(v);
  }
  if (typeof low.state !== 'string' || typeof low.fun !== 'string' || typeof low.name !== 'string') {
    throw new UserError(`${call.fun}: the state needs "state", "fun" and "name"`);
  }
  return (call.fun === 'state.low' ? low : { ...low, __id__: low.name }) as unknown as Chunk;
}

/**
 * What the run store keeps of a Salt run: every pillar value masked in the results (and, through
 * `unstored`, in the stored copy of the output). What is printed stays what salt-call prints.
 */
export function pillarMask(so: SaltOptions): { readonly unstored: string[]; keep(r: NodeResult): NodeResult } {
  const unstored = render.pillarValues(so);
  return { unstored, keep: (r) => (unstored.length === 0 ? r : maskResult(r, unstored)) };
}

export function translateContext(so: SaltOptions, conf: MinionConfig = {}, high?: Pick<HighData, 'spans'>): TranslateContext {
  let pillar: Record<string, unknown> | undefined;
  return {
    opts: so,
    warn: (chunk, arg, message) => writeErr(`${formatDiagnostic(argWarning(high ?? { spans: {} }, chunk, arg, message))}\n`),
    config: (key) => conf.options?.[key],
    pillar: () => (pillar ??= render.loadPillar(so)),
    grains: () => ({ ...render.grains(so.target?.facts), id: so.minionId }),
    renderTemplate: (text, file, extra) => render.renderTemplateFile(text, file, extra, so),
    resolveUrl: (url, saltenv) => {
      const r = render.resolveSaltUrl(url, so, saltenv);
      return typeof r === 'string' ? r : { error: r.message };
    },
    readText: (path) => readFileSync(path, 'utf8'),
    isRoot: process.getuid?.() === 0,
  };
}

async function runStates(chunks: Chunk[], opts: SaltCliOptions, so: SaltOptions, conf: MinionConfig, fun = 'state.apply', high?: Pick<HighData, 'spans'>): Promise<number> {
  const test = so.test === true;
  const mode = test ? 'check' : 'apply';
  return withRunStore(
    { store: opts.store, stateDir: opts.stateDir, lockTimeout: opts.lockTimeout },
    { mode, source: opts.highData ? [opts.highData] : so.fileRoots, frontEnd: 'salt' },
    async (progress) => {
      let done = 0;
      const { unstored, keep } = pillarMask(so);
      const run = await runChunks(chunks, {
        test,
        // failhard comes from the state or the minion config; salt-call ignores a failhard= argument.
        failhard: conf.failhard === true,
        ctx: { host: new LocalHost(), baseDir: process.cwd() },
        translate: translateContext(so, conf, high),
        onResult: (r) => progress.onResult?.(keep(r), ++done, chunks.length),
        single: fun === 'state.single' || fun === 'state.low',
      });
      if (fun === 'state.low') {
        // state.low returns the state's own return; salt-call exits 1 when its result is False.
        const ret = Object.values(run.running)[0] as Record<string, unknown>;
        return { results: run.results.map(keep), unstored, exitCode: ret.result === false ? 1 : 0, print: () => print(formatData(ret, opts.out, settings)) };
      }
      const failed = !runSucceeded(run.running, chunks, run.results);
      // --detailed-exitcode (cairn's, as for every front end): 2 when the run succeeded with changes made or pending.
      const changed = run.results.some((r) => r.status === 'changed' || r.status === 'pending');
      const code = failed ? exitCode(2, opts) : exitCodeFor({ failed: false, changed }, opts.detailedExitcode === true);
      return { results: run.results.map(keep), unstored, exitCode: code, print: () => print(formatRun(run.running, opts.out, settings, run.order)) };
    },
  );
}

/**
 * What a `state.show_*` function prints for rendered high data (or its compile errors); undefined for a
 * function that runs the states.
 */
export function showData(
  fun: string,
  rendered: RenderResult,
  fromHighData: boolean,
): { data: unknown; ordered: false | 'high'; failed?: boolean } | { errors: string[]; diagnostics: Diagnostic[] } | undefined {
  if (fun === 'state.show_highstate' || fun === 'state.show_sls') {
    const data = fromHighData ? rendered.high.states : render.showHighstateData(rendered.high);
    return { data, ordered: 'high', failed: fun === 'state.show_highstate' && !highDataPasses(data) };
  }
  if (fun !== 'state.show_lowstate' && fun !== 'state.show_low_sls' && fun !== 'state.show_states') return undefined;
  const compiled = compile(rendered.high, { requisiteIn: fun !== 'state.show_low_sls' });
  if (compiled.errors.length > 0) return { errors: compiled.errors, diagnostics: compiled.diagnostics };
  // show_states: the SLS of the compiled low chunks, in execution order, each once.
  if (fun === 'state.show_states') return { data: [...new Set(compiled.chunks.map((c) => c.__sls__))], ordered: false };
  return { data: compiled.chunks.map(showChunk), ordered: false };
}

export async function runSaltCommand(fun: string, args: readonly string[], opts: SaltCliOptions): Promise<number> {
  const call = parseCall(fun, args);
  const conf = loadConfig(opts);
  const so = saltOptions(opts, call, conf);
  // Large SLS files: rendering them is long enough to be optimized early (engine/heap.ts).
  let sourceChars = 0;
  so.onSource = (chars) => {
    sourceChars += chars;
    tuneJitForLargeInput(sourceChars);
  };
  settings = { ...outputSettings(opts, conf), quiet: opts.out === 'quiet' };
  const out = opts.out;
  switch (fun) {
    case 'state.show_top': {
      const top = render.showTop(so);
      if (top.errors.length > 0) return failCompile(top.errors, top.diagnostics, out, opts);
      if (top.diagnostics.length > 0) printDiagnostics(top.diagnostics);
      print(formatData(top.top, out, settings, 'top'));
      return 0;
    }
    case 'state.single':
    case 'state.low': {
      const chunk = singleChunk(call);
      if (!knownFunction(chunk.state, chunk.fun)) {
        const full = `${chunk.state}.${chunk.fun}`;
        return failCompile([`Specified state '${full}' was not found`], [], out, opts);
      }
      return runStates([chunk], opts, so, conf, fun);
    }
    case 'state.apply':
    case 'state.sls':
    case 'state.highstate':
    case 'state.test':
    case 'state.show_highstate':
    case 'state.show_sls':
    case 'state.show_lowstate':
    case 'state.show_low_sls':
    case 'state.show_states':
      break;
    default:
      if (render.EXEC_FUNCTIONS.has(fun)) {
        const kwargs = Object.fromEntries(Object.entries(call.kwargs).filter(([k]) => !['saltenv', 'pillarenv', 'pillar', 'test'].includes(k)).map(([k, v]) => [k, cliValue(v)]));
        let value: unknown;
        try {
          value = render.callExecFunction(so, fun, call.positional.map(cliValue), kwargs);
        } catch (e) {
          throw new UserError(`${fun}: ${(e as Error).message}`);
        }
        // Pillar data is Salt's ordered dicts below a plain top-level dict (pillar.items, pillar.item, pillar.raw).
        const whole = ['pillar.items', 'pillar.item'].includes(fun) || (fun === 'pillar.raw' && call.positional.length === 0 && call.kwargs.key === undefined);
        if (whole && value && typeof value === 'object') PLAIN_DICTS.add(value);
        print(formatData(value, out, settings, fun.startsWith('pillar.') ? 'pillar' : false));
        return 0;
      }
      throw new UserError(`unknown function ${JSON.stringify(fun)} (known: state.apply, state.sls, state.highstate, state.test, state.show_highstate, state.show_lowstate, state.show_sls, state.show_low_sls, state.show_top, state.show_states, state.single, state.low)`);
  }
  const rendered = renderFor(call, opts, so);
  if (call.kwargs.exclude !== undefined) rendered.high.exclude.push(...excludeArg(call.kwargs.exclude));
  // show_lowstate returns its error list without setting a retcode: salt-call exits 0.
  const failed = (errors: readonly string[], diagnostics: readonly Diagnostic[]): number =>
    fun === 'state.show_lowstate' ? (failCompile(errors, diagnostics, out, opts), 0) : failCompile(errors, diagnostics, out, opts);
  if (rendered.errors.length > 0) return failed(rendered.errors, rendered.diagnostics);
  if (rendered.errors.length === 0 && rendered.diagnostics.length > 0) printDiagnostics(rendered.diagnostics);
  if (rendered.noStates && !fun.startsWith('state.show_')) {
    print(formatRun(noStatesResult(rendered.noStates), out, settings));
    return exitCode(2, opts);
  }
  const shown = showData(fun, rendered, opts.highData !== undefined);
  if (shown) {
    if ('errors' in shown) return failed(shown.errors, shown.diagnostics);
    print(formatData(shown.data, out, settings, shown.ordered));
    // show_highstate sets its retcode with Salt's check_result on the high data: empty data, or an
    // `__exclude__` list where a dict is expected, counts as failed.
    return shown.failed === true ? exitCode(2, opts) : 0;
  }
  const compiled = compile(rendered.high, { requisiteIn: true, knownFunction, checkRequisites: true });
  if (compiled.errors.length > 0) return failed(compiled.errors, compiled.diagnostics);
  // Lost requisites and unknown state functions fail their own state only (Salt 3006); say where they are.
  for (const w of compiled.warnings) writeErr(`${formatDiagnostic(w)}\n`);
  // Many states: the run goes on long enough to be optimized early (engine/heap.ts).
  endJitForLargeRun(compiled.chunks.length);
  try {
    return await runStates(compiled.chunks, opts, so, conf, 'state.apply', rendered.high);
  } catch (e) {
    if (DiagnosticError.is(e)) return failCompile(e.diagnostics.map((d) => d.message), e.diagnostics, out, opts);
    if (e instanceof RequisiteNestingError) {
      // salt-call prints no return, logs the RecursionError and exits 1.
      printDiagnostics([error('S204', `${e.message} (Salt stops here with RecursionError: maximum recursion depth exceeded)`, { span: rendered.high.spans[e.id] ?? { file: e.sls, line: 1, col: 1 } })]);
      return exitCode(1, opts);
    }
    throw e;
  }
}
