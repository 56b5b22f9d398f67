/**
 * Converge modules → core graph: one node per resource block (ids `root/module.m/kind.name`), params of a
 * shared kind, and `depends` edges from `depends = [...]`, from lookups, and from `group` chains.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { type Diagnostic, DiagnosticError, error, type Span } from '../../core/diag.js';
import type { Graph } from '../../core/graph.js';
import { deferred, type Edge, type GraphNode, hasDeferred, isDeferred } from '../../core/model.js';
import type { HclValue } from '../../lang/hcl1/index.js';
import { allowedFields, FIELDS, isTask, UNSUPPORTED } from './fields.js';
import { Loader } from './load.js';
import { type Phase, Renderer } from './render.js';
import type { ModuleInfo, RawNode, Scope } from './types.js';

export interface ConvergeProgram {
  readonly graph: Graph;
  readonly modules: readonly ModuleInfo[];
  readonly root: Scope;
  /** Converge type of each node id. */
  readonly types: ReadonlyMap<string, string>;
  /**
   * The edges `graph` draws, as Converge draws them: a `depends` on a module comes from the module node
   * (the run waits for every node inside it), and each switch case links to its switch and the next case.
   */
  readonly viewEdges: ReadonlyArray<{ readonly from: string; readonly to: string; readonly kind: string }>;
  /** For each node id, the param nodes its templates read (drawn by `graph --show-params`). */
  readonly paramUses: ReadonlyMap<string, ReadonlySet<string>>;
  /** For each node id, the nodes its templates look up: Converge prepares such a node late, so `graph` shows it by name only. */
  readonly lookups: ReadonlyMap<string, ReadonlySet<string>>;
}

const CORE_TYPE: Readonly<Record<string, string>> = {
  task: 'task',
  'task.query': 'task',
  'healthcheck.task': 'task',
  'file.content': 'file',
  'file.directory': 'directory',
  'file.mode': 'chmod',
  'file.owner': 'chown',
  'file.fetch': 'fetch',
  unarchive: 'unarchive',
  'wait.query': 'wait',
  'wait.port': 'wait',
  'systemd.unit.state': 'unit',
  'package.apt': 'package',
  'user.user': 'user',
  'user.group': 'group',
};

const DURATION_UNITS: Readonly<Record<string, number>> = { ns: 1e-9, us: 1e-6, 'µs': 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/** Go's duration text ("10s", "1m30s") or a number of seconds. */
function seconds(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v);
  const parts = [...v.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((m) => m[0]).join('') !== v) return undefined;
  return parts.reduce((sum, m) => sum + Number(m[1]) * (DURATION_UNITS[m[2] as string] ?? 0), 0);
}

/** Converge resolves a relative destination against the directory it runs in (once it is known). */
function abs(v: unknown): unknown {
  if (isDeferred(v)) return deferred(v.refs, (values) => abs(v.render(values)), v.display);
  return typeof v === 'string' && v !== '' && !v.startsWith('/') ? resolve(v) : v;
}

function bool(v: unknown): unknown {
  if (v === 'true') return true;
  if (v === 'false') return false;
  return v;
}

function num(v: unknown): unknown {
  return typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
}

function defined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== ''));
}

/**
 * Converge checks a task's check script when it prepares the task: with /bin/sh -n by default, with the
 * interpreter and its check_flags when both are given, not at all for an interpreter without check_flags.
 * Returns converge's error text, or undefined when the script is fine (or not known yet).
 */
function checkSyntax(interpreter: unknown, flags: unknown, script: unknown): string | undefined {
  if (typeof script !== 'string') return undefined;
  const given = Array.isArray(flags) ? flags.map(String) : [];
  if (interpreter === undefined && given.length > 0) return 'custom syntax check_flags given without an interpreter';
  if (interpreter !== undefined && given.length === 0) return undefined;
  const r = spawnSync(interpreter === undefined ? '/bin/sh' : String(interpreter), interpreter === undefined ? ['-n'] : given, { input: script, encoding: 'utf8' });
  if (r.error) return `unable to start subprocess: ${r.error.message}`;
  if (r.status === 0) return undefined;
  const out = `${r.stdout ? `Command Stdout:\n${r.stdout}` : ''}${r.stderr ? `Command Stderr:\n${r.stderr}` : ''}`;
  return `syntax error: ${out}: exit status ${r.status ?? 1}`;
}

class Compiler {
  readonly diags: Diagnostic[] = [];
  readonly renderer: Renderer;

  constructor(phase: Phase) {
    this.renderer = new Renderer(phase);
  }

