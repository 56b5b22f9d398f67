/**
 * The language-neutral graph file (JSON, or YAML for hand-written graphs), the format every front end
 * compiles to. Parsing takes the fast path (JSON.parse) and only re-reads the text with positions when
 * there is something to report.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { MAX_NESTING, nestingDiagnostic, valueDeeperThan } from '../../core/nesting.js';
import { maskValues } from '../../core/redact.js';
import type { Node as YamlNode } from 'yaml';
import { type Diagnostic, DiagnosticError, error, LineMap, type Span } from '../../core/diag.js';
import { JsonSpans } from './json-spans.js';
import type { Graph } from '../../core/graph.js';
import { deferred, type Deferred, EDGE_KINDS, type Edge, type GraphNode } from '../../core/model.js';

export const GRAPH_VERSION = 1;

type PathKey = string | number;
type SpanOf = (path: readonly PathKey[]) => Span | undefined;

/** The fast load's span lookup: no positions, so no key paths are built for it either. */
const noSpans: SpanOf = () => undefined;
const NO_PATH: readonly PathKey[] = [];

const NODE_KEYS = new Set(['id', 'type', 'name', 'params', 'meta', 'secret', ...EDGE_KINDS]);

/** Where a node's secret values are collected while its params are read. */
interface SecretSink {
  readonly file: string;
  readonly values: string[];
}

/**
 * `{"$secret": {"env": "NAME"}}` or `{"$secret": {"file": "PATH"}}`: read now, on the controller. The
 * value is kept with the node so that its results never show it; no diagnostic quotes it.
 */
function readSecret(o: Record<string, unknown>, path: readonly PathKey[], spanOf: SpanOf, diags: Diagnostic[], sink: SecretSink): string | null {
  const spec = o.$secret as Record<string, unknown> | null;
  const keys = typeof spec === 'object' && spec !== null && !Array.isArray(spec) ? Object.keys(spec) : [];
  const from = keys[0];
  if (Object.keys(o).length !== 1 || keys.length !== 1 || (from !== 'env' && from !== 'file') || typeof spec?.[from] !== 'string' || spec[from] === '') {
    diags.push(error('F014', 'a secret is written {"$secret": {"env": "NAME"}} or {"$secret": {"file": "PATH"}}', { span: spanOf(path) }));
    return null;
  }
  const name = spec[from] as string;
  let value: string | undefined;
  if (from === 'env') {
    value = process.env[name];
    if (value === undefined) diags.push(error('F015', `the secret's environment variable ${name} is not set`, { span: spanOf(path) }));
  } else {
    const where = resolve(dirname(sink.file), name);
    try {
      value = readFileSync(where, 'utf8');
    } catch (e) {
      diags.push(error('F015', `the secret's file ${where} cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`, { span: spanOf(path) }));
    }
  }
  if (value === undefined) return null;
  sink.values.push(value);
  return value;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/**
 * `{"$ref": "node", "field": "f"}` and `{"$concat": [...]}` become deferred values. `depth` is how deep `v`
 * sits in the file's brackets: the fast load (JSON.parse, which does not recurse) relies on this walk to
 * refuse what nests too deeply, and the positioned load's text scan then says where.
 */
function toParamValue(v: unknown, path: readonly PathKey[], spanOf: SpanOf, diags: Diagnostic[], sink: SecretSink, depth: number): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (depth > MAX_NESTING) {
    diags.push(error('F013', `nesting deeper than ${MAX_NESTING} levels is not supported here`, { span: spanOf(path) }));
    return null;
  }
  const fast = spanOf === noSpans;
  if (Array.isArray(v)) {
    const items = v.map((x, i) => toParamValue(x, fast ? path : [...path, i], spanOf, diags, sink, depth + 1));
    return items.every((x, i) => x === v[i]) ? v : items;
  }
  const o = v as Record<string, unknown>;
  if ('$secret' in o) return readSecret(o, path, spanOf, diags, sink);
  if ('$ref' in o) {
    if (typeof o.$ref !== 'string' || typeof o.field !== 'string' || Object.keys(o).length !== 2) {
      diags.push(error('F010', 'a reference is written {"$ref": "node-id", "field": "name"}', { span: spanOf(path) }));
      return null;
    }
    const ref = { node: o.$ref, field: o.field };
    return deferred([ref], (vals) => vals[0], `${ref.node}.${ref.field}`);
  }
  if ('$concat' in o) {
    if (!Array.isArray(o.$concat) || Object.keys(o).length !== 1) {
      diags.push(error('F011', '"$concat" takes a list of strings and references', { span: spanOf(path) }));
      return null;
    }
    const parts = o.$concat.map((x, i) => toParamValue(x, [...path, '$concat', i], spanOf, diags, sink, depth + 2));
    const refs = parts.flatMap((p) => (isDeferredValue(p) ? p.refs : []));
    return deferred(
      refs,
      (vals) => {
        let i = 0;
        return parts.map((p) => (isDeferredValue(p) ? String(p.render(vals.slice(i, (i += p.refs.length)))) : String(p))).join('');
      },
      JSON.stringify(parts.map((p) => (isDeferredValue(p) ? `\${${p.display}}` : String(p))).join('')),
    );
  }
  // Plain data (the usual case) is kept as parsed; a copy is made only where a value becomes another.
  let out: Record<string, unknown> | undefined;
  for (const k in o) {
    const was = o[k];
    const now = toParamValue(was, fast ? path : [...path, k], spanOf, diags, sink, depth + 1);
    if (now !== was && out === undefined) {
      out = {};
      for (const before in o) {
        if (before === k) break;
        out[before] = o[before];
      }
    }
    if (out !== undefined) out[k] = now;
  }
  return out ?? o;
}

