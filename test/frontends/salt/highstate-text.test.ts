// The highstate text's handling of a comment's whitespace and of the run's order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatHighstate } from '../../../src/frontends/salt/output/highstate.js';

const TAG = 'test_|-a_|-a_|-nop';
const commentLine = (text: string) => (/\n     Comment: ([^]*?)\n     Started/.exec(text) as RegExpExecArray)[1];

test('a comment with whitespace at either end is stripped of it, for every character JavaScript calls whitespace', () => {
  for (let c = 0; c < 0x10000; c++) {
    const ch = String.fromCharCode(c);
    for (const comment of [`${ch}x y`, `x y${ch}`]) {
      const text = formatHighstate({ [TAG]: { result: true, comment, changes: {}, start_time: '01:02:03.000004', duration: 1, __run_num__: 0 } });
      const stripped = /^\s|\s$/.test(comment) ? comment.replace(/^\s+|\s+$/g, '') : comment;
      assert.equal(commentLine(text), stripped.replaceAll('\n', `\n${' '.repeat(14)}`), `U+${c.toString(16)}`);
    }
  }
});

test('the entries the run hands on print as the dict itself would', () => {
  const a = { result: true, comment: 'one', changes: {}, start_time: '01:02:03.000004', duration: 1, __run_num__: 0 };
  const b = { result: false, comment: 'two', changes: { x: 1 }, start_time: '01:02:03.000005', duration: 2, __run_num__: 1 };
  const data = { [TAG]: a, 'test_|-b_|-b_|-fail': b };
  const order = { tags: Object.keys(data), rets: [a, b] };
  assert.equal(formatHighstate(data, 'local', {}, order), formatHighstate(data));
  assert.match(formatHighstate(data, 'local', {}, order), /ID: a[^]*ID: b[^]*Failed:\s+1/);
});

test('handed-on entries with one that is not a return, or out of run order, print as the dict itself would', () => {
  const a = { result: true, comment: 'one', changes: {}, start_time: '01:02:03.000004', duration: 1, __run_num__: 2 };
  const b = { result: false, comment: 'two', changes: { x: 1 }, start_time: '01:02:03.000005', duration: 2, __run_num__: 1 };
  const c = { result: null, comment: 'three', changes: {}, __run_num__: 0 };
  const data: Record<string, unknown> = { [TAG]: a, 'test_|-b_|-b_|-fail': b, 'test_|-c_|-c_|-nop': c };
  const order = { tags: Object.keys(data), rets: [a, b, c] };
  // Out of run order: printed by run number, c first.
  assert.equal(formatHighstate(data, 'local', {}, order), formatHighstate(data));
  assert.match(formatHighstate(data, 'local', {}, order), /ID: c[^]*ID: b[^]*ID: a/);
  // An entry that is not a state's return (a failhard mark) is left out.
  const marked = { ...data, __FAILHARD__: true };
  const withMark = { tags: Object.keys(marked), rets: [a, b, c, true] as unknown as (typeof order)['rets'] };
  assert.equal(formatHighstate(marked, 'local', {}, withMark), formatHighstate(data));
});
