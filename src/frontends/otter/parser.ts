/** Statements: blocks, set, if, foreach, for, with, try, call, modules, operations and Log-*. */
import type {
  ActionStatement,
  Block,
  ContextType,
  Directives,
  Expr,
  GlobalStatement,
  IfStatement,
  LogLevel,
  ModuleDecl,
  ModuleParam,
  NamedArg,
  OutputArg,
  Script,
  Sigil,
  Statement,
  VarTarget,
} from './ast.js';
import { describe, Scanner } from './lexer.js';
import { parseAccessors, parsePredicate, parseValue } from './parse-expr.js';

/** The arguments of a statement without a list: shared, never changed. */
const NO_ARGS: { readonly args: NamedArg[]; readonly outputs: OutputArg[] } = Object.freeze({ args: Object.freeze([]) as unknown as NamedArg[], outputs: Object.freeze([]) as unknown as OutputArg[] });

/** An operation name in lower case: each name a script uses is lowered once. */
function lowered(name: string): string {
  let lower = LOWERED.get(name);
  if (lower === undefined) LOWERED.set(name, (lower = name.toLowerCase()));
  return lower;
}

const LOWERED = new Map<string, string>();

const LOG_LEVELS: Record<string, LogLevel> = {
  'log-debug': 'DEBUG',
  'log-information': 'INFO',
  'log-warning': 'WARN',
  'log-error': 'ERROR',
};

const CONTEXT_TYPES: readonly ContextType[] = ['server', 'role', 'directory'];

/** The words that start a statement other than an operation call (the cases of Parser.statement's switch). */
const STATEMENT_WORDS: ReadonlySet<string> = new Set(['set', 'global', 'if', 'foreach', 'for', 'with', 'await', 'try', 'throw', 'error', 'fail', 'warn', 'break', 'continue', 'return', 'force', 'call']);

export function parseScript(file: string, text: string): Script {
  const p = new Parser(new Scanner(file, text));
  return p.script();
}

class Parser {
  /** Arguments of the argument lists being read (see argList). */
  private readonly pendingArgs: NamedArg[] = [];

  constructor(private readonly s: Scanner) {}

  script(): Script {
    const s: Scanner = this.s;
    const globals: GlobalStatement[] = [];
    s.skipTrivia();
    for (;;) {
      const at = s.pos;
      const comments = s.comments;
      const description = s.takeDescription();
      if (!s.keyword('global')) {
        s.comments = comments;
        break;
      }
      globals.push(this.global(at, description));
      s.skipTrivia();
    }
    const start = s.pos;
    const { modules, body } = this.contents(true);
    // The script's own block has an id of its own: a first statement `{...}` starts at the same offset.
    return { file: s.file, globals, body: { kind: 'block', id: `${s.file}:script`, modules, body, span: s.span(start) } };
  }

  private contents(topLevel: boolean): { modules: ModuleDecl[]; body: Statement[] } {
    const s: Scanner = this.s;
    const modules: ModuleDecl[] = [];
    const body: Statement[] = [];
    for (;;) {
      s.skipTrivia();
      if (s.done) {
        if (!topLevel) s.fail('expected "}" but the script ended');
        break;
      }
      if (s.peek() === '}') {
        if (topLevel) s.fail('unexpected "}" with no block to close');
        break;
      }
      const at = s.pos;
      const description = s.takeDescription();
      if (s.keyword('module')) modules.push(this.module(at));
      else body.push(this.statement(at, description));
    }
    return { modules, body };
  }

  /** `{ ... }` */
  private block(description?: string): Block {
    return this.s.nested(() => this.blockAt(description));
  }

  private blockAt(description?: string): Block {
    const s: Scanner = this.s;
    s.skipTrivia();
    const start = s.pos;
    s.expect('{', '"{" to open a block');
    const { modules, body } = this.contents(false);
    s.expect('}');
    const block: Block = { kind: 'block', id: `${s.file}:${start}`, modules, body, span: s.span(start) };
    return description === undefined ? block : { ...block, description };
  }

  private end(): void {
    const s: Scanner = this.s;
    s.skipSpaces(true);
    const lineEnd = s.pos;
    s.skipSpaces();
    // A missing ";" is reported where the line ends, not where the next statement starts.
    if (s.text.charCodeAt(s.pos) !== 59) s.fail(`expected ";" at the end of the statement, found ${describe(s.text[lineEnd] ?? '')}`, lineEnd);
    s.pos++;
  }

