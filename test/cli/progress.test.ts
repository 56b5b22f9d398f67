import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createProgress } from '../../src/engine/progress.js';
import type { GraphNode, NodeResult } from '../../src/core/model.js';

function fakeStream(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, stream: { isTTY, columns: 40, write: (s: string) => writes.push(s) } as unknown as NodeJS.WriteStream };
}

const node = { id: 'files/a-rather-long-node-id-that-is-cut-to-the-terminal-width', type: 'file', name: 'x', params: {} } as GraphNode;
const result = {} as NodeResult;

test('no progress line when the output is not a terminal', () => {
  const { writes, stream } = fakeStream(false);
  const p = createProgress(stream);
  p.onStart?.(node);
  p.onResult?.(result, 1, 2);
  p.stop();
  assert.deepEqual(writes, []);
});

test('on a terminal, a long run shows one rewritten line cut to the width, cleared at the end', async (t) => {
  const { writes, stream } = fakeStream(true);
  const saved = process.env.CI;
  delete process.env.CI;
  t.after(() => {
    if (saved !== undefined) process.env.CI = saved;
  });
  t.mock.timers.enable({ apis: ['Date'], now: 0 });
  const p = createProgress(stream);
  p.onStart?.(node);
  p.onResult?.(result, 1, 3);
  assert.equal(writes.length, 0, 'nothing during the first moments');
  t.mock.timers.tick(1000);
  p.onResult?.(result, 2, 3);
  assert.equal(writes.length, 1);
  assert.ok(writes[0]?.startsWith('\r\x1b[K[2/3] files/'));
  assert.equal(writes[0]?.length, '\r\x1b[K'.length + 39);
  p.stop();
  assert.equal(writes.at(-1), '\r\x1b[K');
});