function isDeferredValue(v: unknown): v is Deferred {
  return typeof v === 'object' && v !== null && (v as { $deferred?: unknown }).$deferred === true;
}

/** Builds graph nodes and edges from parsed data; structural problems become diagnostics. */
export function buildGraph(data: unknown, file: string, spanOf: SpanOf): { graph: Graph; diagnostics: Diagnostic[] } {
  const diags: Diagnostic[] = [];
  const nodes: GraphNode[] = [];
  const edges: Edge[] = [];
  const at = (path: readonly PathKey[]) => spanOf(path) ?? { file, line: 1, col: 1 };
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    diags.push(error('F001', `a graph file holds an object with "version" and "nodes", not ${typeName(data)}`, { span: at([]) }));
    return { graph: { nodes, edges }, diagnostics: diags };
  }
  const top = data as Record<string, unknown>;
  if (top.version !== GRAPH_VERSION) {
    diags.push(error('F002', `unsupported graph version ${JSON.stringify(top.version ?? null)} (this cairn reads version ${GRAPH_VERSION})`, { span: at(['version']) }));
  }
  if (!Array.isArray(top.nodes)) {
    diags.push(error('F003', `"nodes" must be a list of nodes, not ${typeName(top.nodes)}`, { span: at(['nodes']) }));
    return { graph: { nodes, edges }, diagnostics: diags };
  }
  // What secrets each node's params read: one list, each node's part taken from where it starts.
  const sink: SecretSink = { file, values: [] };
  top.nodes.forEach((raw, i) => {
    // The fast load has no positions to find: no key paths are built for them.
    const path: readonly PathKey[] = spanOf === noSpans ? NO_PATH : ['nodes', i];
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      diags.push(error('F004', `a node is an object with "id", "type" and "params", not ${typeName(raw)}`, { span: at(path) }));
      return;
    }
    const n = raw as Record<string, unknown>;
    for (const key in n) {
      if (!NODE_KEYS.has(key)) diags.push(error('F005', `unknown node field ${JSON.stringify(key)} (known: ${[...NODE_KEYS].join(', ')})`, { span: at([...path, key]) }));
    }
    if (typeof n.id !== 'string' || n.id === '') {
      diags.push(error('F006', `node ${i + 1} needs a non-empty string "id"`, { span: at(n.id === undefined ? path : [...path, 'id']) }));
      return;
    }
    const id = n.id;
    if (typeof n.type !== 'string' || n.type === '') {
      diags.push(error('F007', `node ${JSON.stringify(id)} needs a string "type"`, { span: at(n.type === undefined ? path : [...path, 'type']), nodeId: id }));
      return;
    }
    if (n.name !== undefined && typeof n.name !== 'string') {
      diags.push(error('F008', `node ${JSON.stringify(id)}: "name" must be a string`, { span: at([...path, 'name']), nodeId: id }));
    }
    const rawParams = n.params ?? {};
    if (typeof rawParams !== 'object' || rawParams === null || Array.isArray(rawParams)) {
      diags.push(error('F009', `node ${JSON.stringify(id)}: "params" must be an object`, { span: at([...path, 'params']), nodeId: id }));
      return;
    }
    if (n.secret !== undefined && typeof n.secret !== 'boolean') {
      diags.push(error('F016', `node ${JSON.stringify(id)}: "secret" must be true or false`, { span: at([...path, 'secret']), nodeId: id }));
    }
    numericModes(id, rawParams as Record<string, unknown>, path, at, diags);
    const secretsFrom = sink.values.length;
    // The params object is 4 deep: the file's object, "nodes", the node, "params".
    const params = toParamValue(rawParams, spanOf === noSpans ? NO_PATH : [...path, 'params'], spanOf, diags, sink, 4) as Record<string, unknown>;
    if (n.meta !== undefined && valueDeeperThan(n.meta, MAX_NESTING - 3)) {
      diags.push(error('F013', `nesting deeper than ${MAX_NESTING} levels is not supported here`, { span: at([...path, 'meta']), nodeId: id }));
    }
    const secret = n.secret === true || sink.values.length > secretsFrom ? { values: sink.values.slice(secretsFrom) } : undefined;
    const span = spanOf(path);
    const node: { -readonly [K in keyof GraphNode]: GraphNode[K] } = { id, type: n.type, name: typeof n.name === 'string' ? n.name : id, params };
    if (span) {
      const paramSpans: Record<string, Span> = {};
      for (const k of Object.keys(params)) {
        const s = spanOf([...path, 'params', k]);
        if (s) paramSpans[k] = s;
      }
      node.span = span;
      node.paramSpans = paramSpans;
    }
    if (typeof n.meta === 'object' && n.meta !== null) node.meta = n.meta as Record<string, unknown>;
    if (secret) node.secret = secret;
    nodes.push(node);
    for (const kind of EDGE_KINDS) {
      const list = n[kind];
      if (list === undefined) continue;
      const deps = typeof list === 'string' ? [list] : list;
      if (!Array.isArray(deps) || deps.some((d) => typeof d !== 'string')) {
        diags.push(error('F012', `node ${JSON.stringify(id)}: "${kind}" must be a list of node ids`, { span: at([...path, kind]), nodeId: id }));
        continue;
      }
      for (let j = 0; j < deps.length; j++) {
        const from = deps[j] as string;
        const es = spanOf === noSpans ? undefined : spanOf(typeof list === 'string' ? [...path, kind] : [...path, kind, j]);
        edges.push(es ? { from, to: id, kind, span: es } : { from, to: id, kind });
      }
    }
  });
  return { graph: { nodes: secretsFlow(nodes), edges }, diagnostics: diags };
}