  private target(): VarTarget {
    const s: Scanner = this.s;
    s.skipSpaces();
    const span = s.span();
    const sigil = s.peek();
    if (sigil !== '$' && sigil !== '@' && sigil !== '%') s.fail(`expected a variable ($name, @name or %name), found ${describe(sigil)}`);
    s.pos++;
    const name = s.variableName();
    if (name === undefined) s.fail(`expected a variable name after "${sigil}"`);
    return { sigil: sigil as Sigil, name, accessors: parseAccessors(s), span };
  }

  private global(at: number, description: string | undefined): GlobalStatement {
    const s: Scanner = this.s;
    const target = this.target();
    s.skipSpaces();
    let value: Expr | undefined;
    if (s.peek() === '=') {
      s.pos++;
      value = parseValue(s, 'line');
    }
    this.end();
    return { kind: 'global', target, ...(value ? { value } : {}), span: s.span(at), ...(description ? { description } : {}) };
  }

  private statement(at: number, description: string | undefined): Statement {
    const s: Scanner = this.s;
    const span = s.span(at);
    const base = description === undefined ? { span } : { span, description };
    if (s.peek() === '{') return { kind: 'anonymous', body: this.block(description), ...base };
    const word = s.identifier();
    if (word === undefined) s.fail(`expected a statement, found ${describe(s.peek())}`);
    // An operation call (most statements) is told by one lookup, not by every keyword of the switch.
    if (!STATEMENT_WORDS.has(word)) return this.action(word, at, base);
    switch (word) {
      case 'set': {
        s.skipSpaces();
        const modifier = s.keyword('local') ? 'local' : s.keyword('global') ? 'global' : undefined;
        const target = this.target();
        s.skipSpaces();
        s.expect('=', '"=" after the variable');
        const value = parseValue(s, 'line');
        this.end();
        return { kind: 'set', target, value, ...(modifier ? { modifier } : {}), ...base };
      }
      case 'global':
        // Seed: a global declaration after another statement is a fatal error when it is reached.
        return this.global(at, description);
      case 'if':
        return this.ifStatement(base);
      case 'foreach': {
        s.skipSpaces();
        let variable: VarTarget | undefined;
        let contextType: ContextType | undefined;
        if (s.peek() === '$' || s.peek() === '@' || s.peek() === '%') {
          variable = this.target();
          if (variable.sigil !== '$') s.fail('the foreach variable is a scalar ($name)', at);
        } else contextType = this.contextType();
        s.skipSpaces();
        if (!s.keyword('in')) s.fail(`expected "in", found ${describe(s.peek())}`);
        const source = parseValue(s, 'pred');
        const body = this.block(description);
        return { kind: 'foreach', source, body, ...(variable ? { variable } : {}), ...(contextType ? { contextType } : {}), ...base };
      }
      case 'for': {
        s.skipSpaces();
        const contextType = this.contextType();
        const value = parseValue(s, 'pred');
        return { kind: 'context', contextType, value, body: this.block(description), ...base };
      }
      case 'with': {
        const directives = this.directives();
        return { kind: 'with', directives, body: this.block(description), ...base };
      }
      case 'await': {
        s.skipSpaces(true);
        const token = s.identifier();
        this.end();
        return { kind: 'await', ...(token ? { token } : {}), ...base };
      }
      case 'try': {
        const body = this.block(description);
        s.skipTrivia();
        if (!s.keyword('catch')) s.fail(`expected "catch" after the try block, found ${describe(s.peek())}`);
        return { kind: 'try', body, handler: this.block(), ...base };
      }
      case 'throw': {
        s.skipSpaces(true);
        const message = s.peek() === ';' ? undefined : parseValue(s, 'line');
        this.end();
        return { kind: 'throw', ...(message ? { message } : {}), ...base };
      }
      case 'error':
      case 'fail':
      case 'warn':
      case 'break':
      case 'continue':
      case 'return':
        this.end();
        return { kind: word, ...base };
      case 'force': {
        s.skipSpaces();
        const which = s.keyword('warn') ? 'force-warn' : s.keyword('normal') ? 'force-normal' : s.fail('expected "warn" or "normal" after "force"');
        this.end();
        return { kind: which, ...base };
      }
      case 'call': {
        s.skipSpaces();
        const nameAt = s.pos;
        let name = s.identifier();
        if (name === undefined) s.fail('expected a module name after "call"');
        let raft: string | undefined;
        if (s.startsWith('::')) {
          s.pos += 2;
          raft = name;
          name = s.identifier();
          if (name === undefined) s.fail('expected a module name after "::"', nameAt);
        }
        s.skipSpaces();
        const { args, outputs } = s.peek() === '(' ? this.argList() : NO_ARGS;
        this.end();
        return { kind: 'call', name, args, outputs, ...(raft ? { raft } : {}), ...base };
      }
      default:
        return this.action(word, at, base);
    }
  }

