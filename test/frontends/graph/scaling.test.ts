/**
 * A graph file's slow path (positions for its diagnostics) and its secret flow stay near-linear: JSON
 * positions agree with the YAML reader's, a long cycle is reported by a bounded message, and a long chain
 * of references to a secret makes every node of it secret.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DiagnosticError } from '../../../src/core/diag.js';
import { indexGraph } from '../../../src/core/graph.js';
import { JsonSpans } from '../../../src/frontends/graph/json-spans.js';
import { parseGraphText, yamlSpans } from '../../../src/frontends/graph/load.js';

test('JSON positions agree with the YAML reader on every path of a graph, and miss where it misses', async () => {
  const text = JSON.stringify(
    {
      version: 1,
      nodes: [
        { id: 'a', type: 'file', params: { path: '/x "q" \\ y', content: 'é\n', mode: '0644', list: [1, [2, { k: null }], true] }, require: ['b'] },
        { id: 'b', 'we\\ird"key': 1, type: 'file', params: {} },
      ],
    },
    null,
    2,
  );
  const spans = new JsonSpans('g.json', text);
  const y = await yamlSpans('g.json', text);
  const paths: Array<Array<string | number>> = [
    [],
    ['version'],
    ['nodes'],
    ['nodes', 0],
    ['nodes', 0, 'params', 'path'],
    ['nodes', 0, 'params', 'list', 1, 1, 'k'],
    ['nodes', 0, 'params', 'list', 2],
    ['nodes', 0, 'require', 0],
    ['nodes', 1, 'we\\ird"key'],
    ['nodes', 1, 'params'],
    ['nodes', 2],
    ['nodes', 'x'],
    ['version', 0],
    ['nodes', 0, 'nope'],
  ];
  for (const p of paths) assert.deepEqual(spans.spanOf(p), y.spanOf(p), JSON.stringify(p));
  assert.deepEqual(spans.spanOf(['nodes', 1, 'type']), { file: 'g.json', line: 29, col: 15 });
});

/** A graph of `n` file nodes, each requiring the one before; the first requires the last when `cycle`. */
function chain(n: number, cycle: boolean): string {
  const nodes = Array.from({ length: n }, (_, i) => ({ id: `f${i}`, type: 'file', params: { path: `/tmp/f${i}` }, require: i > 0 ? [`f${i - 1}`] : cycle ? [`f${n - 1}`] : [] }));
  return JSON.stringify({ version: 1, nodes });
}

test('a cycle through 20,000 nodes is one positioned diagnostic naming a bounded number of them', async () => {
  const err = await parseGraphText('g.json', chain(20000, true), (g) => indexGraph(g).diagnostics).catch((e: unknown) => e);
  assert.ok(err instanceof DiagnosticError);
  assert.equal(err.diagnostics.length, 1);
  const d = err.diagnostics[0];
  assert.equal(d?.code, 'G006');
  assert.ok((d?.message.length ?? 0) < 600, d?.message);
  assert.equal((d?.message.match(/"f\d+"/g) ?? []).length, 20);
  assert.match(d?.message ?? '', /19981 more nodes/);
  assert.deepEqual({ line: d?.span?.line, col: d?.span?.col }, { line: 1, col: 23 });
});

test('a chain of 20,000 references down to one secret node makes every node of it secret', async () => {
  const n = 20000;
  // Node i takes its content from node i + 1; the last one is secret. Listed first to last, the secret
  // has to travel against the order of the file.
  const nodes = Array.from({ length: n }, (_, i) => ({
    id: `n${i}`,
    type: 'file',
    params: { path: `/tmp/n${i}`, ...(i < n - 1 ? { content: { $ref: `n${i + 1}`, field: 'content' } } : { content: 'x' }) },
    ...(i === n - 1 ? { secret: true } : {}),
  }));
  const g = await parseGraphText('g.json', JSON.stringify({ version: 1, nodes }));
  assert.equal(g.nodes.filter((x) => x.secret).length, n);
  const env = { name: 'CAIRN_TEST_SECRET_FLOW', value: 's3cret-value' };
  process.env[env.name] = env.value;
  nodes[n - 1] = { id: `n${n - 1}`, type: 'file', params: { path: '/tmp/last', content: { $secret: { env: env.name } } as never } };
  const g2 = await parseGraphText('g.json', JSON.stringify({ version: 1, nodes }));
  assert.deepEqual(g2.nodes[0]?.secret?.values, [env.value]);
  assert.deepEqual(g2.nodes[n - 1]?.secret?.values, [env.value]);
  delete process.env[env.name];
});
