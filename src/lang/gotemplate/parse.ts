/**
 * The part of Go's text/template that Converge modules use: text and `{{ }}` actions with `-` trim markers,
 * comments, pipelines with `|`, function calls, `.`/`.field`, `$var`, `:=`, literals, parentheses,
 * `if`/`else if`/`else`, `range` (with `$i, $v :=`), `with` and `end`.
 */
import { MAX_NESTING, tooDeepAt } from '../../core/nesting.js';

export type Arg =
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'number'; readonly value: number }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'nil' }
  | { readonly kind: 'dot'; readonly fields: readonly string[] }
  | { readonly kind: 'var'; readonly name: string; readonly fields: readonly string[] }
  | { readonly kind: 'ident'; readonly name: string; readonly fields?: readonly string[] }
  | { readonly kind: 'pipe'; readonly pipe: Pipeline };

/** One command of a pipeline: a function with arguments, or a single operand. */
export interface Command {
  readonly args: readonly Arg[];
}

export interface Pipeline {
  readonly decl: readonly string[];
  readonly commands: readonly Command[];
  readonly offset: number;
}

export type TNode =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'action'; readonly pipe: Pipeline }
  | { readonly kind: 'if' | 'with'; readonly pipe: Pipeline; readonly body: readonly TNode[]; readonly else: readonly TNode[] }
  | { readonly kind: 'range'; readonly pipe: Pipeline; readonly body: readonly TNode[]; readonly else: readonly TNode[] };

export class TemplateError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
    this.name = 'TemplateError';
  }
}

interface Action {
  readonly src: string;
  readonly offset: number;
}

type Piece = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'action'; readonly action: Action };

/** Splits the template into text and action pieces, applying `{{-` and `-}}` trimming. */
function split(src: string): Piece[] {
  const pieces: Piece[] = [];
  let i = 0;
  let trimNext = false;
  while (i < src.length) {
    const open = src.indexOf('{{', i);
    let text = open === -1 ? src.slice(i) : src.slice(i, open);
    if (trimNext) text = text.replace(/^\s+/, '');
    trimNext = false;
    if (open === -1) {
      if (text) pieces.push({ kind: 'text', text });
      break;
    }
    let start = open + 2;
    if (/^-\s/.test(src.slice(start, start + 2))) {
      text = text.replace(/\s+$/, '');
      start += 1;
    }
    if (text) pieces.push({ kind: 'text', text });
    const close = findClose(src, start);
    if (close === -1) throw new TemplateError('unclosed action', open);
    let end = close;
    if (/\s-$/.test(src.slice(close - 2, close))) {
      end = close - 1;
      trimNext = true;
    }
    const body = src.slice(start, end);
    if (!/^\s*\/\*[\s\S]*\*\/\s*$/.test(body)) pieces.push({ kind: 'action', action: { src: body, offset: start } });
    i = close + 2;
  }
  return pieces;
}

/** The `}}` that closes an action, skipping quoted strings. */
function findClose(src: string, from: number): number {
  let i = from;
  while (i < src.length) {
    const c = src[i];
    if (c === '"' || c === '`' || c === "'") {
      const q = c;
      i++;
      while (i < src.length && src[i] !== q) i += src[i] === '\\' && q !== '`' ? 2 : 1;
      i++;
      continue;
    }
    if (c === '}' && src[i + 1] === '}') return i;
    i++;
  }
  return -1;
}

type Tok = { readonly t: string; readonly v: string; readonly offset: number };

