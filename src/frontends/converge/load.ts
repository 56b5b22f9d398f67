/**
 * Reads a Converge module tree: each file's blocks become nodes of its scope, `module` blocks load their
 * source (relative to the including file) as a child scope with the params the block passes, and `param`
 * blocks take their value from the caller, the command line (root only) or their default.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { type Diagnostic, DiagnosticError, error, type Span } from '../../core/diag.js';
import { type HclItem, type HclValue, parseHcl, plainValue } from '../../lang/hcl1/index.js';
import { maskValues } from '../../core/redact.js';
import { checkParamType } from './param-types.js';
import type { Renderer } from './render.js';
import type { ModuleInfo, RawNode, Scope } from './types.js';

export interface LoadResult {
  readonly root: Scope;
  /** Resource nodes in file order, modules expanded where their block stands. */
  readonly nodes: RawNode[];
  readonly modules: ModuleInfo[];
}

/** Blocks that are not resources. */
const META = new Set(['param', 'module']);

function readSource(file: string, span: Span | undefined): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : String((e as Error).message);
    throw new DiagnosticError([error('CV001', `cannot read module ${file}: ${why}`, { span })]);
  }
}

function fieldsOf(item: HclItem, diags: Diagnostic[]): Map<string, HclValue> {
  const fields = new Map<string, HclValue>();
  if (item.value.kind !== 'object') return fields;
  const items = item.value.items;
  for (let i = 0; i < items.length; i++) {
    const f = items[i] as HclItem;
    const name = f.keys.length === 1 ? (f.keys[0] as HclItem['keys'][number]).name : f.keys.map((k) => k.name).join('.');
    // A field given twice leaves the map's size as it was (the later value wins): one lookup per field.
    const size = fields.size;
    fields.set(name, f.value);
    if (fields.size === size) diags.push(error('CV002', `field ${JSON.stringify(name)} is given twice`, { span: f.span }));
  }
  return fields;
}

/** The strings and numbers a param value holds, as text. */
function leaves(v: unknown): string[] {
  if (typeof v === 'string' || typeof v === 'number') return [String(v)];
  if (Array.isArray(v)) return v.flatMap(leaves);
  if (typeof v === 'object' && v !== null) return Object.values(v).flatMap(leaves);
  return [];
}

export class Loader {
  readonly nodes: RawNode[] = [];
  readonly modules: ModuleInfo[] = [];
  /** The `module` blocks, for their `depends`. */
  readonly moduleNodes: RawNode[] = [];
  readonly diags: Diagnostic[] = [];
  /** The values of `sensitive = true` params (each string or number in them): never shown or kept. */
  readonly secrets: string[] = [];
  private readonly loading: string[] = [];
  /** The predicate of the branch not taken that the module being loaded sits in. */
  private inheritedSkip: string | undefined;

  constructor(private readonly renderer: Renderer) {}

  /** Loads `file` as scope `id`; `given` are the caller's param values (already rendered). */
  load(file: string, id: string, given: ReadonlyMap<string, unknown>, fromCommandLine: boolean, parent?: Scope, callSpan?: Span): Scope {
    const path = resolve(file);
    if (this.loading.includes(path)) throw new DiagnosticError([error('CV003', `module ${file} includes itself`, { span: callSpan })]);
    const text = readSource(file, callSpan);
    const hcl = parseHcl(file, text);
    const scope: Scope = { id, file, params: new Map(), nodes: new Map(), ...(parent ? { parent } : {}), ...(callSpan ? { span: callSpan } : {}) };
    this.modules.push({ id, source: file, ...(callSpan ? { span: callSpan } : {}), given: [...given], params: scope.params, secrets: this.secrets });
    this.loading.push(path);
    try {
      // A default may be a template over other params: declare those without one first.
      const params = hcl.body.items.filter((item) => item.keys[0]?.name === 'param');
      const templated = (item: HclItem): boolean => item.value.kind === 'object' && item.value.items.some((f) => f.keys[0]?.name === 'default' && f.value.kind === 'string' && f.value.value.includes('{{'));
      for (const item of [...params.filter((i) => !templated(i)), ...params.filter(templated)]) this.declareParam(scope, item, given, fromCommandLine);
      this.loadItems(scope, hcl.body.items, this.inheritedSkip);
    } finally {
      this.loading.pop();
    }
    return scope;
  }