  params(node: RawNode, field: (name: string) => unknown): Record<string, unknown> | undefined {
    const f = field;
    switch (node.ctype) {
      case 'task':
      case 'healthcheck.task':
      case 'task.query': {
        const timeoutRaw = f('timeout');
        const timeout = timeoutRaw === undefined ? undefined : seconds(timeoutRaw);
        if (timeoutRaw !== undefined && timeout === undefined) {
          this.diags.push(error('CV040', `timeout must be a duration such as "30s", got ${JSON.stringify(timeoutRaw)}`, { span: node.fields.get('timeout')?.span }));
        }
        const env = f('env');
        const envField = node.fields.get('env');
        if (envField?.kind === 'object') {
          for (const item of envField.items) {
            if (item.value.kind !== 'string') this.diags.push(error('CV042', `env values must be strings: ${item.keys.map((k) => k.name).join('.')} is not`, { span: item.value.span }));
          }
        }
        const p = {
          check: node.ctype === 'task.query' ? (f('query') ?? '') : (f('check') ?? ''),
          apply: f('apply'),
          interpreter: f('interpreter'),
          // check_flags only syntax-check the check script (below); every script runs with exec_flags.
          check_flags: f('exec_flags'),
          exec_flags: f('exec_flags'),
          dir: f('dir'),
          timeout,
        };
        const syntax = checkSyntax(p.interpreter, f('check_flags'), p.check);
        if (syntax) this.diags.push(error('CV041', syntax, { span: node.fields.get(node.ctype === 'task.query' ? 'query' : 'check')?.span ?? node.span }));
        return { ...defined(p), ...(env !== undefined ? { env } : {}), ...(node.ctype === 'task.query' ? { query: true } : {}), ...(node.ctype === 'healthcheck.task' ? { health: true } : {}) };
      }
      case 'file.content':
        return { path: abs(f('destination')), content: f('content') ?? '', new_mode: '0600' };
      case 'file.directory':
        // Converge creates directories (and, with create_all, their parents) with mode 0700.
        return defined({ path: abs(f('destination')), makedirs: bool(f('create_all')), new_mode: '0700' });
      case 'file.mode': {
        // A number is the mode itself (HCL reads 0644 as octal, so 644 is decimal 644, which Go's chmod
        // keeps the permission bits of); a string is read in base 8.
        const mode = f('mode');
        return defined({ path: abs(f('destination')), mode: typeof mode === 'number' ? (mode & 0o777).toString(8).padStart(3, '0') : mode });
      }
      case 'file.owner':
        return defined({ path: abs(f('destination')), owner: num(f('user') ?? f('uid')), group: num(f('group') ?? f('gid')), recursive: bool(f('recursive')) });
      case 'file.fetch':
      case 'unarchive':
        return defined({ source: f('source'), destination: abs(f('destination')), hash_type: f('hash_type'), hash: f('hash'), force: bool(f('force')) });
      case 'wait.query':
      case 'wait.port': {
        const dur = (name: string): unknown => {
          const raw = f(name);
          if (raw === undefined) return undefined;
          const s = seconds(raw);
          if (s === undefined) this.diags.push(error('CV040', `${name} must be a duration such as "5s", got ${JSON.stringify(raw)}`, { span: node.fields.get(name)?.span }));
          return s;
        };
        const retry = { interval: dur('interval'), grace_period: dur('grace_period'), max_retry: num(f('max_retry')) };
        if (node.ctype === 'wait.port') return defined({ host: f('host'), port: num(f('port')), ...retry });
        const env = f('env');
        return { ...defined({ check: f('check') ?? '', interpreter: f('interpreter'), check_flags: f('exec_flags'), dir: f('dir'), timeout: dur('timeout'), ...retry }), ...(env !== undefined ? { env } : {}) };
      }
      case 'systemd.unit.state':
        return defined({ unit: f('unit'), state: f('state'), reload: bool(f('reload')), signal_name: f('signal_name'), signal_number: num(f('signal_number')) });
      case 'package.apt': {
        const state = f('state');
        return defined({ name: f('name'), state: state === 'absent' ? 'removed' : state === 'present' || state === undefined ? 'installed' : state });
      }
      case 'user.user':
        return defined({
          name: f('username'),
          uid: num(f('uid')),
          gid: num(f('groupname') ?? f('gid')),
          home: f('home_dir'),
          createhome: bool(f('create_home')),
          state: f('state'),
        });
      case 'user.group':
        return defined({ name: f('name'), gid: num(f('gid')), state: f('state') });
      default:
        return undefined;
    }
  }

