/**
 * The in-process runner is faithful: the same command lines give the same exit code, stdout and stderr in
 * this process as in a spawned `node bin/cairn.js`, and no run leaks state into the next (exit code,
 * environment, working directory, colour).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cairn, cairnSpawned, tempDir, writeGraph } from '../cli/cli-helpers.js';

test('in-process and spawned runs agree on exit code, stdout and stderr', () => {
  const dir = tempDir('cairn-inproc-');
  const graph = writeGraph(dir, [{ id: 'f', type: 'file', params: { path: join(dir, 'out.txt'), content: 'x\n' } }]);
  writeFileSync(join(dir, 'bad.json'), '{"version":1,"nodes":[{"id":"f","type":"nosuch"}]}\n');
  const lines = [
    ['--version'],
    ['--help'],
    ['plan', '--help'],
    ['nosuch'],
    ['plan', '--no-such-option', graph],
    ['explain', 'G010'],
    ['plan', join(dir, 'missing.json')],
    ['plan', join(dir, 'bad.json')],
    ['plan', graph, '--out', 'json', '--state-dir', '@STATE@'],
  ];
  for (const line of lines) {
    const args = (state: string) => line.map((a) => (a === '@STATE@' ? join(dir, state) : a));
    const inside = cairn(args('a'), { cwd: dir });
    const spawned = cairnSpawned(args('b'), { cwd: dir });
    const mask = (s: string) => s.replace(/"(start|end|started|finished)": "[^"]+"/g, '"$1": "T"').replace(/"duration(_ms)?": [\d.]+/g, '"duration$1": 0');
    assert.deepEqual({ ...inside, stdout: mask(inside.stdout) }, { ...spawned, stdout: mask(spawned.stdout) }, line.join(' '));
  }
});

test('a run leaves no state behind: exit code, environment, working directory, colour', () => {
  const dir = tempDir('cairn-inproc-');
  const before = { cwd: process.cwd(), exitCode: process.exitCode, noColor: process.env.NO_COLOR };
  assert.equal(cairn(['nosuch']).code, 1);
  // --no-color sets NO_COLOR for the run's process: here, only for the run.
  assert.equal(cairn(['--no-color', 'explain', 'R000'], { cwd: dir }).code, 0);
  assert.deepEqual({ cwd: process.cwd(), exitCode: process.exitCode, noColor: process.env.NO_COLOR }, before);
  // FORCE_COLOR in one run colours that run only.
  const graph = writeGraph(dir, [{ id: 'f', type: 'file', params: { path: join(dir, 'c.txt'), content: 'x\n' } }]);
  const coloured = cairn(['plan', graph, '--state-dir', join(dir, 's')], { env: { NO_COLOR: '', FORCE_COLOR: '1' } });
  assert.match(coloured.stdout, /\x1b\[/);
  const plain = cairn(['plan', graph, '--state-dir', join(dir, 's')]);
  assert.doesNotMatch(plain.stdout, /\x1b\[/);
  // A relative path is taken from the run's working directory.
  assert.equal(cairn(['plan', 'graph.json', '--state-dir', join(dir, 's')], { cwd: dir }).code, 0);
});

test('every call gets its own reply, however quickly calls follow each other', () => {
  // Replies are matched to requests by number: one that shows up late, or was left by a call that gave
  // up, never answers the next call (once seen in CI as every later test getting the previous output).
  const codes = ['R001', 'F017', 'G010'];
  const expected = new Map(codes.map((c) => [c, cairn(['explain', c]).stdout]));
  assert.equal(new Set(expected.values()).size, codes.length, 'the three explanations differ');
  for (let i = 0; i < 300; i++) {
    const code = codes[i % codes.length]!;
    const r = cairn(['explain', code]);
    assert.equal(r.stdout, expected.get(code), `call ${i} (${code})`);
  }
});
