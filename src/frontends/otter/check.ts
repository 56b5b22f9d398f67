/**
 * Checks a script before anything runs. Unknown functions and variables never declared anywhere are
 * errors: nothing runs. What the seed raises only when the statement is reached (an unknown operation or
 * module, a wrong or missing argument, a value of the wrong type in `set`) is a warning here: the run
 * raises it where it happens, so that `try` can catch it and the statements before it run.
 */
import { type Code, type Diagnostic, error, type Span } from '../../core/diag.js';
import type { Block, Expr, ModuleDecl, NamedArg, OutputArg, Predicate, Script, Statement, TextPart, VarTarget } from './ast.js';
import { lookupFunction } from './functions.js';
import { findArg, lookupOperation, lowerName, type Operation } from './operations/index.js';
import type { RaftLoader } from './raft.js';
import { varKey } from './scope.js';
import { typeName } from './values.js';

export const UNKNOWN_OPERATION = 'OTTER002';
export const UNKNOWN_FUNCTION = 'OTTER003';
export const UNDEFINED_VARIABLE = 'OTTER004';
export const UNKNOWN_MODULE = 'OTTER005';
export const MODULE_ARGUMENT = 'OTTER006';
export const OPERATION_ARGUMENT = 'OTTER007';
export const WRONG_TYPE = 'OTTER008';
export const LATE_GLOBAL = 'OTTER009';

function warning(code: Code, message: string, where: { span: Span }): Diagnostic {
  return { code, severity: 'warning', message, span: where.span };
}

class Checker {
  readonly diags: Diagnostic[] = [];
  readonly declared = new Set<string>();
  readonly modules = new Map<string, ModuleDecl>();
  private readonly seenRaft = new Set<string>();
  readonly raftModules: ModuleDecl[] = [];

  constructor(
    private readonly raft: RaftLoader,
    private readonly config: ReadonlySet<string>,
  ) {}

  /** Pass 1: every variable any statement declares and every module any block declares, raft modules included. */
  async declare(block: Block): Promise<void> {
    for (const m of block.modules) {
      this.modules.set(m.name.toLowerCase(), m);
      for (const p of m.params) this.declared.add(varKey(p.sigil, p.name));
      await this.declare(m.body);
    }
    for (const s of block.body) {
      // What a statement declares itself is taken at once; only a call (which may load a raft module)
      // and a statement holding blocks wait.
      this.declareOwn(s);
      if (s.kind === 'call') await this.declareCalled(s);
      const blocks = blocksOf(s);
      for (let i = 0; i < blocks.length; i++) await this.declare(blocks[i] as Block);
    }
  }

  private add(t: VarTarget): void {
    this.declared.add(varKey(t.sigil, t.name));
  }

  /** The variables a statement itself declares (not those of the blocks it holds or the module it calls). */
  private declareOwn(s: Statement): void {
    switch (s.kind) {
      case 'set':
      case 'global':
        this.add(s.target);
        break;
      case 'foreach':
        if (s.variable) this.add(s.variable);
        break;
      case 'action': {
        for (let i = 0; i < s.outputs.length; i++) this.add((s.outputs[i] as OutputArg).target);
        // Shell operations hand back the variables their OutVariables/OutputVariables list names (12 or
        // 15 characters: other names are not matched).
        const args = s.args;
        for (let i = 0; i < args.length; i++) {
          const a = args[i] as NamedArg;
          if ((a.name.length !== 12 && a.name.length !== 15) || !/^out(put)?variables$/i.test(a.name) || a.value.kind !== 'vector') continue;
          for (const item of a.value.items) {
            if (item.kind === 'text' && item.parts.every((p) => typeof p === 'string')) this.declared.add(varKey('$', item.parts.join('').trim()));
          }
        }
        break;
      }
      case 'call':
        for (const o of s.outputs) this.add(o.target);
        break;
      default:
        break;
    }
  }

