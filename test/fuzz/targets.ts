/**
 * What the fuzz test feeds: per front end, its valid fixtures (whole folders, so modules and includes
 * resolve) and the in-process function that loads and checks them, as the command does before running.
 * A target returns the user diagnostics it produced; anything it throws that is not a diagnostic is a bug.
 */
import { join } from 'node:path';
import { DiagnosticError, type Diagnostic } from '../../src/core/diag.js';
import { checkGraph } from '../../src/core/runtime.js';
import { parseGraphText } from '../../src/frontends/graph/load.js';
import { compileConverge } from '../../src/frontends/converge/index.js';
import { compileProject } from '../../src/frontends/inmanta/compiler.js';
import { InmantaError } from '../../src/frontends/inmanta/errors.js';
import { exportResources, toGraph } from '../../src/frontends/inmanta/exporter.js';
import { checkScript, parseScript, RaftLoader } from '../../src/frontends/otter/index.js';
import { renderHighstate } from '../../src/frontends/salt/render/index.js';
import { prepare } from '../../src/frontends/zapusk/index.js';
import { LocalHost } from '../../src/host/local.js';
import type { ExecOptions, ExecResult } from '../../src/host/types.js';
import { kinds } from '../../src/resources/index.js';
import { readFileSync } from 'node:fs';

export const FIXTURES = join(import.meta.dirname, '../fixtures');

export interface Target {
  readonly name: string;
  /** Fixture folders (relative to test/fixtures); each is copied whole for an input. */
  readonly seeds: readonly string[];
  /** Which files of a seed folder are mutated (relative paths). */
  readonly mutable: (file: string) => boolean;
  /** Loads the copied folder; returns the diagnostics it reported. */
  readonly run: (dir: string) => Promise<readonly Diagnostic[]>;
}

/** A DiagnosticError's diagnostics; anything else thrown is rethrown. */
async function diagnosticsOf(f: () => unknown): Promise<readonly Diagnostic[]> {
  try {
    await f();
    return [];
  } catch (e) {
    if (DiagnosticError.is(e)) return e.diagnostics;
    throw e;
  }
}

/**
 * This machine, with the answer of each syntax check (`/bin/sh -n`, the script on stdin) kept by script:
 * converge checks every task's check script when it loads a program, most inputs are a seed with one
 * change elsewhere, and the same script gets the same answer, so sh runs once per distinct script
 * instead of once per input.
 */
class SyntaxCheckOnceHost extends LocalHost {
  private readonly answers = new Map<string, Promise<ExecResult>>();

  override exec(command: string | readonly string[], options: ExecOptions = {}): Promise<ExecResult> {
    const { stdin, readOnly, ...rest } = options;
    const syntaxCheck = Array.isArray(command) && command.length === 2 && command[0] === '/bin/sh' && command[1] === '-n';
    if (!syntaxCheck || !readOnly || stdin === undefined || Object.keys(rest).length > 0) return super.exec(command, options);
    let answer = this.answers.get(stdin);
    if (!answer) {
      answer = super.exec(command, options);
      this.answers.set(stdin, answer);
    }
    return answer;
  }
}

const host = new SyntaxCheckOnceHost();

export const targets: readonly Target[] = [
  {
    name: 'graph',
    seeds: ['graph/files', 'graph/refs', 'graph/yaml'],
    mutable: (f) => /^graph\.(json|ya?ml)$/.test(f),
    run: (dir) => {
      const file = ['graph.json', 'graph.yaml'].map((n) => join(dir, n)).find((f) => { try { readFileSync(f); return true; } catch { return false; } }) as string;
      return diagnosticsOf(() => parseGraphText(file, readFileSync(file, 'utf8'), (g) => checkGraph(g, kinds).diagnostics));
    },
  },
  {
    name: 'converge',
    seeds: ['converge/resources', 'converge/modules', 'converge/seed-effect', 'converge/switch', 'converge/values'],
    mutable: (f) => f.endsWith('.hcl'),
    run: (dir) => diagnosticsOf(() => compileConverge(join(dir, 'main.hcl'), new Map(), 'plan', host)),
  },
  {
    name: 'zapusk',
    seeds: ['zapusk/params', 'zapusk/steps', 'zapusk/nested', 'zapusk/files', 'zapusk/when', 'zapusk/multi-file-params'],
    mutable: (f) => /\.(ini|conf)$/.test(f),
    run: (dir) =>
      diagnosticsOf(() =>
        prepare({ programDir: join(dir, 'prog.zdb'), command: 'apply', request: [], stateDir: join(dir, 'state'), defaultStateRoot: join(dir, 'states'), libDirs: [join(dir, 'lib')], toolDir: join(dir, 'tool') }),
      ),
  },
  {
    name: 'otter',
    seeds: ['otter/statement-foreach', 'otter/function-strings', 'otter/raft-module', 'otter/statement-try-catch', 'otter/function-maps', 'otter/op-apply-template'],
    mutable: (f) => /\.otter$/.test(f),
    run: (dir) =>
      diagnosticsOf(async () => {
        const file = join(dir, 'script.otter');
        const script = parseScript(file, readFileSync(file, 'utf8'));
        const problems = await checkScript(script, new RaftLoader(dir, host), new Set());
        const errors = problems.filter((d) => d.severity === 'error');
        if (errors.length > 0) throw new DiagnosticError(errors);
      }),
  },
  {
    name: 'inmanta',
    seeds: ['inmanta/basics', 'inmanta/entities', 'inmanta/operators', 'inmanta/gradual-relation', 'inmanta/index-selector-relation', 'inmanta/list-dict-attributes', 'inmanta/deploy'],
    mutable: (f) => f.endsWith('.cf') || f.endsWith('.j2'),
    run: async (dir) => {
      const r = compileProject(dir);
      if (r.error) return r.error.toDiagnostics();
      // What export and deploy do next: the resources, then the graph they run as.
      try {
        if (r.compilation) toGraph(exportResources(r.compilation));
      } catch (e) {
        if (InmantaError.is(e)) return e.toDiagnostics();
        throw e;
      }
      return [];
    },
  },
  {
    name: 'salt',
    seeds: ['salt/render/basic', 'fuzz/salt-jinja'],
    mutable: (f) => f.endsWith('.sls') || f.endsWith('.jinja'),
    run: (dir) =>
      diagnosticsOf(() => {
        const r = renderHighstate({ fileRoots: [join(dir, 'file_roots')], pillarRoots: [join(dir, 'pillar_roots')], minionId: 'web1' });
        if (r.errors.length > 0 && r.diagnostics.length === 0) throw new Error(`errors without diagnostics: ${r.errors.join(' | ')}`);
        if (r.diagnostics.length > 0) throw new DiagnosticError(r.diagnostics);
      }),
  },
];