  /** Resource, module and switch blocks of a body; `skipped` is the predicate of a branch not taken. */
  private loadItems(scope: Scope, items: readonly HclItem[], skipped: string | undefined): void {
    for (let i = 0; i < items.length; i++) {
      const item = items[i] as HclItem;
      const type = item.keys[0]?.name ?? '';
      if (type === 'param') {
        if (scope.branch) this.diags.push(error('CV011', 'param blocks belong at the top of a module, not inside a switch', { span: item.span }));
        continue;
      }
      if (type === 'module' && scope.branch) {
        this.diags.push(error('CV015', 'modules not supported in conditionals: a switch case holds resources only', { span: item.span }));
        continue;
      }
      if (type === 'module') {
        const saved = this.inheritedSkip;
        this.inheritedSkip = skipped;
        try {
          this.loadModule(scope, item);
        } finally {
          this.inheritedSkip = saved;
        }
      }
      else if (type === 'switch' && scope.branch) this.diags.push(error('CV016', 'nested conditionals are not supported: a switch case cannot hold a switch', { span: item.span }));
      else if (type === 'switch') this.loadSwitch(scope, item, skipped);
      else this.addNode(scope, item, skipped);
    }
  }

  /**
   * `switch "NAME" { case "PREDICATE" "NAME" {...} ... default {...} }`: a `macro.switch.NAME` node with one
   * `macro.case.NAME` node per branch (the default branch is `macro.case.default`). Predicates are Go
   * templates rendered twice, as Converge does (the text, then `{{ text }}`); the first branch whose
   * result is `t` or `true` runs, and the nodes of every other branch are skipped.
   */
  private loadSwitch(scope: Scope, item: HclItem, skipped: string | undefined): void {
    const name = this.blockName(item, 2);
    if (name === undefined || item.value.kind !== 'object') return;
    const key = `macro.switch.${name}`;
    if (scope.nodes.has(key)) {
      this.diags.push(error('CV010', `duplicate node ${JSON.stringify(key)} in ${scope.id}`, { span: item.span }));
      return;
    }
    const id = `${scope.id}/${key}`;
    const sw: Scope = { id, file: scope.file, params: scope.params, nodes: new Map(), parent: scope, branch: true };
    const switchNode: RawNode = { id, ctype: 'macro.switch', name, scope, fields: new Map(), span: item.keys[0]?.span ?? item.span, ...(skipped !== undefined ? { skipped } : {}) };
    scope.nodes.set(key, switchNode);
    this.nodes.push(switchNode);
    let taken = skipped !== undefined;
    for (const branch of item.value.items) {
      const kw = branch.keys[0]?.name ?? '';
      const isDefault = kw === 'default';
      if ((kw !== 'case' && !isDefault) || branch.assign || branch.value.kind !== 'object') {
        this.diags.push(error('CV012', `a switch holds only case "PREDICATE" "NAME" { ... } and default { ... } blocks, not ${JSON.stringify(kw)}`, { span: branch.span }));
        continue;
      }
      if (branch.keys.length !== (isDefault ? 1 : 3)) {
        this.diags.push(error('CV013', isDefault ? 'default takes no labels: default { ... }' : 'case needs a predicate and a name: case "PREDICATE" "NAME" { ... }', { span: branch.span }));
        continue;
      }
      const caseName = isDefault ? 'default' : (branch.keys[2]?.name ?? '');
      if (!isDefault && caseName === 'default') {
        this.diags.push(error('CV014', "case name cannot be 'default'", { span: branch.keys[2]?.span ?? branch.span }));
        continue;
      }
      const predicate = isDefault ? 'true' : (branch.keys[1]?.name ?? '').trim();
      const caseKey = `macro.case.${caseName}`;
      if (sw.nodes.has(caseKey)) {
        this.diags.push(error('CV010', `duplicate case ${JSON.stringify(caseName)} in switch ${JSON.stringify(name)}`, { span: branch.span }));
        continue;
      }
      this.renderer.notePredicateParams(predicate, scope, `${id}/${caseKey}`);
      let runs = false;
      if (!taken) runs = this.renderer.predicate(predicate, scope, branch.keys[1]?.span ?? branch.span);
      if (runs) taken = true;
      const branchSkip = runs ? undefined : (skipped ?? predicate);
      const caseScope: Scope = { id: `${id}/${caseKey}`, file: scope.file, params: scope.params, nodes: new Map(), parent: scope, branch: true };
      const caseNode: RawNode = { id: caseScope.id, ctype: 'macro.case', name: caseName, scope: sw, fields: new Map(), span: branch.keys[0]?.span ?? branch.span, predicate, ...(branchSkip !== undefined ? { skipped: branchSkip } : {}) };
      sw.nodes.set(caseKey, caseNode);
      this.nodes.push(caseNode);
      this.loadItems(caseScope, branch.value.items, branchSkip);
    }
  }