  /** A called module from a raft, met for the first time: its parameters and what its body declares. */
  private async declareCalled(s: Extract<Statement, { kind: 'call' }>): Promise<void> {
    const key = s.raft === undefined ? s.name.toLowerCase() : `${s.raft.toLowerCase()}::${s.name.toLowerCase()}`;
    if (this.modules.has(key) || this.seenRaft.has(key)) return;
    this.seenRaft.add(key);
    const m = this.raft.raftDir(s.raft) === undefined ? undefined : await this.raft.find(s.name, s.raft);
    if (m) {
      this.modules.set(key, m);
      this.raftModules.push(m);
      for (const p of m.params) this.declared.add(varKey(p.sigil, p.name));
      await this.declare(m.body);
    }
  }

  block(block: Block): void {
    for (const m of block.modules) {
      for (const p of m.params) if (p.default) this.expr(p.default);
      this.block(m.body);
    }
    const body = block.body;
    for (let i = 0; i < body.length; i++) this.statement(body[i] as Statement);
  }

  private statement(s: Statement): void {
    switch (s.kind) {
      case 'action':
        this.action(s);
        break;
      case 'log':
        this.expr(s.message);
        break;
      case 'global':
        this.diags.push(warning(LATE_GLOBAL, 'global declarations must come before every other statement of the script', { span: s.span }));
        this.target(s.target);
        if (s.value) this.expr(s.value);
        break;
      case 'set':
        this.target(s.target);
        if (s.value) {
          this.expr(s.value);
          if (s.target.accessors.length === 0) this.sameType(s.target, s.value);
        }
        break;
      case 'if':
        this.predicate(s.predicate);
        break;
      case 'foreach':
        this.expr(s.source);
        break;
      case 'context':
        this.expr(s.value);
        break;
      case 'throw':
        if (s.message) this.expr(s.message);
        break;
      case 'call':
        this.call(s);
        break;
      default:
        break;
    }
    const blocks = blocksOf(s);
    for (let i = 0; i < blocks.length; i++) this.block(blocks[i] as Block);
  }

  private sameType(target: VarTarget, value: Expr): void {
    const sigil = value.kind === 'vector' ? '@' : value.kind === 'map' ? '%' : value.kind === 'ref' ? value.sigil : '$';
    if (sigil !== target.sigil) {
      this.diags.push(warning(WRONG_TYPE, `cannot assign a ${typeName(sigil)} to the ${typeName(target.sigil)} variable ${target.sigil}${target.name}`, { span: target.span }));
    }
  }

  private action(s: Extract<Statement, { kind: 'action' }>): void {
    if (s.positional) this.expr(s.positional);
    const args = s.args;
    for (let i = 0; i < args.length; i++) this.expr((args[i] as (typeof args)[number]).value);
    this.outputs(s.outputs);
    const op = lookupOperation(s.name, s.namespace);
    if (!op) {
      this.diags.push(warning(UNKNOWN_OPERATION, `unknown operation ${s.namespace ? `${s.namespace}::` : ''}${s.name}`, { span: s.nameSpan }));
      return;
    }
    if (s.positional && !op.positional) this.diags.push(warning(OPERATION_ARGUMENT, `${op.name} takes no positional argument`, { span: s.positional.span }));
    for (let i = 0; i < args.length; i++) {
      const a = args[i] as (typeof args)[number];
      if (!findArg(op, a.name)) this.diags.push(warning(OPERATION_ARGUMENT, `${op.name} has no argument ${a.name}`, { span: a.span }));
    }
    for (let i = 0; i < s.outputs.length; i++) {
      const o = s.outputs[i] as OutputArg;
      if (!op.outputs?.some((n) => n.toLowerCase() === o.name.toLowerCase())) this.diags.push(warning(OPERATION_ARGUMENT, `${op.name} has no output ${o.name}`, { span: o.span }));
    }
    for (let i = 0; i < op.args.length; i++) {
      const spec = op.args[i] as (typeof op.args)[number];
      if (spec.required && !given(op, s, lowerName(spec.name))) this.diags.push(warning(OPERATION_ARGUMENT, `${op.name} needs the argument ${spec.name}`, { span: s.span }));
    }
  }