/** Params that hold a permission mode: a JSON number there is ambiguous (644 is not 0644), so refused. */
const MODE_PARAMS = /^(?:mode|new_mode|dir_mode|file_mode)$/;

function numericModes(id: string, params: Record<string, unknown>, path: readonly PathKey[], at: (path: readonly PathKey[]) => Span, diags: Diagnostic[]): void {
  for (const k in params) {
    const v = params[k];
    if (typeof v !== 'number' || !MODE_PARAMS.test(k)) continue;
    const digits = String(Math.trunc(Math.abs(v)));
    const hint = /^[0-7]{1,4}$/.test(digits) ? `0${digits.padStart(3, '0')}`.slice(-4) : `0${(Math.trunc(Math.abs(v)) & 0o7777).toString(8).padStart(3, '0')}`;
    diags.push(
      error('F017', `node ${JSON.stringify(id)}: "${k}" is the number ${v}, which is not an octal mode; write "${hint}" (a string)`, {
        span: at([...path, 'params', k]),
        nodeId: id,
      }),
    );
  }
}

function refsIn(v: unknown, out: string[]): string[] {
  if (isDeferredValue(v)) for (const r of v.refs) out.push(r.node);
  else if (Array.isArray(v)) for (const x of v) refsIn(x, out);
  else if (typeof v === 'object' && v !== null) for (const x of Object.values(v)) refsIn(x, out);
  return out;
}

/**
 * A node whose params refer to a secret node's outputs is secret too (its values may come from one), and
 * so on down a chain of references: it keeps every secret value it can be given. Spread from the secret
 * nodes along the references, a node visited again only when it gains a value, so a long chain costs
 * one visit per node.
 */
function secretsFlow(nodes: GraphNode[]): GraphNode[] {
  if (!nodes.some((n) => n.secret)) return nodes;
  const dependents = new Map<string, string[]>();
  for (const n of nodes) {
    for (const id of refsIn(n.params, [])) {
      const list = dependents.get(id);
      if (list) list.push(n.id);
      else dependents.set(id, [n.id]);
    }
  }
  const own = new Map(nodes.filter((n) => n.secret).map((n) => [n.id, n.secret?.values ?? []]));
  const given = new Map<string, Set<string>>();
  const queue = [...own.keys()];
  for (let i = 0; i < queue.length; i++) {
    const id = queue[i] as string;
    const values = own.get(id) ?? given.get(id) ?? [];
    for (const d of dependents.get(id) ?? []) {
      if (own.has(d)) continue;
      let set = given.get(d);
      let grew = !set;
      if (!set) given.set(d, (set = new Set()));
      for (const v of values) {
        if (set.has(v)) continue;
        set.add(v);
        grew = true;
      }
      if (grew) queue.push(d);
    }
  }
  if (given.size === 0) return nodes;
  return nodes.map((n) => {
    const values = given.get(n.id);
    return values && !n.secret ? { ...n, secret: { values: [...values] } } : n;
  });
}

