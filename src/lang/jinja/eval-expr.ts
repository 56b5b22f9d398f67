/** Expression evaluation with Python semantics. */

import type { CallArgs, Expr } from './ast.js';
import { PyError } from './errors.js';
import type { Scope } from './interpreter.js';
import { binop, concat, PySlice, unary } from './pyops.js';
import { getAttr, getItem } from './pymethods.js';
import { PyDict, PyTuple, pyCmp, pyContains, pyEq, truthy, type Undefined, type PyValue } from './pyvalue.js';
import type { TestFn } from './tests.js';

export interface ExprHost {
  pos: number;
  readonly strict: boolean;
  readonly tpl: { readonly source: string };
  readonly env: { readonly tests: ReadonlyMap<string, TestFn> };
  lookup(scope: Scope, name: string): PyValue;
  undef(message: string): Undefined;
  callFilter(name: string, value: PyValue, args: CallArgs, scope: Scope): PyValue;
  evalArgs(a: CallArgs, scope: Scope): { args: PyValue[]; kwargs: Map<string, PyValue> };
  callValue(fn: PyValue, args: PyValue[], kwargs: Map<string, PyValue>): PyValue;
}

export function lineOf(source: string, offset: number): number {
  let n = 1;
  for (let i = 0; i < offset && i < source.length; i++) if (source.charCodeAt(i) === 10) n++;
  return n;
}

function compareOp(op: string, a: PyValue, b: PyValue): boolean {
  switch (op) {
    case '==': return pyEq(a, b);
    case '!=': return !pyEq(a, b);
    case '<': return pyCmp(a, b, 'lt') < 0;
    case '<=': return pyCmp(a, b, 'le') <= 0;
    case '>': return pyCmp(a, b, 'gt') > 0;
    case '>=': return pyCmp(a, b, 'ge') >= 0;
    case 'in': return pyContains(b, a);
    case 'notin': return !pyContains(b, a);
    default: throw new PyError('TemplateRuntimeError', `unknown operator ${op}`);
  }
}

export function evalExpr(h: ExprHost, e: Expr, scope: Scope): PyValue {
  h.pos = e.at;
  switch (e.kind) {
    case 'const':
      return e.value;
    case 'name':
      return h.lookup(scope, e.name);
    case 'list':
      return e.items.map((x) => evalExpr(h, x, scope));
    case 'tuple':
      return new PyTuple(e.items.map((x) => evalExpr(h, x, scope)));
    case 'dict': {
      const d = new PyDict();
      for (const [k, v] of e.pairs) d.set(evalExpr(h, k, scope), evalExpr(h, v, scope));
      return d;
    }
    case 'getattr': {
      const obj = evalExpr(h, e.obj, scope);
      h.pos = e.at;
      return getAttr(obj, e.attr, h.strict);
    }
    case 'getitem': {
      const obj = evalExpr(h, e.obj, scope);
      const key = evalExpr(h, e.index, scope);
      h.pos = e.at;
      return getItem(obj, key, h.strict);
    }
    case 'slice':
      return new PySlice(
        e.start ? evalExpr(h, e.start, scope) : null,
        e.stop ? evalExpr(h, e.stop, scope) : null,
        e.step ? evalExpr(h, e.step, scope) : null,
      );
    case 'call': {
      const fn = evalExpr(h, e.fn, scope);
      const { args, kwargs } = h.evalArgs(e.args, scope);
      h.pos = e.at;
      return h.callValue(fn, args, kwargs);
    }
    case 'filter': {
      const v = e.value ? evalExpr(h, e.value, scope) : null;
      h.pos = e.at;
      return h.callFilter(e.name, v, e.args, scope);
    }
    case 'test': {
      const v = evalExpr(h, e.value, scope);
      const t = h.env.tests.get(e.name);
      h.pos = e.at;
      if (!t) throw new PyError('TemplateRuntimeError', `No test named '${e.name}' found.`);
      const { args, kwargs } = h.evalArgs(e.args, scope);
      const r = truthy(t(h, v, args, kwargs));
      return e.negated ? !r : r;
    }
    case 'binop': {
      const a = evalExpr(h, e.left, scope);
      const b = evalExpr(h, e.right, scope);
      h.pos = e.at;
      return binop(e.op, a, b);
    }
    case 'unary': {
      const v = evalExpr(h, e.operand, scope);
      h.pos = e.at;
      return e.op === 'not' ? !truthy(v) : unary(e.op, v);
    }
    case 'and': {
      const a = evalExpr(h, e.left, scope);
      return truthy(a) ? evalExpr(h, e.right, scope) : a;
    }
    case 'or': {
      const a = evalExpr(h, e.left, scope);
      return truthy(a) ? a : evalExpr(h, e.right, scope);
    }
    case 'compare': {
      let left = evalExpr(h, e.first, scope);
      for (const [op, rhs] of e.ops) {
        const right = evalExpr(h, rhs, scope);
        h.pos = e.at;
        if (!compareOp(op, left, right)) return false;
        left = right;
      }
      return true;
    }
    case 'concat':
      return concat(e.items.map((x) => evalExpr(h, x, scope)));
    case 'condexpr':
      if (truthy(evalExpr(h, e.test, scope))) return evalExpr(h, e.body, scope);
      if (e.otherwise) return evalExpr(h, e.otherwise, scope);
      return h.undef(`the inline if-expression on line ${lineOf(h.tpl.source, e.at)} evaluated to false and no else section was defined.`);
  }
}