  private blockName(item: HclItem, want: number): string | undefined {
    const type = item.keys[0]?.name ?? '';
    if (item.assign || item.value.kind !== 'object') {
      this.diags.push(error('CV004', `${type} must be a block: ${type} "name" { ... }`, { span: item.span }));
      return undefined;
    }
    if (item.keys.length !== want) {
      const shape = want === 3 ? 'module "SOURCE" "NAME" { ... }' : `${type} "NAME" { ... }`;
      this.diags.push(error('CV005', `${type} needs ${want === 3 ? 'a source and a name' : 'a name'}: ${shape}`, { span: item.span }));
      return undefined;
    }
    return item.keys[want - 1]?.name;
  }

  private declareParam(scope: Scope, item: HclItem, given: ReadonlyMap<string, unknown>, fromCommandLine: boolean): void {
    const name = this.blockName(item, 2);
    if (name === undefined) return;
    const fields = fieldsOf(item, this.diags);
    for (const [k, v] of fields) {
      if (k !== 'default' && k !== 'type' && k !== 'sensitive') this.diags.push(error('CV006', `unknown field ${JSON.stringify(k)} in param ${JSON.stringify(name)}`, { span: v.span }));
    }
    const def = fields.get('default');
    const typeField = fields.get('type');
    const sensitiveField = fields.get('sensitive');
    const sensitive = sensitiveField ? plainValue(sensitiveField) : false;
    if (sensitive !== true && sensitive !== false) this.diags.push(error('CV017', 'param sensitive must be true or false', { span: sensitiveField?.span ?? item.span }));
    const type = typeField?.kind === 'string' ? typeField.value : undefined;
    if (typeField && type === undefined) this.diags.push(error('CV007', 'param type must be a string', { span: typeField.span }));
    let value: unknown;
    let span: Span = def?.span ?? item.span;
    if (given.has(name)) {
      value = given.get(name);
      span = item.span;
    } else if (def?.kind === 'string' && def.value.includes('{{')) value = this.renderer.renderStatic(def, scope, `param.${name}`);
    else if (def) value = plainValue(def);
    else {
      const how = fromCommandLine ? ` (give it with -p ${name}=VALUE)` : ' (pass it in the module block params)';
      this.diags.push(error('CV008', `required param ${JSON.stringify(name)} has no value${how}`, { span: item.span }));
      return;
    }
    if (sensitive === true) this.secrets.push(...leaves(value));
    const checked = checkParamType(name, type, value, fromCommandLine && given.has(name));
    if (typeof checked === 'object' && checked !== null && 'problem' in checked) {
      this.diags.push(error('CV009', sensitive === true ? maskValues(String(checked.problem), leaves(value)) : String(checked.problem), { span }));
      return;
    }
    scope.params.set(name, checked);
  }

  private loadModule(scope: Scope, item: HclItem): void {
    const name = this.blockName(item, 3);
    if (name === undefined) return;
    const source = item.keys[1]?.name ?? '';
    const fields = fieldsOf(item, this.diags);
    const given = new Map<string, unknown>();
    for (const [k, v] of fields) {
      if (k === 'params' && v.kind === 'object') {
        for (const p of v.items) given.set(p.keys.map((key) => key.name).join('.'), this.renderer.renderStatic(p.value, scope, `module.${name}`));
      } else if (k !== 'depends' && k !== 'group') this.diags.push(error('CV006', `unknown field ${JSON.stringify(k)} in module ${JSON.stringify(name)}`, { span: v.span }));
    }
    const file = resolve(dirname(scope.file), source);
    const id = `${scope.id}/module.${name}`;
    const key = `module.${name}`;
    if (scope.nodes.has(key)) {
      this.diags.push(error('CV010', `duplicate node ${JSON.stringify(key)} in ${scope.id}`, { span: item.span }));
      return;
    }
    const moduleNode: RawNode = { id, ctype: 'module', name, scope, fields, span: item.span };
    scope.nodes.set(key, moduleNode);
    this.moduleNodes.push(moduleNode);
    this.load(file, id, given, false, scope, item.keys[1]?.span ?? item.span);
  }

  private addNode(scope: Scope, item: HclItem, skipped: string | undefined): void {
    const type = item.keys[0]?.name ?? '';
    const name = this.blockName(item, 2);
    if (name === undefined) return;
    const key = `${type}.${name}`;
    if (scope.nodes.has(key)) {
      this.diags.push(error('CV010', `duplicate node ${JSON.stringify(key)} in ${scope.id}`, { span: item.span }));
      return;
    }
    const node: { -readonly [K in keyof RawNode]: RawNode[K] } = { id: `${scope.id}/${key}`, ctype: type, name, scope, fields: fieldsOf(item, this.diags), span: item.keys[0]?.span ?? item.span };
    if (skipped !== undefined) node.skipped = skipped;
    scope.nodes.set(key, node);
    if (!META.has(type)) this.nodes.push(node);
  }
}