/** Span lookups into a YAML/JSON text by key path. The yaml library loads only when needed (start-up time). */
export async function yamlSpans(file: string, text: string): Promise<{ data: unknown; spanOf: SpanOf; diagnostics: Diagnostic[] }> {
  const { isMap, isSeq, LineCounter, parseDocument } = await import('yaml');
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, version: '1.2', uniqueKeys: true, prettyErrors: false });
  const diagnostics = doc.errors.map((e) => {
    const pos = lc.linePos(e.pos[0]);
    return error('F000', e.message.split('\n')[0] ?? e.message, { span: { file, line: pos.line, col: pos.col } });
  });
  const spanOf: SpanOf = (path) => {
    let node: unknown = doc.contents;
    let keyNode: YamlNode | undefined;
    for (const key of path) {
      keyNode = undefined;
      if (isMap(node)) {
        const pair = node.items.find((p) => (p.key as { value?: unknown } | null)?.value === key);
        if (!pair) return undefined;
        keyNode = pair.key as YamlNode;
        node = pair.value;
      } else if (isSeq(node) && typeof key === 'number') {
        node = node.items[key];
      } else return undefined;
    }
    // Point at the value; at the key when the value is empty (`"params":` with nothing after it).
    const target = ((node as YamlNode | null)?.range ? node : keyNode) as YamlNode | null;
    const range = target?.range;
    if (!range) return undefined;
    const pos = lc.linePos(range[0]);
    return { file, line: pos.line, col: pos.col };
  };
  return { data: diagnostics.length > 0 ? undefined : doc.toJS(), spanOf, diagnostics };
}

function jsonSyntaxError(file: string, text: string, e: Error): Diagnostic {
  const m = /(.*?)(?: in JSON)? at position (\d+)/.exec(e.message);
  const span = m ? new LineMap(file, text).span(Number(m[2])) : { file, line: 1, col: 1 };
  return error('F000', `invalid JSON: ${(m?.[1] ?? e.message).replace(/^JSON\.parse: /, '')}`, { span });
}

/**
 * Reads a graph from text. Throws DiagnosticError on structural problems; `extraCheck` runs on the built
 * graph (kind validation) and its diagnostics are positioned the same way.
 */
export async function parseGraphText(
  file: string,
  text: string,
  extraCheck: (g: Graph) => Diagnostic[] = () => [],
  options: { withSpans?: boolean } = {},
): Promise<Graph> {
  const isJson = !/\.ya?ml$/i.test(file);
  let data: unknown;
  if (isJson && !options.withSpans) {
    // The fast path: JSON.parse does not recurse, and buildGraph's walk refuses what nests too deeply;
    // only a graph with something to report goes on to the positioned path below.
    try {
      data = JSON.parse(text);
    } catch {
      data = undefined;
    }
    if (data !== undefined) {
      const fast = buildGraph(data, file, noSpans);
      if (fast.diagnostics.length === 0 && extraCheck(fast.graph).length === 0) return fast.graph;
    }
  }
  const tooDeep = nestingDiagnostic(file, text, 'F013', { quotes: isJson ? '"' : '"\'' });
  if (tooDeep) throw new DiagnosticError([tooDeep]);
  if (isJson) {
    try {
      data = JSON.parse(text);
    } catch (e) {
      throw new DiagnosticError([jsonSyntaxError(file, text, e as Error)]);
    }
  }
  let built: { graph: Graph; diagnostics: Diagnostic[] };
  if (isJson) {
    // JSON.parse has read it: only positions are wanted, found by a scan of the parts the checks name.
    const spans = new JsonSpans(file, text);
    built = buildGraph(data, file, (path) => spans.spanOf(path));
  } else {
    const y = await yamlSpans(file, text);
    if (y.diagnostics.length > 0) throw new DiagnosticError(y.diagnostics);
    built = buildGraph(y.data, file, y.spanOf);
  }
  // A kind's message may quote a wrong value: never a secret one.
  const secrets = built.graph.nodes.flatMap((n) => n.secret?.values ?? []);
  const diagnostics = (built.diagnostics.length > 0 ? built.diagnostics : extraCheck(built.graph)).map((d) => (secrets.length > 0 ? { ...d, message: maskValues(d.message, secrets) } : d));
  if (diagnostics.length > 0) throw new DiagnosticError(diagnostics);
  return built.graph;
}