function lexAction(a: Action): Tok[] {
  const out: Tok[] = [];
  const s = a.src;
  let i = 0;
  while (i < s.length) {
    const c = s[i] as string;
    const offset = a.offset + i;
    if (/\s/.test(c)) i++;
    else if (c === '"') {
      let j = i + 1;
      let v = '';
      while (j < s.length && s[j] !== '"') {
        if (s[j] === '\\') {
          const e = s[j + 1];
          v += e === 'n' ? '\n' : e === 't' ? '\t' : e === 'r' ? '\r' : (e ?? '');
          j += 2;
        } else v += s[j++];
      }
      if (j >= s.length) throw new TemplateError('unterminated quoted string', offset);
      out.push({ t: 'str', v, offset });
      i = j + 1;
    } else if (c === '`') {
      const j = s.indexOf('`', i + 1);
      if (j === -1) throw new TemplateError('unterminated raw string', offset);
      out.push({ t: 'str', v: s.slice(i + 1, j), offset });
      i = j + 1;
    } else if (c === ':' && s[i + 1] === '=') {
      out.push({ t: ':=', v: ':=', offset });
      i += 2;
    } else if ('|(),='.includes(c)) {
      out.push({ t: c, v: c, offset });
      i++;
    } else {
      const m = /^(\$[A-Za-z0-9_]*|\.?[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*|\.|-?[0-9][0-9.eE+-]*)/.exec(s.slice(i));
      if (!m || m[0] === '') throw new TemplateError(`unexpected ${JSON.stringify(c)} in action`, offset);
      out.push({ t: 'word', v: m[0], offset });
      i += m[0].length;
    }
  }
  return out;
}

class PipeParser {
  private i = 0;
  constructor(
    private readonly toks: readonly Tok[],
    private readonly offset: number,
  ) {}

  done(): boolean {
    return this.i >= this.toks.length;
  }

  pipeline(stop: string | null): Pipeline {
    const decl: string[] = [];
    const save = this.i;
    while (this.toks[this.i]?.v.startsWith('$')) {
      decl.push((this.toks[this.i] as Tok).v);
      this.i++;
      if (this.toks[this.i]?.t === ',') this.i++;
      else break;
    }
    if (decl.length > 0 && (this.toks[this.i]?.t === ':=' || this.toks[this.i]?.t === '=')) this.i++;
    else {
      decl.length = 0;
      this.i = save;
    }
    const commands: Command[] = [];
    for (;;) {
      const args: Arg[] = [];
      while (!this.done() && this.toks[this.i]?.t !== '|' && this.toks[this.i]?.t !== stop) args.push(this.operand());
      if (args.length === 0) throw new TemplateError('missing value for command', this.toks[this.i]?.offset ?? this.offset);
      commands.push({ args });
      if (this.toks[this.i]?.t === '|') this.i++;
      else break;
    }
    return { decl, commands, offset: this.offset };
  }

  private operand(): Arg {
    const tok = this.toks[this.i++] as Tok;
    if (tok.t === 'str') return { kind: 'string', value: tok.v };
    if (tok.t === '(') {
      const pipe = this.pipeline(')');
      if (this.toks[this.i]?.t !== ')') throw new TemplateError('unclosed left paren', tok.offset);
      this.i++;
      return { kind: 'pipe', pipe };
    }
    if (tok.t !== 'word') throw new TemplateError(`unexpected ${JSON.stringify(tok.v)} in operand`, tok.offset);
    const w = tok.v;
    if (w === '.') return { kind: 'dot', fields: [] };
    if (w.startsWith('.')) return { kind: 'dot', fields: w.slice(1).split('.') };
    if (w.startsWith('$')) {
      const [name, ...fields] = w.split('.');
      return { kind: 'var', name: name as string, fields };
    }
    if (/^-?[0-9]/.test(w)) {
      const n = Number(w);
      if (Number.isNaN(n)) throw new TemplateError(`bad number syntax: ${JSON.stringify(w)}`, tok.offset);
      return { kind: 'number', value: n };
    }
    if (w === 'true' || w === 'false') return { kind: 'bool', value: w === 'true' };
    if (w === 'nil') return { kind: 'nil' };
    // `platform.OS`: a function called without arguments, then fields of its result (a chain in Go).
    if (/^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$/.test(w)) {
      const [name, ...fields] = w.split('.');
      return { kind: 'ident', name: name as string, fields };
    }
    if (w.includes('.')) throw new TemplateError(`unexpected ${JSON.stringify(w)}`, tok.offset);
    return { kind: 'ident', name: w };
  }
}

function parsePipe(a: Action, toks: readonly Tok[]): Pipeline {
  const p = new PipeParser(toks, a.offset);
  const pipe = p.pipeline(null);
  if (!p.done()) throw new TemplateError('unexpected token after pipeline', a.offset);
  return pipe;
}

/** Parses a template into its node list; errors carry the offset of the offending action. */
export function parseTemplate(src: string): TNode[] {
  const tooDeep = tooDeepAt(src, { quotes: '"`' });
  if (tooDeep >= 0) throw new TemplateError(`parentheses nested deeper than ${MAX_NESTING} levels`, tooDeep);
  const pieces = split(src);
  let k = 0;
  // Returns the nodes up to a control keyword that ends the list (end / else), and that keyword's tokens.
  const list = (): { nodes: TNode[]; stop?: { word: string; toks: Tok[]; action: Action } } => {
    const nodes: TNode[] = [];
    while (k < pieces.length) {
      const p = pieces[k++] as Piece;
      if (p.kind === 'text') {
        nodes.push({ kind: 'text', text: p.text });
        continue;
      }
      const toks = lexAction(p.action);
      const head = toks[0];
      if (!head) throw new TemplateError('missing value for command', p.action.offset);
      const word = head.t === 'word' ? head.v : '';
      if (word === 'end' || word === 'else') return { nodes, stop: { word, toks: toks.slice(1), action: p.action } };
      if (word === 'if' || word === 'with' || word === 'range') {
        nodes.push(block(word, parsePipe(p.action, toks.slice(1)), p.action));
        continue;
      }
      if (word === 'define' || word === 'template' || word === 'block') throw new TemplateError(`{{${word}}} is not supported`, p.action.offset);
      nodes.push({ kind: 'action', pipe: parsePipe(p.action, toks) });
    }
    return { nodes };
  };
  // The body and else branch of a control action, through its {{end}}; `else if` shares the end.
  const block = (word: 'if' | 'with' | 'range', pipe: Pipeline, action: Action): TNode => {
    const body = list();
    let elseNodes: TNode[] = [];
    let stop = body.stop;
    if (stop?.word === 'else' && stop.toks[0]?.v === 'if' && word === 'if') {
      elseNodes = [block('if', parsePipe(stop.action, stop.toks.slice(1)), stop.action)];
    } else {
      if (stop?.word === 'else') {
        const rest = list();
        elseNodes = rest.nodes;
        stop = rest.stop;
      }
      if (stop?.word !== 'end') throw new TemplateError(`unexpected EOF: ${word} without end`, action.offset);
    }
    if (word === 'range') return { kind: 'range', pipe, body: body.nodes, else: elseNodes };
    return { kind: word, pipe, body: body.nodes, else: elseNodes };
  };
  const top = list();
  if (top.stop) throw new TemplateError(`unexpected {{${top.stop.word}}}`, top.stop.action.offset);
  return top.nodes;
}

/** Every call of `name` with a literal first argument, anywhere in the template (for dependency edges). */
export function literalCalls(nodes: readonly TNode[], name: string): Array<{ arg: string | undefined; offset: number }> {
  const out: Array<{ arg: string | undefined; offset: number }> = [];
  const pipe = (p: Pipeline): void => {
    for (const c of p.commands) {
      const [head, first] = c.args;
      if (head?.kind === 'ident' && head.name === name) out.push({ arg: first?.kind === 'string' ? first.value : undefined, offset: p.offset });
      for (const a of c.args) if (a.kind === 'pipe') pipe(a.pipe);
    }
  };
  const walk = (ns: readonly TNode[]): void => {
    for (const n of ns) {
      if (n.kind === 'action') pipe(n.pipe);
      else if (n.kind === 'range') {
        pipe(n.pipe);
        walk(n.body);
        walk(n.else);
      } else if (n.kind === 'if' || n.kind === 'with') {
        pipe(n.pipe);
        walk(n.body);
        walk(n.else);
      }
    }
  };
  walk(nodes);
  return out;
}
