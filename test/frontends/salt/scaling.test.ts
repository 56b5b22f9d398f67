/**
 * Work that must stay near-linear in the size of the input, checked by what is done rather than by time:
 * a long `names:` list, the source lines of IDs a Jinja loop wrote, and requisite targets found by index.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChunkIndex } from '../../../src/frontends/salt/compile/chunk-index.js';
import type { Chunk } from '../../../src/frontends/salt/compile/index.js';
import { compileHighData } from '../../../src/frontends/salt/compile/low.js';
import { RenderedLines } from '../../../src/frontends/salt/render/source-map.js';
import { runSucceeded } from '../../../src/frontends/salt/run/index.js';

test('a names list of 60,000 entries (some repeated) compiles to one chunk per distinct name, in order', () => {
  const names = Array.from({ length: 60000 }, (_, i) => `/srv/f${i % 50000}`);
  const chunks = compileHighData(new Map([['many', { __sls__: 'bench', __env__: 'base', file: ['managed', { names }, { contents: 'x' }] }]]));
  assert.equal(chunks.length, 50000);
  assert.equal(chunks[0]?.name, '/srv/f0');
  assert.equal(chunks[49999]?.name, '/srv/f49999');
  assert.equal(chunks[1]?.contents, 'x');
});

test('IDs written by a Jinja loop map to the loop line, trying a bounded number of template lines each', () => {
  const source = ['{% for k in range(n) %}', 'f{{ k }}:', '  file.managed:', '    - name: /srv/{{ k }}', '{% endfor %}', 'last:', '  test.nop: []'].join('\n');
  const out: string[] = [];
  for (let k = 0; k < 20000; k++) out.push(`f${k}:`, '  file.managed:', `    - name: /srv/${k}`);
  out.push('last:', '  test.nop: []');
  const lines = new RenderedLines(source, out.join('\n'));
  for (let k = 0; k < 20000; k++) assert.equal(lines.map(3 * k + 1), 2);
  assert.equal(lines.map(60001), 6, 'a literal line maps to itself however far away');
  assert.equal(lines.map(3), 4);
  assert.ok(lines.tried <= 2 * 20003, `tried ${lines.tried} template lines`);
});

test('the nearest of equally matching template lines wins, the upper one on a tie', () => {
  const lines = new RenderedLines(['a{{ x }}', 'b', 'a{{ y }}', 'c', 'a'].join('\n'), ['a1', 'a2', 'z', 'a', 'a', 'q'].join('\n'));
  assert.equal(lines.map(1), 1);
  assert.equal(lines.map(2), 1, 'lines 1 and 3 are as near: the upper one');
  assert.equal(lines.map(3), 3, 'no match: the same line number');
  assert.equal(lines.map(4), 3, 'template line 3 and literal line 5 are as near: the upper one');
  assert.equal(lines.map(5), 5, 'the literal line 5 is nearer than template line 3');
  assert.equal(lines.map(9), 5, 'past the end: the last line');
});

test('requisite targets without a glob are found by index; a glob target is matched once', () => {
  const chunks = Array.from({ length: 50000 }, (_, i) => ({ state: i % 2 ? 'file' : 'test', name: `n${i}`, __id__: `s${i}`, __sls__: `sls${i % 10}` }));
  chunks.push({ state: 'file', name: 's3', __id__: 'other', __sls__: 'sls0' });
  const index = new ChunkIndex(chunks, String);
  for (let i = 0; i < 50000; i++) assert.deepEqual(index.find('id', `s${i}`).map((c) => c.__id__), i === 3 ? ['s3', 'other'] : [`s${i}`]);
  assert.deepEqual(index.find('file', 's3').map((c) => c.__id__), ['s3', 'other']);
  assert.deepEqual(index.find('test', 's3'), []);
  assert.deepEqual(index.find('file', 'n5').map((c) => c.__id__), ['s5']);
  assert.equal(index.find('sls', 'sls7').length, 5000);
  assert.equal(index.scanned, 0);
  assert.deepEqual(index.find('id', 's4999?').map((c) => c.__id__), ['s49990', 's49991', 's49992', 's49993', 's49994', 's49995', 's49996', 's49997', 's49998', 's49999']);
  index.find('id', 's4999?');
  assert.equal(index.scanned, chunks.length, 'the second look-up of a glob target is remembered');
});

const chunk = (state: string, id: string, extra: Record<string, unknown> = {}) =>
  ({ state, fun: 'x', name: id, __id__: id, __sls__: 'a', __env__: 'base', order: 1, ...extra }) as Chunk;
const tag = (state: string, id: string) => `${state}_|-${id}_|-${id}_|-x`;

test('exit status: failures handled by a succeeding onfail_stop: False state, by index, 20,000 of them', () => {
  const n = 20000;
  const chunks = Array.from({ length: n }, (_, i) => chunk('cmd', `bad${i}`));
  chunks.push(chunk('test', 'handler', { onfail_stop: false, onfail: chunks.map((c) => ({ cmd: c.__id__ })) }));
  const running: Record<string, Record<string, unknown>> = {};
  for (const c of chunks) running[tag(c.state, c.__id__)] = { result: c.__id__ !== 'handler' ? false : true };
  assert.equal(runSucceeded(running, chunks), true);
  running[tag('test', 'handler')] = { result: false };
  assert.equal(runSucceeded(running, chunks), false);
});

test('exit status: an unhandled failure, a handler without onfail_stop: False, and an empty run fail', () => {
  const bad = chunk('cmd', 'bad');
  const stop = chunk('test', 'h', { onfail: [{ cmd: 'bad' }] });
  assert.equal(runSucceeded({ [tag('cmd', 'bad')]: { result: false }, [tag('test', 'h')]: { result: true } }, [bad, stop]), false);
  const go = chunk('test', 'h', { onfail: [{ cmd: 'bad' }], onfail_stop: false });
  const other = chunk('test', 'h', { onfail: [{ file: 'bad' }], onfail_stop: false });
  assert.equal(runSucceeded({ [tag('cmd', 'bad')]: { result: false }, [tag('test', 'h')]: { result: true } }, [bad, go]), true);
  assert.equal(runSucceeded({ [tag('cmd', 'bad')]: { result: false }, [tag('test', 'h')]: { result: true } }, [bad, other]), false, 'the handler names another state module');
  assert.equal(runSucceeded({}, [bad]), false);
});

test("exit status: given the run's results, a run without a failed state succeeds from them; with one, the running dict decides", () => {
  const ok = chunk('test', 'ok');
  const bad = chunk('cmd', 'bad');
  const go = chunk('test', 'h', { onfail: [{ cmd: 'bad' }], onfail_stop: false });
  const result = (id: string, r: boolean | null) => ({ id, name: id, type: 'x', result: r, status: 'ok' as const, changes: {}, comment: '', start: '', duration: 0, run_num: 0 });
  assert.equal(runSucceeded({ [tag('test', 'ok')]: { result: true } }, [ok], [result(tag('test', 'ok'), true)]), true);
  assert.equal(runSucceeded({ [tag('test', 'ok')]: { result: null } }, [ok], [result(tag('test', 'ok'), null)]), true);
  const running = { [tag('cmd', 'bad')]: { result: false }, [tag('test', 'h')]: { result: true } };
  const results = [result(tag('cmd', 'bad'), false), result(tag('test', 'h'), true)];
  assert.equal(runSucceeded(running, [bad, go], results), true, 'the failure is handled');
  assert.equal(runSucceeded(running, [bad, chunk('test', 'h', { onfail: [{ cmd: 'bad' }] })], results), false);
  assert.equal(runSucceeded({}, [bad], []), false, 'an empty run still fails');
});
