/**
 * Converge's Renderer: every string field is a Go template over `param`, `lookup`, `results` and friends.
 * A lookup of a field fixed in the HCL (a destination, a check script) resolves now (prepare time); a
 * lookup of a field known only after the target ran (a task's stdout) makes the field a core deferred
 * value, rendered again by the runtime once the target's outputs exist. As the value-passing design has
 * it, `lookup` reads the most recent status of the target: in a plan or healthcheck its check, in an
 * apply what the apply printed (or the check, when nothing was applied). `results` reads only what an
 * apply produced, so in a plan or healthcheck a node using it is unresolvable.
 */
import { type Diagnostic, error, type Span } from '../../core/diag.js';
import { type DeferredRef, deferred, hasDeferred } from '../../core/model.js';
import { executeTemplate, literalCalls, type PassThrough, parseTemplate, printValue, stringArg, type TemplateFunc, TemplateError, type TNode } from '../../lang/gotemplate/index.js';
import type { HclString, HclValue } from '../../lang/hcl1/index.js';
import { lookupField } from './fields.js';
import type { RawNode, Scope } from './types.js';

type Runtime = (ref: DeferredRef) => unknown;

/** What templates read of the machine the program acts on. */
export interface TargetView {
  readonly platform: Readonly<Record<string, unknown>>;
  readonly env: Readonly<Record<string, string>>;
}

/** The run a program is rendered for. */
export type Phase = 'plan' | 'apply' | 'healthcheck' | 'graph';

/** A task's status fields: what the most recent run printed. */
const STATUS_FIELDS = new Set(['stdout', 'stderr', 'exitstatus']);

class LoadProblem extends Error implements PassThrough {
  readonly passThrough = true;
}

/** Where in the file an offset into a string value is, when the string is on one line. */
function spanAt(v: HclString, text: string, offset: number): Span {
  if (v.heredoc || text.slice(0, offset).includes('\n')) return v.span;
  return { ...v.span, col: v.span.col + 1 + offset };
}

export class Renderer {
  readonly diags: Diagnostic[] = [];
  /** For each node id, the ids of the nodes its templates look up (implicit dependencies). */
  readonly lookups = new Map<string, Set<string>>();
  /** For each node id, the ids of the param nodes (`root/param.x`) its templates read. */
  readonly paramUses = new Map<string, Set<string>>();
  /**
   * Set when a template may call `platform` or `env` (its text names one of them): what the program
   * renders to then depends on the target's facts.
   */
  readsTarget = false;
  private readonly cache = new Map<string, unknown>();
  private readonly active: string[] = [];

  /** `target` is what the template functions `platform` and `env` read: the target host's, from its facts. */
  constructor(
    private readonly phase: Phase = 'plan',
    private readonly target: TargetView = { platform: {}, env: {} },
  ) {}

  /** A module's params: rendered in the calling scope, and known before anything runs. */
  renderStatic(v: HclValue, scope: Scope, owner: string): unknown {
    const value = this.value(v, scope, `${scope.id}/${owner}`);
    if (hasDeferred(value)) {
      this.diags.push(error('CV021', `${owner}: module params cannot use values known only after other nodes ran`, { span: v.span }));
      return '';
    }
    return value;
  }

  /**
   * A switch case's predicate, as Converge evaluates it: the text is rendered as a template, the result is
   * rendered again inside `{{ }}`, and the branch runs when that prints `t` or `true` (any case).
   */
  predicate(text: string, scope: Scope, span: Span): boolean {
    const funcs = this.funcs(scope, () => {
      throw new LoadProblem('a switch predicate cannot use values known only after other nodes ran');
    });
    this.noteTargetUse(text);
    try {
      const first = text.includes('{{') ? executeTemplate(parseTemplate(text), funcs) : text;
      this.noteTargetUse(first);
      const second = executeTemplate(parseTemplate(`{{ ${first} }}`), funcs);
      const t = second.toLowerCase();
      return t === 't' || t === 'true';
    } catch (e) {
      if (e instanceof TemplateError || e instanceof LoadProblem) {
        this.diags.push(error('CV025', `invalid predicate ${JSON.stringify(text)}: ${e.message}`, { span }));
        return false;
      }
      throw e;
    }
  }

  private noteTargetUse(template: string): void {
    if (!this.readsTarget && (template.includes('env') || template.includes('platform'))) this.readsTarget = true;
  }

