/**
 * Compile reconciles extend and requisite_in data on its own copies of the declarations it writes into:
 * the render's high data stays as it was, and declarations nothing writes into are not copied.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compile } from '../../../src/frontends/salt/compile/index.js';
import type { HighData } from '../../../src/frontends/salt/types.js';

function highData(): HighData {
  return {
    states: {
      a: { __sls__: 'm', __env__: 'base', file: [{ name: '/srv/a' }, { require: [{ test: 'c' }] }, 'managed', { order: 10000 }] },
      b: { __sls__: 'm', __env__: 'base', test: ['nop', { require_in: [{ file: 'a' }] }, { order: 10001 }] },
      c: { __sls__: 'm', __env__: 'base', test: ['nop', { order: 10002 }] },
    },
    extend: [{ c: { test: [{ require: [{ test: 'b' }] }], __sls__: 'm', __env__: 'base' } }],
    exclude: [],
    spans: {},
    files: {},
  } as unknown as HighData;
}

test('extend and require_in reach the chunks and leave the render data unchanged', () => {
  const data = highData();
  const before = structuredClone(data);
  const { chunks, errors } = compile(data, { requisiteIn: true });
  assert.deepEqual(errors, []);
  assert.deepEqual(data, before);
  const byId = new Map(chunks.map((c) => [c.__id__, c]));
  assert.deepEqual(byId.get('a')?.require, [{ test: 'c' }, { test: 'b' }]);
  assert.deepEqual(byId.get('c')?.require, [{ test: 'b' }]);
  // A declaration nothing wrote into keeps the render's argument values.
  assert.equal(byId.get('b')?.require_in, (data.states.b as unknown as { test: Array<Record<string, unknown>> }).test[1]?.require_in);
});

test("the render's Map of declarations is left as it was: read as it is without extend, exclude or requisite_in, copied before one writes", () => {
  const withIds = (d: HighData): HighData => ({ ...d, ids: new Map(Object.entries(d.states)) });
  const snapshot = (m: ReadonlyMap<string, unknown> | undefined) => structuredClone([...(m ?? [])]);
  // A requisite_in statement, no extend.
  const reqIn = withIds({ ...highData(), extend: [] });
  const before = snapshot(reqIn.ids);
  const r1 = compile(reqIn, { requisiteIn: true });
  assert.deepEqual(r1.errors, []);
  assert.deepEqual(snapshot(reqIn.ids), before);
  assert.deepEqual(new Map(r1.chunks.map((c) => [c.__id__, c])).get('a')?.require, [{ test: 'c' }, { test: 'b' }]);
  // An exclude: the excluded ID is gone from the chunks, not from the Map.
  const excl = withIds({ ...highData(), extend: [], exclude: [{ id: 'c' }] });
  const r2 = compile(excl, { requisiteIn: false });
  assert.deepEqual(r2.chunks.map((c) => c.__id__).sort(), ['a', 'b']);
  assert.deepEqual([...(excl.ids?.keys() ?? [])], ['a', 'b', 'c']);
  // Nothing that writes: the chunks come from the Map as it is.
  const plain = withIds({ ...highData(), extend: [], states: { c: highData().states.c } as HighData['states'] });
  const r3 = compile(plain, { requisiteIn: true });
  assert.deepEqual(r3.chunks.map((c) => [c.__id__, c.fun, c.order]), [['c', 'nop', 10002]]);
  assert.deepEqual([...(plain.ids?.keys() ?? [])], ['c']);
});
