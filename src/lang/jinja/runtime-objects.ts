/** Objects templates see at run time: loop, namespace(), imported modules, cycler(), joiner(). */

import { typeError } from './errors.js';
import { bindArgs } from './pymethods.js';
import { PyCallable, PyDict, PyObject, PyTuple, pyEq, pyIter, pyRepr, type Undefined, type PyValue } from './pyvalue.js';

export class LoopContext extends PyObject {
  readonly typeName = 'LoopContext';
  index0 = 0;
  private lastChanged: PyValue = undefined;
  constructor(private readonly items: readonly PyValue[], private readonly undef: (msg: string) => Undefined) {
    super();
  }
  getAttr(name: string): PyValue | undefined {
    const n = this.items.length;
    const i = this.index0;
    switch (name) {
      case 'index': return i + 1;
      case 'index0': return i;
      case 'revindex': return n - i;
      case 'revindex0': return n - i - 1;
      case 'first': return i === 0;
      case 'last': return i === n - 1;
      case 'length': return n;
      case 'depth': return 1;
      case 'depth0': return 0;
      case 'previtem': return i > 0 ? this.items[i - 1] : this.undef('there is no previous item');
      case 'nextitem': return i < n - 1 ? this.items[i + 1] : this.undef('there is no next item');
      case 'cycle': return new PyCallable('cycle', (args) => {
        if (args.length === 0) throw typeError('no items for cycling given');
        return args[i % args.length];
      });
      case 'changed': return new PyCallable('changed', (args) => {
        const v = args.length === 1 ? args[0] : args;
        if (this.lastChanged !== undefined && pyEq(this.lastChanged, v)) return false;
        this.lastChanged = v;
        return true;
      });
      default: return undefined;
    }
  }
  override repr(): string {
    return `<LoopContext ${this.index0 + 1}/${this.items.length}>`;
  }
}

export class Namespace extends PyObject {
  readonly typeName = 'Namespace';
  readonly attrs = new Map<string, PyValue>();
  getAttr(name: string): PyValue | undefined {
    return this.attrs.get(name);
  }
  override setAttr(name: string, value: PyValue): void {
    this.attrs.set(name, value);
  }
  override repr(): string {
    return `<Namespace ${[...this.attrs].map(([k, v]) => `${k}=${pyRepr(v)}`).join(', ')}>`;
  }
}

export function makeNamespace(args: PyValue[], kwargs: Map<string, PyValue>): Namespace {
  const ns = new Namespace();
  for (const a of args) {
    if (a instanceof PyDict) for (const [k, v] of a.entries()) ns.attrs.set(String(k), v);
    else for (const pair of pyIter(a)) {
      const kv = pyIter(pair);
      ns.attrs.set(String(kv[0]), kv[1]);
    }
  }
  for (const [k, v] of kwargs) ns.attrs.set(k, v);
  return ns;
}

/** What `{% import %}` binds: a template's exported top-level names. */
export class TemplateModule extends PyObject {
  readonly typeName = 'TemplateModule';
  constructor(readonly name: string, readonly exports: ReadonlyMap<string, PyValue>, readonly output: string) {
    super();
  }
  getAttr(name: string): PyValue | undefined {
    return this.exports.get(name);
  }
  override repr(): string {
    return `<Template ${pyRepr(this.name)}>`;
  }
}

export class Cycler extends PyObject {
  readonly typeName = 'Cycler';
  private pos = 0;
  constructor(private readonly items: readonly PyValue[]) {
    super();
    if (items.length === 0) throw typeError('at least one item has to be provided');
  }
  getAttr(name: string): PyValue | undefined {
    switch (name) {
      case 'current': return this.items[this.pos];
      case 'next': return new PyCallable('next', () => {
        const v = this.items[this.pos];
        this.pos = (this.pos + 1) % this.items.length;
        return v;
      });
      case 'reset': return new PyCallable('reset', () => {
        this.pos = 0;
        return null;
      });
      default: return undefined;
    }
  }
}

export function makeJoiner(args: PyValue[], kwargs: Map<string, PyValue>): PyCallable {
  const [sep] = bindArgs('joiner', [['sep', ', ']], args, kwargs);
  let used = false;
  return new PyCallable('joiner', () => {
    if (!used) {
      used = true;
      return '';
    }
    return sep;
  });
}

/** A macro value; `call` runs the body with bound arguments. */
export class Macro extends PyCallable {
  constructor(
    name: string,
    readonly paramNames: readonly string[],
    readonly catchVarargs: boolean,
    readonly catchKwargs: boolean,
    readonly usesCaller: boolean,
    call: (args: PyValue[], kwargs: Map<string, PyValue>) => PyValue,
  ) {
    super(name, call);
    this.attrs = new Map<string, PyValue>([
      ['name', name],
      ['arguments', new PyTuple([...paramNames])],
      ['catch_varargs', catchVarargs],
      ['catch_kwargs', catchKwargs],
      ['caller', usesCaller],
    ]);
  }
}