  /** The params a template reads, for `graph --show-params`. */
  private noteParamUses(nodes: readonly TNode[], scope: Scope, owner: string): void {
    let home = scope;
    while (home.branch && home.parent) home = home.parent;
    for (const fn of ['param', 'paramList', 'paramMap']) {
      for (const call of literalCalls(nodes, fn)) {
        if (call.arg === undefined || !home.params.has(call.arg)) continue;
        let set = this.paramUses.get(owner);
        if (!set) this.paramUses.set(owner, (set = new Set()));
        set.add(`${home.id}/param.${call.arg}`);
      }
    }
  }

  /** A case's predicate reads params too: the graph draws them into the case. */
  notePredicateParams(text: string, scope: Scope, owner: string): void {
    if (!text.includes('{{')) return;
    try {
      this.noteParamUses(parseTemplate(text), scope, owner);
    } catch {
      // a predicate that does not parse is reported when it is evaluated
    }
  }

  /** A node's field, rendered once; may hold deferred values. */
  field(node: RawNode, name: string): unknown {
    const v = node.fields.get(name);
    if (v === undefined) return undefined;
    // A number, a bool or a string with no template is its own value: nothing to render, look up or keep.
    if (v.kind === 'number' || v.kind === 'bool' || (v.kind === 'string' && !v.value.includes('{{'))) return v.value;
    const key = `${node.id}\u0000${name}`;
    if (this.cache.has(key)) return this.cache.get(key);
    if (this.active.includes(key)) throw new LoadProblem(`lookup cycle through ${node.id} field ${name}`);
    this.active.push(key);
    try {
      const out = this.value(v, node.scope, node.id);
      this.cache.set(key, out);
      return out;
    } finally {
      this.active.pop();
    }
  }

  private value(v: HclValue, scope: Scope, owner: string): unknown {
    switch (v.kind) {
      case 'string':
        return this.string(v, scope, owner);
      case 'number':
      case 'bool':
        return v.value;
      case 'list':
        return v.items.map((x) => this.value(x, scope, owner));
      case 'object': {
        const out: Record<string, unknown> = {};
        for (const item of v.items) out[item.keys.map((k) => k.name).join('.')] = this.value(item.value, scope, owner);
        return out;
      }
    }
  }

  private string(v: HclString, scope: Scope, owner: string): unknown {
    const text = v.value;
    if (!text.includes('{{')) return text;
    this.noteTargetUse(text);
    let nodes: TNode[];
    try {
      nodes = parseTemplate(text);
    } catch (e) {
      if (!(e instanceof TemplateError)) throw e;
      this.diags.push(error('CV020', `template: ${e.message}`, { span: spanAt(v, text, e.offset) }));
      return '';
    }
    for (const call of [...literalCalls(nodes, 'lookup'), ...literalCalls(nodes, 'results')]) {
      if (call.arg === undefined) {
        this.diags.push(error('CV022', 'lookup and results need a literal node path such as `task.name.status.stdout`', { span: spanAt(v, text, call.offset) }));
        continue;
      }
      const target = this.resolveTarget(scope, call.arg);
      if (target) {
        let set = this.lookups.get(owner);
        if (!set) this.lookups.set(owner, (set = new Set()));
        set.add(target.id);
      }
    }
    this.noteParamUses(nodes, scope, owner);
    const refs: DeferredRef[] = [];
    const seen = new Set<string>();
    const record = (ref: DeferredRef): unknown => {
      const k = `${ref.node}\u0000${ref.field}`;
      if (!seen.has(k)) {
        seen.add(k);
        refs.push(ref);
      }
      return '';
    };
    let first = '';
    try {
      first = executeTemplate(nodes, this.funcs(scope, record));
    } catch (e) {
      if (e instanceof TemplateError && refs.length > 0) {
        // It failed on a value known only at run time (an index into a query's output): render it then,
        // with every value it looks up.
        for (const fn of ['lookup', 'results'] as const) {
          for (const call of literalCalls(nodes, fn)) {
            try {
              if (call.arg !== undefined) this.lookup(scope, call.arg, record, fn);
            } catch {
              // reported when the template runs
            }
          }
        }
      } else {
        if (e instanceof TemplateError) this.diags.push(error('CV023', `template: ${e.message}`, { span: spanAt(v, text, e.offset) }));
        else if (e instanceof LoadProblem) this.diags.push(error('CV024', e.message, { span: v.span }));
        else throw e;
        return '';
      }
    }
    if (refs.length === 0) return first;
    const render = (values: readonly unknown[]): unknown => {
      const known = new Map(refs.map((r, i) => [`${r.node}\u0000${r.field}`, values[i]]));
      // A failure here (an index past the end of a query's output) fails the node.
      return executeTemplate(
        nodes,
        this.funcs(scope, (ref) => known.get(`${ref.node}\u0000${ref.field}`) ?? ''),
      );
    };
    return deferred(refs, render, text);
  }

