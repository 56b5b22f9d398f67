// Python's str.splitlines as the state functions use it on their arguments.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pySplitLines } from '../../../src/frontends/salt/states/args.js';

test("pySplitLines splits at Python's line breaks, and only there, for every UTF-16 code unit", () => {
  const breaks = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;
  for (let c = 0; c < 0x10000; c++) {
    const ch = String.fromCharCode(c);
    for (const text of [`a${ch}b`, ch, `${ch}x`]) {
      const want = text.split(breaks);
      if (want[want.length - 1] === '') want.pop();
      assert.deepEqual(pySplitLines(text), want, `U+${c.toString(16)}`);
    }
  }
  assert.deepEqual(pySplitLines(''), []);
  assert.deepEqual(pySplitLines('line 1'), ['line 1']);
  assert.deepEqual(pySplitLines('a\r\nb\n'), ['a', 'b']);
});
