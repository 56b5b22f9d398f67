/** Jinja2's built-in tests (`x is defined`, `n is divisibleby 3`, ...). */

import { PyError } from './errors.js';
import { binop } from './pyops.js';
import { bindArgs } from './pymethods.js';
import {
  isIterable,
  isNumber,
  isString,
  Markup,
  PyCallable,
  PyDict,
  PyFloat,
  PyObject,
  PyTuple,
  pyCmp,
  pyContains,
  pyEq,
  pyStr,
  truthy,
  Undefined,
  type PyValue,
} from './pyvalue.js';

export type TestFn = (h: unknown, value: PyValue, args: PyValue[], kwargs: Map<string, PyValue>) => boolean;

const t0 = (f: (v: PyValue) => boolean): TestFn => (_h, v, args, kwargs) => {
  bindArgs('test', [], args, kwargs);
  return f(v);
};
const t1 = (name: string, f: (v: PyValue, o: PyValue) => boolean): TestFn => (_h, v, args, kwargs) => {
  const [o] = bindArgs(name, [['other']], args, kwargs);
  return f(v, o);
};

const isInt = (v: PyValue): boolean => typeof v === 'number';
const hasCase = (s: string): boolean => s.toLowerCase() !== s.toUpperCase();

function requireInt(v: PyValue): number {
  if (v instanceof Undefined) v.fail();
  if (typeof v === 'number' || typeof v === 'boolean') return Number(v);
  if (v instanceof PyFloat) return v.v;
  throw new PyError('TypeError', `not all arguments converted during string formatting`);
}

export const BUILTIN_TESTS: Record<string, TestFn> = {
  defined: t0((v) => !(v instanceof Undefined)),
  undefined: t0((v) => v instanceof Undefined),
  none: t0((v) => v === null),
  number: t0((v) => isNumber(v)),
  integer: t0(isInt),
  float: t0((v) => v instanceof PyFloat),
  boolean: t0((v) => typeof v === 'boolean'),
  true: t0((v) => v === true),
  false: t0((v) => v === false),
  string: t0((v) => isString(v)),
  mapping: t0((v) => v instanceof PyDict),
  sequence: t0((v) => isString(v) || Array.isArray(v) || v instanceof PyTuple || v instanceof PyDict || v instanceof Undefined),
  iterable: t0((v) => isIterable(v)),
  callable: t0((v) => v instanceof PyCallable),
  escaped: t0((v) => v instanceof Markup),
  even: t0((v) => requireInt(v) % 2 === 0),
  odd: t0((v) => Math.abs(requireInt(v) % 2) === 1),
  divisibleby: t1('divisibleby', (v, n) => truthy(pyEq(binop('%', v, n), 0))),
  lower: t0((v) => {
    const s = pyStr(v);
    return [...s].some(hasCase) && s === s.toLowerCase();
  }),
  upper: t0((v) => {
    const s = pyStr(v);
    return [...s].some(hasCase) && s === s.toUpperCase();
  }),
  sameas: t1('sameas', (v, o) => v === o || (v instanceof PyObject && v === o)),
  in: t1('in', (v, seq) => pyContains(seq, v)),
  eq: t1('eq', (a, b) => pyEq(a, b)),
  ne: t1('ne', (a, b) => !pyEq(a, b)),
  lt: t1('lt', (a, b) => pyCmp(a, b, 'lt') < 0),
  le: t1('le', (a, b) => pyCmp(a, b, 'le') <= 0),
  gt: t1('gt', (a, b) => pyCmp(a, b, 'gt') > 0),
  ge: t1('ge', (a, b) => pyCmp(a, b, 'ge') >= 0),
  filter: (h, v) => (h as { env: { filters: Map<string, unknown> } }).env.filters.has(pyStr(v)),
  test: (h, v) => (h as { env: { tests: Map<string, unknown> } }).env.tests.has(pyStr(v)),
};
BUILTIN_TESTS.equalto = BUILTIN_TESTS.eq!;
BUILTIN_TESTS['=='] = BUILTIN_TESTS.eq!;
BUILTIN_TESTS['!='] = BUILTIN_TESTS.ne!;
BUILTIN_TESTS['<'] = BUILTIN_TESTS.lt!;
BUILTIN_TESTS['<='] = BUILTIN_TESTS.le!;
BUILTIN_TESTS['>'] = BUILTIN_TESTS.gt!;
BUILTIN_TESTS['>='] = BUILTIN_TESTS.ge!;
BUILTIN_TESTS.greaterthan = BUILTIN_TESTS.gt!;
BUILTIN_TESTS.lessthan = BUILTIN_TESTS.lt!;
