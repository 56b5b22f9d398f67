/**
 * Converge modules → core graph: one node per resource block (ids `root/module.m/kind.name`), params of a
 * shared kind, and `depends` edges from `depends = [...]`, from lookups, and from `group` chains.
 */
import { type Diagnostic, DiagnosticError, error, type Span } from '../../core/diag.js';
import type { Graph } from '../../core/graph.js';
import { deferred, type Edge, type GraphNode, hasDeferred, isDeferred } from '../../core/model.js';
import type { HclValue } from '../../lang/hcl1/index.js';
import { allowedFields, FIELDS, isTask, UNSUPPORTED } from './fields.js';
import { Loader } from './load.js';
import { abs, bool, CORE_TYPE, resourceParams } from './params.js';
import { type Phase, Renderer, type TargetView } from './render.js';
import { convergePlatform, runSyntaxChecks, type SyntaxCheck } from './target.js';
import type { Host } from '../../host/types.js';
import { NodeTree } from './tree.js';
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
  /** Values of `sensitive` params: masked wherever the program itself is shown. */
  readonly secrets: readonly string[];
}


/** Fields whose span is also the span of the param they become. */
const SPAN_ALIASES = [
  ['user', 'owner'],
  ['uid', 'owner'],
  ['gid', 'group'],
] as const;

/** A field that is a string without a template: its own value (what the renderer gives it); else undefined. */
function plainString(v: HclValue | undefined): string | undefined {
  return v !== undefined && v.kind === 'string' && !v.value.includes('{{') ? v.value : undefined;
}

/**
 * The most common node, a file.content block whose fields are a destination and content written as
 * plain strings (or left out), compiled without the general walk: what Compiler.node gives it (the same
 * params, spans in the fields' order, and meta); undefined for any other block.
 */
function plainFileContent(raw: RawNode): GraphNode | undefined {
  const fields = raw.fields;
  const destination = fields.get('destination');
  const content = fields.get('content');
  if (fields.size !== (destination === undefined ? 0 : 1) + (content === undefined ? 0 : 1)) return undefined;
  const shown = plainString(destination);
  const text = plainString(content);
  if ((destination !== undefined && shown === undefined) || (content !== undefined && text === undefined)) return undefined;
  // Made whole where they can be (no empty object grown a key at a time).
  let paramSpans: Record<string, Span>;
  if (destination !== undefined && content !== undefined) paramSpans = before(content.span, destination.span) ? { content: content.span, path: destination.span } : { path: destination.span, content: content.span };
  else paramSpans = destination !== undefined ? { path: destination.span } : content !== undefined ? { content: content.span } : {};
  const params = { path: abs(shown), content: text ?? '', new_mode: '0600' };
  const meta: Record<string, unknown> = shown !== undefined ? { converge: raw.ctype, destination: shown } : { converge: raw.ctype };
  return { id: raw.id, type: CORE_TYPE[raw.ctype] as string, name: raw.id, params, span: raw.span, paramSpans, meta };
}

/** Whether position `a` comes before `b` in the same file. */
const before = (a: Span, b: Span): boolean => a.line < b.line || (a.line === b.line && a.col < b.col);

class Compiler {
  readonly diags: Diagnostic[] = [];
  readonly renderer: Renderer;
  /** Check scripts to syntax-check on the target before anything runs. */
  readonly checks: SyntaxCheck[] = [];

  constructor(phase: Phase, target: TargetView) {
    this.renderer = new Renderer(phase, target);
  }

