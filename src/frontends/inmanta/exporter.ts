/**
 * The exporter: instances of resource entities become resources with ids `type[agent,attr=value]`, their
 * `requires` become resource ids, and each resource becomes a node of the core graph.
 */
import type { Span } from '../../core/diag.js';
import type { Graph } from '../../core/graph.js';
import type { Edge, GraphNode } from '../../core/model.js';
import { maskValues } from '../../core/redact.js';
import type { Compilation } from './compilation.js';
import { allInstances } from './compiler.js';
import { InmantaError } from './errors.js';
import type { Instance } from './instance.js';
import type { EntityType } from './types.js';
import { isInstance, type Value } from './values.js';

interface ResourceSpec {
  /** The attribute that identifies the resource on its agent. */
  readonly idAttribute: string;
  readonly node: (a: Readonly<Record<string, unknown>>) => { type: string; params: Record<string, unknown> };
}

/** The real model writes modes as decimal digits that read as octal (644). */
const mode = (m: unknown): string | undefined => (typeof m === 'number' ? `0${String(m).padStart(3, '0')}` : undefined);

/** `params` with the mode, owner and group the attributes give (in that order), each only when there is one. */
function withModeAndOwnership(params: Record<string, unknown>, a: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const m = mode(a.mode);
  if (m) params.mode = m;
  if (a.owner != null) params.owner = a.owner;
  if (a.group != null) params.group = a.group;
  return params;
}

const SPECS: Readonly<Record<string, ResourceSpec>> = {
  'fs::File': {
    idAttribute: 'path',
    node: (a) =>
      a.purged
        ? { type: 'absent', params: { path: a.path } }
        : { type: 'file', params: withModeAndOwnership({ path: a.path, content: a.content }, a) },
  },
  'fs::Directory': {
    idAttribute: 'path',
    node: (a) => (a.purged ? { type: 'absent', params: { path: a.path } } : { type: 'directory', params: withModeAndOwnership({ path: a.path }, a) }),
  },
  'fs::Symlink': {
    idAttribute: 'target',
    node: (a) => (a.purged ? { type: 'absent', params: { path: a.target } } : { type: 'symlink', params: { path: a.target, target: a.source } }),
  },
  'exec::Run': {
    idAttribute: 'command',
    node: (a) => ({
      type: 'command',
      params: {
        // A reload-only command runs its `reload` command when it has one, as the handler's reload does.
        cmd: a.reload_only === true && typeof a.reload === 'string' && a.reload !== '' ? a.reload : a.command,
        ...(a.cwd ? { cwd: a.cwd } : {}),
        ...(a.environment && Object.keys(a.environment as object).length > 0 ? { env: a.environment } : {}),
        ...(a.unless ? { unless: a.unless } : {}),
        ...(a.onlyif ? { onlyif: a.onlyif } : {}),
        ...(a.creates ? { creates: a.creates } : {}),
        timeout: a.timeout,
        success_codes: a.returns,
      },
    }),
  },
};

export interface ExportedResource {
  readonly id: string;
  readonly type: string;
  readonly agent: string;
  /** Where the agent's std::Host was constructed (absent for the internal agent). */
  readonly agentSpan?: Span;
  readonly attributes: Record<string, unknown>;
  /** The ids it requires, sorted (one shared empty list for the resources that require nothing). */
  readonly requires: readonly string[];
  readonly instance: Instance;
  /** The secret values its attributes hold (from std::password): set only when there are some. */
  readonly secrets?: readonly string[];
}

/** The resource type an entity exports as (itself or its nearest ancestor that is one), with its attribute names. */
interface Exported {
  readonly type: string;
  readonly spec: ResourceSpec;
  readonly attributes: readonly string[];
  /** Where each attribute is in the entity's slot layout, found from its first instance. */
  slots?: readonly number[];
  /**
   * An attributes object with every attribute (in order) holding null: each resource's starts as a copy of
   * it, so that V8 makes its shape once and each value is set in place instead of adding a property.
   */
  blank?: Readonly<Record<string, unknown>>;
  /** Where `host` and `requires` are in that layout, if the entity has them. */
  hostSlot?: number | undefined;
  requiresSlot?: number | undefined;
}

function specOf(entity: EntityType, cache: Map<EntityType, Exported | undefined>): Exported | undefined {
  if (cache.has(entity)) return cache.get(entity);
  let found: Exported | undefined;
  for (const t of entity.lineage()) {
    const spec = SPECS[t.fullName];
    if (spec) {
      found = { type: t.fullName, spec, attributes: [...entity.attributes().keys()] };
      break;
    }
  }
  cache.set(entity, found);
  return found;
}