  private call(s: Extract<Statement, { kind: 'call' }>): void {
    for (const a of s.args) this.expr(a.value);
    this.outputs(s.outputs);
    const m = this.modules.get(s.raft === undefined ? s.name.toLowerCase() : `${s.raft.toLowerCase()}::${s.name.toLowerCase()}`);
    if (!m) {
      this.diags.push(warning(UNKNOWN_MODULE, `module ${s.raft ? `${s.raft}::` : ''}${s.name} was not found (declare it, or put ${s.name}.otter in the raft)`, { span: s.span }));
      return;
    }
    const named = new Set([...s.args, ...s.outputs].map((a: NamedArg | OutputArg) => a.name.toLowerCase()));
    for (const a of [...s.args, ...s.outputs]) {
      if (!m.params.some((p) => p.name.toLowerCase() === a.name.toLowerCase())) this.diags.push(warning(MODULE_ARGUMENT, `module ${m.name} has no parameter ${a.name}`, { span: a.span }));
    }
    for (const p of m.params) {
      if (!p.default && !p.out && !named.has(p.name.toLowerCase())) this.diags.push(warning(MODULE_ARGUMENT, `module ${m.name} needs the argument ${p.name}`, { span: s.span }));
    }
  }

  private outputs(outputs: readonly OutputArg[]): void {
    for (let i = 0; i < outputs.length; i++) this.target((outputs[i] as OutputArg).target);
  }

  private target(t: VarTarget): void {
    for (const a of t.accessors) if (a.kind === 'index') this.expr(a.expr);
  }

  private predicate(p: Predicate): void {
    switch (p.kind) {
      case 'and':
      case 'or':
        for (const x of p.items) this.predicate(x);
        return;
      case 'not':
        return this.predicate(p.pred);
      case 'true':
        return this.expr(p.expr);
      default:
        this.expr(p.left);
        this.expr(p.right);
    }
  }

  private part(p: TextPart): void {
    if (typeof p === 'string') return;
    if (p.kind === 'sub') this.expr(p.expr);
    else this.expr(p);
  }

  expr(e: Expr): void {
    switch (e.kind) {
      case 'text':
        for (let i = 0; i < e.parts.length; i++) this.part(e.parts[i] as TextPart);
        return;
      case 'vector':
        for (const i of e.items) this.expr(i);
        return;
      case 'map':
        for (const x of e.entries) this.expr(x.value);
        return;
      case 'ref': {
        for (const a of e.args ?? []) this.expr(a);
        for (const a of e.accessors) if (a.kind === 'index') this.expr(a.expr);
        const fn = lookupFunction(e.name);
        if (e.args !== undefined) {
          if (!fn) this.diags.push(error(UNKNOWN_FUNCTION, `unknown function ${e.sigil}${e.name}`, { span: e.span }));
          return;
        }
        const known = this.declared.has(varKey(e.sigil, e.name)) || (e.sigil === '$' && this.config.has(e.name.toLowerCase())) || fn !== undefined;
        if (!known) this.diags.push(error(UNDEFINED_VARIABLE, `variable ${e.sigil}${e.name} is not defined`, { span: e.span }));
      }
    }
  }
}

/** Whether a call gives the argument named `lower` (lower case): positionally, or by a name or an alias of it. */
function given(op: Operation, s: Extract<Statement, { kind: 'action' }>, lower: string): boolean {
  if (s.positional && op.positional && lowerName(op.positional) === lower) return true;
  for (let i = 0; i < s.args.length; i++) {
    const spec = findArg(op, (s.args[i] as NamedArg).name);
    if (spec && lowerName(spec.name) === lower) return true;
  }
  return false;
}

/** A statement without blocks (most): one shared empty list, never changed. */
const NO_BLOCKS: readonly Block[] = [];

function blocksOf(s: Statement): readonly Block[] {
  switch (s.kind) {
    case 'anonymous':
      return [s.body];
    case 'if':
      return s.else ? [s.then, s.else] : [s.then];
    case 'foreach':
    case 'context':
    case 'with':
      return [s.body];
    case 'try':
      return [s.body, s.handler];
    default:
      return NO_BLOCKS;
  }
}

export async function checkScript(script: Script, raft: RaftLoader, configNames: ReadonlySet<string>): Promise<Diagnostic[]> {
  const c = new Checker(raft, new Set([...configNames].map((n) => n.toLowerCase())));
  for (const g of script.globals) c.declared.add(varKey(g.target.sigil, g.target.name));
  await c.declare(script.body);
  for (const g of script.globals) if (g.value) c.expr(g.value);
  c.block(script.body);
  for (const m of c.raftModules) c.block(m.body);
  return c.diags;
}