  node(raw: RawNode): GraphNode | undefined {
    if (raw.ctype === 'file.content' && raw.skipped === undefined) {
      const plain = plainFileContent(raw);
      if (plain !== undefined) return plain;
    }
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
    // The spans of the params the fields become, taken in the same walk (the destination is the
    // param its type acts on).
    const dest = raw.ctype === 'file.fetch' || raw.ctype === 'unarchive' ? 'destination' : 'path';
    const paramSpans: Record<string, Span> = {};
    raw.fields.forEach((v, name) => {
      if (!allowed.includes(name)) this.diags.push(error('CV032', `${raw.ctype} has no field ${JSON.stringify(name)} (fields: ${allowed.join(', ')})`, { span: v.span }));
      paramSpans[name === 'destination' ? dest : name] = v.span;
    });
    if (raw.skipped !== undefined) return this.nop(raw);
    const params = resourceParams(raw, this.renderer, this.diags, this.checks);
    if (!params) return undefined;
    // The destination as written, for display: Converge prints a relative path as given.
    const shown = raw.fields.has('destination') ? this.renderer.field(raw, 'destination') : undefined;
    const task = isTask(raw.ctype);
    // Env values known only at run time: keep what they render to, for the task's `env (...)` line.
    const renderedEnv: Record<string, unknown> | undefined = task ? {} : undefined;
    const env = params.env;
    if (renderedEnv !== undefined && typeof env === 'object' && env !== null && hasDeferred(env)) {
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
    // A destination known only at run time: keep the text it renders to, to print it as converge does.
    const rendered: { value?: string } | undefined = isDeferred(shown) ? {} : undefined;
    if (isDeferred(shown) && rendered !== undefined && isDeferred(params[dest])) {
      params[dest] = deferred(shown.refs, (values) => {
        const text = shown.render(values);
        if (typeof text === 'string') rendered.value = text;
        return abs(text);
      }, shown.display);
    }
    for (let i = 0; i < SPAN_ALIASES.length; i++) {
      const alias = SPAN_ALIASES[i] as (typeof SPAN_ALIASES)[number];
      const v = raw.fields.get(alias[0]);
      if (v !== undefined) paramSpans[alias[1]] = v.span;
    }
    // Built key by key rather than spread together: the same keys in the same order, without a copy per part.
    const meta: Record<string, unknown> = { converge: raw.ctype };
    if (typeof shown === 'string') meta.destination = shown;
    else if (rendered !== undefined) meta.rendered = rendered;
    if (renderedEnv !== undefined) {
      meta.task = true;
      meta.renderedEnv = renderedEnv;
    }
    if (raw.ctype === 'file.owner') meta.verbose = bool(this.renderer.field(raw, 'verbose')) === true;
    return { id: raw.id, type: CORE_TYPE[raw.ctype] as string, name: raw.id, params, span: raw.span, paramSpans, meta };
  }

  /** Switch and case nodes, and nodes of a branch not taken: they print, and change nothing. */
  nop(raw: RawNode): GraphNode {
    return {
      id: raw.id,
      type: 'test',
      name: raw.id,
      params: { action: 'noop' },
      span: raw.span,
      meta: raw.skipped !== undefined ? { converge: raw.ctype, skipped: raw.skipped } : { converge: raw.ctype },
    };
  }

  /** The ids `depends` names: siblings, or every resource inside a sibling module. */
  dependsTargets(raw: RawNode, tree: () => NodeTree): Array<{ id: string; span: Span; shown: string }> {
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
        for (const n of tree().within(target.id)) out.push({ id: n.id, span: item.span, shown: target.id });
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

/**
 * Loads, renders and links a Converge file for one target host; every problem is a positioned diagnostic.
 * `phase` is the run the program is compiled for: `apply` lets lookups read what an apply printed, any
 * other run reads the status of the check (see Renderer). `platform` and `env` come from the host's facts, and the
 * check scripts are syntax-checked on the host, as converge does both on the machine it runs on. The facts
 * are read only for a program whose templates may call `platform` or `env`: it is then compiled again with
 * them (reading the facts runs a shell script on the target, which costs a small run more than its work).
 */
export async function compileConverge(file: string, params: ReadonlyMap<string, string>, phase: Phase, host: Host): Promise<ConvergeProgram> {
  let built = link(file, params, phase, NO_TARGET);
  if (built.compiler.renderer.readsTarget) {
    const facts = await host.facts();
    built = link(file, params, phase, { platform: convergePlatform(facts), env: facts.env });
  }
  const { loader, compiler, nodes, edges, root, types, viewEdges } = built;
  const diags = [...loader.diags, ...compiler.renderer.diags, ...compiler.diags, ...(await runSyntaxChecks(compiler.checks, host))];
  if (diags.length > 0) throw new DiagnosticError(dedupe(diags));
  return { graph: { nodes: markSecret(nodes, loader.secrets, compiler.renderer.lookups), edges }, modules: loader.modules, root, types, viewEdges, paramUses: compiler.renderer.paramUses, lookups: compiler.renderer.lookups, secrets: loader.secrets };
}

/** What templates see of a target whose facts were not read: no program that reads them keeps this view. */
const NO_TARGET: TargetView = { platform: {}, env: {} };

/** Loads, renders and links a file against one view of the target; the diagnostics are left in the parts. */
function link(file: string, params: ReadonlyMap<string, string>, phase: Phase, target: TargetView) {
  const compiler = new Compiler(phase, target);
  const loader = new Loader(compiler.renderer);
  const root = loader.load(file, 'root', params, true);
  const nodes: GraphNode[] = [];
  const types = new Map<string, string>();
  const raws = loader.nodes;
  for (let i = 0; i < raws.length; i++) {
    const raw = raws[i] as RawNode;
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
  // The ids of the nodes that compiled; when every raw node did, the set is made only if a lookup or a
  // container asks.
  const some = nodes.length < loader.nodes.length ? new Set(nodes.map((n) => n.id)) : undefined;
  let all: Set<string> | undefined;
  const ids = { has: (id: string): boolean => (some ?? (all ??= new Set(nodes.map((n) => n.id)))).has(id) };
  // The tree of containers is needed only by modules, switches and depends on a module: made on first use.
  let built: NodeTree | undefined;
  const tree = (): NodeTree => (built ??= new NodeTree(loader.nodes));
  const lookups = compiler.renderer.lookups;
  for (let i = 0; i < raws.length; i++) {
    const raw = raws[i] as RawNode;
    if (some !== undefined && !some.has(raw.id)) continue;
    if (raw.fields.has('depends')) {
      for (const t of compiler.dependsTargets(raw, tree)) {
        addEdge(edges, seen, t.id, raw.id, t.span);
        addEdge(viewEdges, viewSeen, t.shown, raw.id, t.span);
      }
    }
    const looked = lookups.size > 0 ? lookups.get(raw.id) : undefined;
    if (looked !== undefined) {
      for (const t of looked) {
        if (!ids.has(t)) continue;
        addEdge(edges, seen, t, raw.id, raw.span);
        addEdge(viewEdges, viewSeen, t, raw.id, raw.span);
      }
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
    for (const t of compiler.dependsTargets(m, tree)) {
      addEdge(viewEdges, viewSeen, t.shown, m.id, t.span);
      for (const n of tree().within(m.id)) if (ids.has(n.id)) addEdge(edges, seen, t.id, n.id, t.span);
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
  for (let i = 0; i < raws.length; i++) {
    const raw = raws[i] as RawNode;
    if (raw.ctype !== 'macro.switch' || !ids.has(raw.id)) continue;
    const cases = tree().directlyIn(raw.id).filter((n) => n.ctype === 'macro.case');
    cases.forEach((c, i) => {
      for (const e of [edges, viewEdges]) {
        const s2 = e === edges ? seen : viewSeen;
        for (const inner of tree().directlyIn(c.id)) if (ids.has(inner.id)) addEdge(e, s2, inner.id, c.id);
        addEdge(e, s2, c.id, raw.id);
        const next = cases[i + 1];
        if (next) addEdge(e, s2, c.id, next.id);
      }
    });
  }
  return { loader, compiler, nodes, edges, root, types, viewEdges };
}

/**
 * A node whose params hold the value of a `sensitive` param is secret (its results show only that it
 * changed, see redact.ts), and so is every node that looks up a secret node's values, directly or not.
 */
function markSecret(nodes: GraphNode[], secrets: readonly string[], lookups: ReadonlyMap<string, ReadonlySet<string>>): GraphNode[] {
  // A value of fewer than 3 characters ("1", "on") would mark and mask everything: as redact.ts, such values are not followed.
  const values = [...new Set(secrets.filter((v) => v.trim().length >= 3))];
  if (values.length === 0) return nodes;
  const holds = (v: unknown): boolean =>
    typeof v === 'string' || typeof v === 'number' ? values.some((s) => String(v).includes(s)) : Array.isArray(v) ? v.some(holds) : typeof v === 'object' && v !== null ? Object.values(v).some(holds) : false;
  const secret = new Set(nodes.filter((n) => holds(n.params)).map((n) => n.id));
  // Spread along the lookups, from each node to the nodes that look it up: one visit per node.
  const lookedUpBy = new Map<string, string[]>();
  for (const n of nodes) {
    for (const t of lookups.get(n.id) ?? []) {
      const list = lookedUpBy.get(t);
      if (list) list.push(n.id);
      else lookedUpBy.set(t, [n.id]);
    }
  }
  const queue = [...secret];
  for (let i = 0; i < queue.length; i++) {
    for (const id of lookedUpBy.get(queue[i] as string) ?? []) {
      if (secret.has(id)) continue;
      secret.add(id);
      queue.push(id);
    }
  }
  return nodes.map((n) => (secret.has(n.id) ? { ...n, secret: { values } } : n));
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