function resourceId(type: string, agent: string, attr: string, value: unknown): string {
  return `${type}[${agent},${attr}=${String(value)}]`;
}

/** Whether a string somewhere in `v` holds `secret`. */
function holds(v: unknown, secret: string): boolean {
  if (typeof v === 'string') return v.includes(secret);
  if (Array.isArray(v)) return v.some((x) => holds(x, secret));
  if (typeof v === 'object' && v !== null) return Object.values(v).some((x) => holds(x, secret));
  return false;
}

/** `v` with every secret value in its strings masked. */
function masked(v: unknown, secrets: readonly string[]): unknown {
  if (typeof v === 'string') return maskValues(v, secrets);
  if (Array.isArray(v)) return v.map((x) => masked(x, secrets));
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, masked(x, secrets)]));
  return v;
}

const NO_REQUIRES: readonly string[] = Object.freeze([]);

export function exportResources(c: Compilation): ExportedResource[] {
  const instances = allInstances(c);
  // The resources in the order of their instances, and those that require something (themselves or through
  // the instances that built them).
  const exported: ExportedResource[] = [];
  const requiring: ExportedResource[] = [];
  const specs = new Map<EntityType, Exported | undefined>();
  const allSecrets = [...c.secrets];
  // The agent of each std::Host, named once.
  const agents = new Map<Instance, string>();
  for (let n = 0; n < instances.length; n++) {
    const inst = instances[n] as Instance;
    const found = specOf(inst.entity, specs);
    if (!found) continue;
    if (!found.slots) {
      found.slots = found.attributes.map((name) => inst.slots.indexOf(name) as number);
      const blank: Record<string, unknown> = {};
      for (const name of found.attributes) blank[name] = null;
      found.blank = blank;
      found.hostSlot = inst.slots.indexOf('host');
      found.requiresSlot = inst.slots.indexOf('requires');
    }
    const host = found.hostSlot === undefined ? undefined : inst.valueAt(found.hostSlot);
    let agent = 'internal';
    if (isInstance(host)) {
      agent = agents.get(host) as string;
      if (agent === undefined) {
        agent = String(host.value('name'));
        agents.set(host, agent);
      }
    }
    const attributes: Record<string, unknown> = { ...found.blank };
    const slots = found.slots;
    inst.plainValuesInto(attributes, found.attributes, slots);
    const id = resourceId(found.type, agent, found.spec.idAttribute, attributes[found.spec.idAttribute]);
    // As redact.ts: a value of fewer than 3 characters is not followed (it would mark everything).
    const secrets = allSecrets.length === 0 ? allSecrets : allSecrets.filter((v) => v.trim().length >= 3 && holds(attributes, v));
    const res: { -readonly [K in keyof ExportedResource]: ExportedResource[K] } = isInstance(host)
      ? { id, type: found.type, agent, agentSpan: host.span, attributes, requires: NO_REQUIRES, instance: inst }
      : { id, type: found.type, agent, attributes, requires: NO_REQUIRES, instance: inst };
    if (secrets.length > 0) res.secrets = allSecrets;
    exported.push(res);
    const own = found.requiresSlot === undefined ? undefined : (inst.valueAt(found.requiresSlot) as readonly Value[] | undefined);
    if (inst.creator !== undefined || (own !== undefined && own.length !== 0)) requiring.push(res);
  }
  // Requirements: most resources of a large model have none, and then none of what follows is made.
  if (requiring.length > 0) addRequirements(instances, exported, requiring);
  // Sorted by id as strings (by UTF-16 code units, as `<` compares them); the sort is stable, so the
  // resources of one id stay in the order they were exported, each after the one exported before it.
  const sorted = exported.slice().sort(byId);
  const out: ExportedResource[] = [];
  let clash: { first: ExportedResource; r: ExportedResource; at: number } | undefined;
  for (let n = 0; n < sorted.length; n++) {
    const r = sorted[n] as ExportedResource;
    const first = out.length > 0 ? (out[out.length - 1] as ExportedResource) : undefined;
    if (first === undefined || first.id !== r.id) {
      out.push(r);
      continue;
    }
    // An id exported again: the same attributes, or an error (the first such resource in export order is
    // reported); the resource exported last stands for the id.
    if (JSON.stringify(first.attributes) !== JSON.stringify(r.attributes)) {
      const at = exported.indexOf(r);
      if (clash === undefined || at < clash.at) clash = { first, r, at };
    }
    out[out.length - 1] = r;
  }
  if (clash) {
    const { first, r } = clash;
    throw new InmantaError('DuplicateException', `Resource ${r.id} is exported twice with different attributes (${first.instance} and ${r.instance})`, r.instance.span);
  }
  return out;
}