  private contextType(): ContextType {
    const s: Scanner = this.s;
    const at = s.pos;
    const word = s.identifier();
    if (word === undefined || !CONTEXT_TYPES.includes(word as ContextType)) s.fail('expected server, role or directory', at);
    s.skipSpaces();
    return word as ContextType;
  }

  private ifStatement(base: { span: Statement['span']; description?: string }): IfStatement {
    const s: Scanner = this.s;
    const predicate = parsePredicate(s);
    const then = this.block(base.description);
    const at = s.pos;
    s.skipTrivia();
    if (!s.keyword('else')) {
      s.pos = at;
      return { kind: 'if', predicate, then, ...base };
    }
    s.skipTrivia();
    const elseAt = s.pos;
    if (s.keyword('if')) {
      const nested = this.ifStatement({ span: s.span(elseAt) });
      const wrapper: Block = { kind: 'block', id: `${s.file}:${elseAt}`, modules: [], body: [nested], span: nested.span };
      return { kind: 'if', predicate, then, else: wrapper, ...base };
    }
    return { kind: 'if', predicate, then, else: this.block(), ...base };
  }

  private directives(): Directives {
    const s: Scanner = this.s;
    const d: { -readonly [K in keyof Directives]: Directives[K] } = {};
    for (;;) {
      s.skipTrivia();
      const at = s.pos;
      const name = s.identifier();
      if (name === undefined) s.fail(`expected a directive (retry, timeout, async, lock, executionPolicy, isolation, credentials), found ${describe(s.peek())}`);
      s.skipSpaces();
      let value: string | undefined;
      if (s.peek() === '=') {
        s.pos++;
        s.skipSpaces();
        const m = /^!?[A-Za-z0-9_.-]+/.exec(s.text.slice(s.pos, s.pos + 100));
        if (!m) s.fail(`expected a value for ${name}`);
        value = m[0];
        s.pos += value.length;
      }
      const num = (): number => {
        const n = Number(value);
        if (value === undefined || !Number.isInteger(n) || n < 0) s.fail(`${name} needs a whole number, as in ${name}=3`, at);
        return n;
      };
      switch (name.toLowerCase()) {
        case 'retry':
          d.retry = num();
          break;
        case 'timeout':
          d.timeout = num();
          break;
        case 'async':
          d.async = true;
          if (value !== undefined) d.asyncToken = value;
          break;
        case 'lock':
          d.lock = value ?? '';
          break;
        case 'executionpolicy': {
          const v = value?.toLowerCase();
          if (v !== 'always' && v !== 'onchange') s.fail('executionPolicy is always or onChange', at);
          d.executionPolicy = v === 'always' ? 'always' : 'onChange';
          break;
        }
        case 'isolation':
          d.isolation = true;
          break;
        case 'credentials':
          if (value === undefined) s.fail('credentials needs a name', at);
          d.credentials = value;
          break;
        default:
          s.fail(`unknown directive "${name}"`, at);
      }
      s.skipTrivia();
      if (s.peek() === ',') {
        s.pos++;
        continue;
      }
      return d;
    }
  }

