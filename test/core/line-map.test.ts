// LineMap turns an offset into a line and column; it tries the line of its last answer first, so the
// answers must not depend on the order in which offsets are asked.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineMap } from '../../src/core/diag.js';

test('a line map gives the same line and column in any order of asking, at line ends and outside the text', () => {
  const text = 'ab\n\ncde\nf\n';
  const expected = (offset: number): { line: number; col: number } => {
    const before = text.slice(0, Math.max(0, offset));
    const line = before.split('\n').length;
    return { line, col: offset - (line === 1 ? 0 : before.lastIndexOf('\n') + 1) + 1 };
  };
  const offsets = Array.from({ length: text.length + 3 }, (_, i) => i - 1);
  for (const order of [offsets, [...offsets].reverse(), offsets.map((_, i) => offsets[(i * 7) % offsets.length] as number)]) {
    const map = new LineMap('f', text);
    for (const offset of order) {
      const { line, col } = map.span(offset);
      assert.deepEqual({ line, col }, offset < 0 ? { line: 1, col: offset + 1 } : expected(offset), `offset ${offset}`);
    }
  }
});