function byId(a: ExportedResource, b: ExportedResource): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Fills `requires` of the resources that require something, themselves or through the instances that built them. */
function addRequirements(instances: readonly Instance[], exported: readonly ExportedResource[], requiring: readonly ExportedResource[]): void {
  const byInstance = new Map<Instance, ExportedResource>();
  for (const res of exported) byInstance.set(res.instance, res);
  // Instances each resource's abstract (non-resource) requirements stand for: what their implementations built.
  const built = new Map<Instance, Instance[]>();
  for (let n = 0; n < instances.length; n++) {
    const inst = instances[n] as Instance;
    for (let p = inst.creator; p; p = p.creator) {
      const list = built.get(p) ?? [];
      list.push(inst);
      built.set(p, list);
    }
  }
  const expand = (v: Value): Instance[] => {
    if (!isInstance(v)) return [];
    if (byInstance.has(v)) return [v];
    return (built.get(v) ?? []).filter((x) => byInstance.has(x));
  };
  for (const res of requiring) {
    // What an enclosing abstract entity requires, every resource its implementations built requires too.
    const reqs: Value[] = [];
    for (let p: Instance | undefined = res.instance; p; p = p.creator) reqs.push(...((p.value('requires') as readonly Value[] | undefined) ?? []));
    if (reqs.length === 0) continue;
    const ids = new Set<string>();
    for (const r of reqs) for (const x of expand(r)) ids.add((byInstance.get(x) as ExportedResource).id);
    // Requiring the entity that built this resource must not make it require itself.
    ids.delete(res.id);
    if (ids.size > 0) (res as { requires: readonly string[] }).requires = [...ids].sort();
  }
}

/** The core graph of the exported resources; unmanaged resources are left out. */
export function toGraph(resources: readonly ExportedResource[]): Graph {
  const nodes: GraphNode[] = [];
  const edges: Edge[] = [];
  // The ids of the managed resources, kept only when some resource requires another (most of a large model
  // requires nothing: then there are no edges to find).
  let requiring = false;
  for (let n = 0; n < resources.length && !requiring; n++) requiring = (resources[n] as ExportedResource).requires.length > 0;
  const managed = new Set<string>();
  // Each resource type's node metadata, one object per type (nothing changes it).
  const metas = new Map<string, { readonly inmantaType: string }>();
  for (let n = 0; n < resources.length; n++) {
    const r = resources[n] as ExportedResource;
    if (r.attributes.managed === false) continue;
    // A reload-only command that requires nothing, or takes no events, can never be asked to run.
    if (r.type === 'exec::Run' && r.attributes.reload_only === true && (r.requires.length === 0 || r.attributes.receive_events === false)) continue;
    const spec = SPECS[r.type] as ResourceSpec;
    const { type, params } = spec.node(r.attributes);
    let meta = metas.get(r.type);
    if (!meta) {
      meta = { inmantaType: r.type };
      metas.set(r.type, meta);
    }
    nodes.push(r.secrets ? { id: r.id, type, name: r.id, params, span: r.instance.span, meta, secret: { values: r.secrets } } : { id: r.id, type, name: r.id, params, span: r.instance.span, meta });
    if (requiring) managed.add(r.id);
  }
  for (let n = 0; requiring && n < resources.length; n++) {
    const r = resources[n] as ExportedResource;
    if (r.requires.length === 0 || !managed.has(r.id)) continue;
    // A reload-only command runs only when something it requires changed in this deploy (and it takes events).
    const reloadOnly = r.type === 'exec::Run' && r.attributes.reload_only === true;
    for (const dep of r.requires) if (managed.has(dep)) edges.push({ from: dep, to: r.id, kind: reloadOnly ? 'onchanges' : 'require', span: r.instance.span });
  }
  return { nodes, edges };
}

/** The JSON shape of `export --out json`: one object per resource with its id and exported fields. */
export function resourceJson(r: ExportedResource): Record<string, unknown> {
  const attributes = r.secrets ? (masked(r.attributes, r.secrets) as Record<string, unknown>) : r.attributes;
  return { id: r.id, ...attributes, requires: r.requires };
}