  /** The sibling node a lookup path starts with (the longest `kind.name` prefix), or a diagnostic. */
  private resolveTarget(scope: Scope, path: string): RawNode | undefined {
    const own = this.resolveIn(scope, path);
    if (own || !scope.branch || !scope.parent) return own;
    return this.resolveTarget(scope.parent, path);
  }

  private resolveIn(scope: Scope, path: string): RawNode | undefined {
    let best: RawNode | undefined;
    for (const [key, node] of scope.nodes) {
      if ((path === key || path.startsWith(`${key}.`)) && (!best || key.length > `${best.ctype}.${best.name}`.length)) best = node;
    }
    return best;
  }

  /**
   * The output a run-time field is read from: `lookup` takes the most recent status (the check's in a
   * plan), `results` only an apply's (never there in a plan, so the node is unresolvable).
   */
  private runtimeField(output: string, fn: 'lookup' | 'results'): string {
    if (!STATUS_FIELDS.has(output) || this.phase === 'apply') return output;
    return fn === 'lookup' ? `check.${output}` : `apply.${output}`;
  }

  private lookup(scope: Scope, path: string, runtime: Runtime, fn: 'lookup' | 'results' = 'lookup'): unknown {
    const target = this.resolveTarget(scope, path);
    if (!target) throw new LoadProblem(`${fn} ${JSON.stringify(path)}: no node in ${scope.id} matches`);
    const fieldPath = path.slice(`${target.ctype}.${target.name}`.length + 1);
    const f = lookupField(target, fieldPath);
    if (!f) throw new LoadProblem(`${fn} ${JSON.stringify(path)}: ${target.ctype} has no field ${JSON.stringify(fieldPath)}`);
    if (f.kind === 'runtime') return runtime({ node: target.id, field: this.runtimeField(f.output, fn) });
    let value = target.fields.has(f.field) ? this.field(target, f.field) : f.fallback;
    // A task keeps its environment as a list of NAME=VALUE texts.
    if (f.field === 'env' && typeof value === 'object' && value !== null && !Array.isArray(value) && !hasDeferred(value)) {
      value = Object.entries(value as Record<string, unknown>).map(([k, v]) => `${k}=${printValue(v)}`).sort();
    }
    if (!hasDeferred(value)) return value;
    if (f.output === undefined) throw new LoadProblem(`lookup ${JSON.stringify(path)}: the field is known only after other nodes ran`);
    return runtime({ node: target.id, field: f.output });
  }

  private funcs(scope: Scope, runtime: Runtime): Record<string, TemplateFunc> {
    const param = (name: unknown): unknown => {
      const key = String(name);
      if (!scope.params.has(key)) throw new LoadProblem(`param ${JSON.stringify(key)} is not declared in ${scope.id}`);
      return scope.params.get(key);
    };
    return {
      // Converge hands a param to templates as its %v text, and a list param as a list of texts.
      param: (name) => printValue(param(name)),
      paramList: (name) => {
        const v = param(name);
        if (!Array.isArray(v)) throw new LoadProblem(`paramList: param ${JSON.stringify(String(name))} is not a list`);
        return v.map(printValue);
      },
      paramMap: (name) => {
        const v = param(name);
        if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new LoadProblem(`paramMap: param ${JSON.stringify(String(name))} is not a map`);
        return v;
      },
      lookup: (path) => this.lookup(scope, String(path), runtime),
      results: (path) => this.lookup(scope, String(path), runtime, 'results'),
      env: (name) => this.target.env[String(name)] ?? '',
      split: (sep, s) => stringArg(s).split(stringArg(sep)),
      join: (sep, list) => (Array.isArray(list) ? list.map(printValue).join(stringArg(sep)) : (stringArg(sep), printValue(list))),
      // Go's encoding/json writes map keys sorted.
      jsonify: (v) => JSON.stringify(sortKeys(v ?? null)),
      platform: () => this.target.platform,
    };
  }
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (typeof v !== 'object' || v === null) return v;
  const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([k, x]) => [k, sortKeys(x)]));
}