  /** `( Name: value, Out => $var, ... )` */
  private argList(): { args: NamedArg[]; outputs: OutputArg[] } {
    const s: Scanner = this.s;
    const text = s.text;
    s.expect('(');
    // The arguments are gathered on the parser's stack and taken as one list of their size (a list
    // pushed to from empty would keep room for 17, and a script keeps its statements).
    const pending = this.pendingArgs;
    const base = pending.length;
    const outputs: OutputArg[] = [];
    s.skipTrivia();
    if (text.charCodeAt(s.pos) === 41) {
      s.pos++;
      return { args: [], outputs };
    }
    for (;;) {
      s.skipTrivia();
      const span = s.span();
      const name = s.identifier();
      if (name === undefined) s.fail(`expected an argument name, found ${describe(s.peek())}`);
      s.skipSpaces();
      // Characters by code: `=>`, `:`, `,` and `)` are tested where the scanner stands.
      const c = text.charCodeAt(s.pos);
      if (c === 61 && text.charCodeAt(s.pos + 1) === 62) {
        s.pos += 2;
        outputs.push({ name, target: this.target(), span });
      } else {
        if (c === 58) s.pos++;
        else s.expect(':', `":" or "=>" after ${name}`);
        pending.push({ name, value: parseValue(s, 'list'), span });
      }
      s.skipTrivia();
      if (text.charCodeAt(s.pos) === 44) {
        s.pos++;
        continue;
      }
      if (text.charCodeAt(s.pos) === 41) s.pos++;
      else s.expect(')', '"," or ")" in the argument list');
      const args = pending.slice(base);
      pending.length = base;
      return { args, outputs };
    }
  }

  private action(word: string, at: number, base: { span: Statement['span']; description?: string }): Statement {
    const s: Scanner = this.s;
    let namespace: string | undefined;
    let name = word;
    if (s.startsWith('::')) {
      s.pos += 2;
      namespace = word;
      const op = s.identifier();
      if (op === undefined) s.fail('expected an operation name after "::"');
      name = op;
    }
    s.skipSpaces(true);
    let positional: Expr | undefined;
    // Characters by code, read once where the scanner stands (not a call per test).
    const text = s.text;
    let c = text.charCodeAt(s.pos);
    if (c === 10 || c === 35 || (c === 47 && (text.charCodeAt(s.pos + 1) === 47 || text.charCodeAt(s.pos + 1) === 42))) {
      // The argument list may start on the next line (`Ensure-File` then `(`).
      const lineEnd = s.pos;
      s.skipTrivia();
      s.comments = [];
      c = text.charCodeAt(s.pos);
      if (c !== 40 && c !== 59) s.fail(`expected ";" at the end of the statement, found ${describe('\n')}`, lineEnd);
    }
    if (c !== 40 && c !== 59) {
      if (s.done) s.fail(`expected ";" at the end of the statement, found ${describe(s.peek())}`);
      positional = parseValue(s, 'positional');
      const afterPositional = s.pos;
      s.skipTrivia();
      if (text.charCodeAt(s.pos) !== 40) s.pos = afterPositional;
    } else if (c === 40) s.skipTrivia();
    const { args, outputs } = text.charCodeAt(s.pos) === 40 ? this.argList() : NO_ARGS;
    this.end();
    // Log-* is a statement with or without a namespace (`InedoCore::Log-Information`).
    const level = LOG_LEVELS[lowered(name)];
    if (level !== undefined) {
      const message = positional ?? args.find((a) => /^(text|message)$/i.test(a.name))?.value ?? { kind: 'text', parts: [], span: base.span };
      return { kind: 'log', level, message, ...base };
    }
    // Built key by key (the same keys in the same order as spreading the optional parts and `base`); the
    // name starts where the statement does: the same position object.
    const stmt: { -readonly [K in keyof ActionStatement]?: ActionStatement[K] } = { kind: 'action', id: `${s.file}:${at}`, name, nameSpan: base.span, args, outputs };
    if (namespace) stmt.namespace = namespace;
    if (positional) stmt.positional = positional;
    stmt.span = base.span;
    if (base.description !== undefined) stmt.description = base.description;
    return stmt as ActionStatement;
  }

  private module(at: number): ModuleDecl {
    const s: Scanner = this.s;
    s.skipSpaces();
    const name = s.identifier();
    if (name === undefined) s.fail('expected a module name after "module"');
    s.skipSpaces();
    const params: ModuleParam[] = [];
    if (s.peek() === '<') {
      s.pos++;
      for (;;) {
        s.skipTrivia();
        if (s.peek() === '>') break;
        const out = s.keyword('out');
        const target = this.target();
        s.skipSpaces();
        let def: Expr | undefined;
        if (s.peek() === '=') {
          s.pos++;
          def = parseValue(s, 'angle');
        }
        params.push({ sigil: target.sigil, name: target.name, out, span: target.span, ...(def ? { default: def } : {}) });
        s.skipTrivia();
        if (s.peek() === ',') {
          s.pos++;
          continue;
        }
        break;
      }
      s.expect('>', '">" closing the module parameters');
    }
    const body = this.block();
    return { kind: 'module', name, params, body, span: s.span(at) };
  }
}