  node(raw: RawNode): GraphNode | undefined {
    if (raw.ctype === 'macro.switch' || raw.ctype === 'macro.case') return this.nop(raw);
    const unsupported = UNSUPPORTED[raw.ctype];
    if (unsupported !== undefined) {
      this.diags.push(error('CV030', `${raw.ctype} ${JSON.stringify(raw.name)}: ${unsupported}`, { span: raw.span }));
      return undefined;
    }
    const allowed = allowedFields(raw.ctype);
    if (!allowed) {
      const known = Object.keys(FIELDS).join(', ');
      this.diags.push(error('CV031', `unknown resource type ${JSON.stringify(raw.ctype)} (known: ${known}, module, param)`, { span: raw.span }));
      return undefined;
    }
    for (const [name, v] of raw.fields) {
      if (!allowed.includes(name)) this.diags.push(error('CV032', `${raw.ctype} has no field ${JSON.stringify(name)} (fields: ${allowed.join(', ')})`, { span: v.span }));
    }
    if (raw.skipped !== undefined) return this.nop(raw);
    const params = this.params(raw, (name) => this.renderer.field(raw, name));
    if (!params) return undefined;
    // The destination as written, for display: Converge prints a relative path as given.
    const shown = raw.fields.has('destination') ? this.renderer.field(raw, 'destination') : undefined;
    // A destination known only at run time: keep the text it renders to, to print it as converge does.
    const rendered: { value?: string } = {};
    // Env values known only at run time: keep what they render to, for the task's `env (...)` line.
    const renderedEnv: Record<string, unknown> = {};
    const env = params.env;
    if (isTask(raw.ctype) && typeof env === 'object' && env !== null && hasDeferred(env)) {
      params.env = Object.fromEntries(
        Object.entries(env as Record<string, unknown>).map(([k, v]) => [
          k,
          isDeferred(v)
            ? deferred(v.refs, (values) => {
                const text = v.render(values);
                renderedEnv[k] = text;
                return text;
              }, v.display)
            : v,
        ]),
      );
    }
    const dest0 = raw.ctype === 'file.fetch' || raw.ctype === 'unarchive' ? 'destination' : 'path';
    if (isDeferred(shown) && isDeferred(params[dest0])) {
      params[dest0] = deferred(shown.refs, (values) => {
        const text = shown.render(values);
        if (typeof text === 'string') rendered.value = text;
        return abs(text);
      }, shown.display);
    }
    const paramSpans: Record<string, Span> = {};
    const dest = raw.ctype === 'file.fetch' || raw.ctype === 'unarchive' ? 'destination' : 'path';
    for (const [name, v] of raw.fields) paramSpans[name === 'destination' ? dest : name] = v.span;
    for (const [from, to] of [['user', 'owner'], ['uid', 'owner'], ['gid', 'group']] as const) if (raw.fields.has(from)) paramSpans[to] = raw.fields.get(from)?.span as Span;
    return {
      id: raw.id,
      type: CORE_TYPE[raw.ctype] as string,
      name: raw.id,
      params,
      span: raw.span,
      paramSpans,
      meta: { converge: raw.ctype, ...(typeof shown === 'string' ? { destination: shown } : isDeferred(shown) ? { rendered } : {}), ...(isTask(raw.ctype) ? { task: true, renderedEnv } : {}), ...(raw.ctype === 'file.owner' ? { verbose: bool(this.renderer.field(raw, 'verbose')) === true } : {}) },
    };
  }

  /** Switch and case nodes, and nodes of a branch not taken: they print, and change nothing. */
  nop(raw: RawNode): GraphNode {
    return {
      id: raw.id,
      type: 'test',
      name: raw.id,
      params: { action: 'noop' },
      span: raw.span,
      meta: { converge: raw.ctype, ...(raw.skipped !== undefined ? { skipped: raw.skipped } : {}) },
    };
  }

  /** The ids `depends` names: siblings, or every resource inside a sibling module. */
  dependsTargets(raw: RawNode, all: readonly RawNode[]): Array<{ id: string; span: Span; shown: string }> {
    const v = raw.fields.get('depends');
    if (!v) return [];
    if (v.kind !== 'list') {
      this.diags.push(error('CV053', `"depends" is not a list, it is a ${v.kind === 'object' ? 'map' : v.kind}: write depends = [${v.kind === 'string' ? JSON.stringify(v.value) : '...'}]`, { span: v.span }));
      return [];
    }
    const items: HclValue[] = [...v.items];
    const out: Array<{ id: string; span: Span; shown: string }> = [];
    for (const item of items) {
      if (item.kind !== 'string') {
        this.diags.push(error('CV050', 'depends must be a list of node names such as "task.name"', { span: item.span }));
        continue;
      }
      // A node in a switch case may name a node of the module around the switch.
      let home: Scope | undefined = raw.scope;
      let target = home.nodes.get(item.value);
      while (!target && home?.branch && home.parent) {
        home = home.parent;
        target = home.nodes.get(item.value);
      }
      if (!target) {
        this.diags.push(error('CV051', `depends on unknown node ${JSON.stringify(item.value)} in ${raw.scope.id}`, { span: item.span }));
        continue;
      }
      if (target.ctype === 'module') {
        for (const n of all) if (n.id.startsWith(`${target.id}/`)) out.push({ id: n.id, span: item.span, shown: target.id });
      } else out.push({ id: target.id, span: item.span, shown: target.id });
    }
    return out;
  }
}

function addEdge(edges: Edge[], seen: Set<string>, from: string, to: string, span?: Span): void {
  const key = `${from}\u0000${to}`;
  if (from === to || seen.has(key)) return;
  seen.add(key);
  edges.push({ from, to, kind: 'depends', ...(span ? { span } : {}) });
}

/** Loads, renders and links a Converge file; every problem is a positioned diagnostic. */
/**
 * `phase` is the run the program is compiled for: `apply` lets lookups read what an apply printed, any
 * other run reads the status of the check (see Renderer).
 */
export function compileConverge(file: string, params: ReadonlyMap<string, string>, phase: Phase = 'plan'): ConvergeProgram {
  const compiler = new Compiler(phase);
  const loader = new Loader(compiler.renderer);
  const root = loader.load(file, 'root', params, true);
  const nodes: GraphNode[] = [];
  const types = new Map<string, string>();
  for (const raw of loader.nodes) {
    const n = compiler.node(raw);
    if (n) {
      nodes.push(n);
      types.set(n.id, raw.ctype);
    }
  }
  const edges: Edge[] = [];
  const seen = new Set<string>();
  const viewEdges: Edge[] = [];
  const viewSeen = new Set<string>();
  const groups = new Map<string, string[]>();
  const ids = new Set(nodes.map((n) => n.id));
  for (const raw of loader.nodes) {
    if (!ids.has(raw.id)) continue;
    for (const t of compiler.dependsTargets(raw, loader.nodes)) {
      addEdge(edges, seen, t.id, raw.id, t.span);
      addEdge(viewEdges, viewSeen, t.shown, raw.id, t.span);
    }
    for (const t of compiler.renderer.lookups.get(raw.id) ?? []) {
      if (!ids.has(t)) continue;
      addEdge(edges, seen, t, raw.id, raw.span);
      addEdge(viewEdges, viewSeen, t, raw.id, raw.span);
    }
    const group = raw.fields.get('group');
    if (group) {
      const name = compiler.renderer.field(raw, 'group');
      if (typeof name !== 'string' || hasDeferred(name)) compiler.diags.push(error('CV052', 'group must be a string', { span: group.span }));
      else {
        let members = groups.get(name);
        if (!members) groups.set(name, (members = []));
        members.push(raw.id);
      }
    }
  }
  // A module that depends on a node waits for it: so does every node inside the module.
  for (const m of loader.moduleNodes) {
    for (const t of compiler.dependsTargets(m, loader.nodes)) {
      addEdge(viewEdges, viewSeen, t.shown, m.id, t.span);
      for (const n of loader.nodes) if (n.id.startsWith(`${m.id}/`) && ids.has(n.id)) addEdge(edges, seen, t.id, n.id, t.span);
    }
  }
  // Members of a group run one at a time, in file order.
  for (const members of groups.values()) {
    for (let i = 1; i < members.length; i++) {
      addEdge(edges, seen, members[i - 1] as string, members[i] as string);
      addEdge(viewEdges, viewSeen, members[i - 1] as string, members[i] as string);
    }
  }
  // A switch waits for its cases, each case for the nodes it holds and for the case before it.
  for (const raw of loader.nodes) {
    if (raw.ctype !== 'macro.switch' || !ids.has(raw.id)) continue;
    const cases = loader.nodes.filter((n) => n.ctype === 'macro.case' && n.id.startsWith(`${raw.id}/`) && !n.id.slice(raw.id.length + 1).includes('/'));
    cases.forEach((c, i) => {
      for (const e of [edges, viewEdges]) {
        const s2 = e === edges ? seen : viewSeen;
        for (const inner of loader.nodes) if (inner.id.startsWith(`${c.id}/`) && !inner.id.slice(c.id.length + 1).includes('/') && ids.has(inner.id)) addEdge(e, s2, inner.id, c.id);
        addEdge(e, s2, c.id, raw.id);
        const next = cases[i + 1];
        if (next) addEdge(e, s2, c.id, next.id);
      }
    });
  }
  const diags = [...loader.diags, ...compiler.renderer.diags, ...compiler.diags];
  if (diags.length > 0) throw new DiagnosticError(dedupe(diags));
  return { graph: { nodes, edges }, modules: loader.modules, root, types, viewEdges, paramUses: compiler.renderer.paramUses, lookups: compiler.renderer.lookups };
}

function dedupe(diags: readonly Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return diags.filter((d) => {
    const key = `${d.span?.file}:${d.span?.line}:${d.span?.col}:${d.code}:${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
