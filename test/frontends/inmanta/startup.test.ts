// What an Inmanta command costs before and around its compile, seen from a process of its own: the yaml
// library is loaded only for a project.yml or a module.yml, and V8 is told to optimize only what stays hot
// (engine/heap.ts), which a graph file's run does not do.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { CAIRN, tempDir } from '../../cli/cli-helpers.js';
import { limitInliningForLargeCompile, tuneJitForOneRun } from '../../../src/engine/heap.js';

const PROJECT = resolve(import.meta.dirname, '../../fixtures/inmanta/project');

/**
 * Runs the CLI with a preload that, on exit, writes to stderr whether the yaml package was required, every
 * V8 flag the process set, and for each whether Node's crypto module was loaded before it.
 */
function probed(args: readonly string[]): { status: number | null; stdout: string; yaml: boolean; flags: string[]; cryptoBefore: boolean[] } {
  const tmp = tempDir('cairn-inmanta-startup-');
  const probe = join(tmp, 'probe.cjs');
  writeFileSync(
    probe,
    [
      "const v8 = require('node:v8');",
      'const set = v8.setFlagsFromString;',
      'const flags = [];',
      'const cryptoBefore = [];',
      "v8.setFlagsFromString = (f) => { flags.push(f); cryptoBefore.push(process.moduleLoadList.includes('NativeModule crypto')); return set.call(v8, f); };",
      "process.on('exit', () => process.stderr.write(`\\nprobe ${JSON.stringify({ yaml: Object.keys(require.cache).some((f) => /[\\\\/]node_modules[\\\\/]yaml[\\\\/]/.test(f)), flags, cryptoBefore })}\\n`));",
      '',
    ].join('\n'),
  );
  const r = spawnSync(process.execPath, ['-r', probe, CAIRN, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 1 << 28 });
  const line = r.stderr.split('\n').find((l) => l.startsWith('probe '));
  assert.ok(line, r.stderr);
  const seen = JSON.parse(line.slice('probe '.length)) as { yaml: boolean; flags: string[]; cryptoBefore: boolean[] };
  return { status: r.status, stdout: r.stdout, ...seen };
}

function plainProject(): string {
  const dir = join(tempDir('cairn-inmanta-plain-'), 'project');
  mkdirSync(dir);
  writeFileSync(join(dir, 'main.cf'), 'std::print("hello")\n');
  return dir;
}

test('the yaml library is loaded only for a project.yml or a module.yml', () => {
  const plain = probed(['inmanta', 'compile', plainProject()]);
  assert.equal(plain.status, 0);
  assert.equal(plain.stdout, 'hello\n');
  assert.equal(plain.yaml, false);
  const withModules = probed(['inmanta', 'compile', PROJECT]);
  assert.equal(withModules.status, 0);
  assert.equal(withModules.yaml, true);
});

test('an Inmanta command raises V8 interrupt budget once; a small graph file run keeps it, a larger one raises it, a large one tunes the heap instead', () => {
  const inmanta = probed(['inmanta', 'compile', plainProject()]);
  assert.equal(inmanta.status, 0);
  assert.deepEqual(inmanta.flags, ['--interrupt-budget=600000']);
  // A small model's run hashes nothing with the crypto module: it is not loaded for it.
  assert.deepEqual(inmanta.cryptoBefore, [false]);
  // From 64 KiB of main.cf (some 500 resources, whose run hashes its results), the crypto module is loaded
  // before the flag is set, as for a graph file of that size: V8 then still takes Node's code cache for it.
  const middling = join(tempDir('cairn-inmanta-middling-'), 'project');
  mkdirSync(middling);
  writeFileSync(join(middling, 'main.cf'), `${Array.from({ length: 1000 }, (_, k) => `x${k} = "${'a'.repeat(60)}"\n`).join('')}std::print(x0)\n`);
  const mid = probed(['inmanta', 'compile', middling]);
  assert.equal(mid.status, 0);
  assert.deepEqual(mid.flags, ['--interrupt-budget=600000']);
  assert.deepEqual(mid.cryptoBefore, [true]);
  const work = tempDir('cairn-inmanta-graph-');
  const graph = join(work, 'g.json');
  writeFileSync(graph, JSON.stringify({ version: 1, nodes: [{ id: 'f', type: 'file', params: { path: join(work, 'f'), content: 'x\n' } }] }));
  const plan = probed(['plan', graph, '--state-dir', join(work, 'state')]);
  assert.equal(plan.status, 0);
  assert.deepEqual(plan.flags, []);
  // From 64 KiB of graph (engine/heap.ts tuneForGraphInput), the same budget.
  const nodes = Array.from({ length: 700 }, (_, k) => ({ id: `f${k}`, type: 'file', params: { path: join(work, `f${k}`), content: `${k}\n` } }));
  writeFileSync(graph, JSON.stringify({ version: 1, nodes }, null, 1));
  assert.ok(readFileSync(graph, 'utf8').length >= 64 * 1024);
  const large = probed(['plan', graph, '--state-dir', join(work, 'state')]);
  assert.equal(large.status, 0);
  assert.deepEqual(large.flags, ['--interrupt-budget=600000']);
  // From 512 KiB (LARGE_INPUT) the heap is tuned instead, and the budget left as V8 has it.
  const many = Array.from({ length: 5000 }, (_, k) => ({ id: `f${k}`, type: 'file', params: { path: join(work, `f${k}`), content: `${k}\n` } }));
  writeFileSync(graph, JSON.stringify({ version: 1, nodes: many }, null, 1));
  assert.ok(readFileSync(graph, 'utf8').length >= 512 * 1024);
  const larger = probed(['plan', graph, '--state-dir', join(work, 'state')]);
  assert.equal(larger.status, 0);
  assert.deepEqual(larger.flags, ['--semi-space-growth-factor=1 --heap-growing-percent=50']);
  // This test process never called allowHeapTuning (only the CLI's main does): its V8 keeps its defaults.
  assert.equal(tuneJitForOneRun(), false);
});

test('a large model halves TurboFan inlining and keeps the young generation small from the start, and raises the interrupt budget only once it is parsed: a syntax error at its end leaves the budget alone', () => {
  const dir = join(tempDir('cairn-inmanta-large-'), 'project');
  mkdirSync(dir);
  // Over 512 KiB of statements (engine/heap.ts LARGE_INPUT), then one that does not parse.
  const line = (k: number): string => `x${k} = "${'a'.repeat(60)}"\n`;
  const body = Array.from({ length: 8000 }, (_, k) => line(k)).join('');
  assert.ok(body.length >= 512 * 1024);
  writeFileSync(join(dir, 'main.cf'), `${body}std::print(x0)\n`);
  const ok = probed(['inmanta', 'compile', dir]);
  assert.equal(ok.status, 0);
  assert.equal(ok.stdout, `${'a'.repeat(60)}\n`);
  // The young generation is kept at its first size too (engine/heap.ts keepYoungGenerationForLargeCompile).
  assert.deepEqual(ok.flags, ['--max-inlined-bytecode-size-cumulative=460', '--semi-space-growth-factor=1', '--interrupt-budget=600000']);
  // A huge one (4 MiB or more, engine/heap.ts HUGE_INPUT; here mostly a comment) leaves the young
  // generation as V8 has it.
  writeFileSync(join(dir, 'main.cf'), `# ${'c'.repeat(4 * 1024 * 1024)}\n${body}std::print(x0)\n`);
  const huge = probed(['inmanta', 'compile', dir]);
  assert.equal(huge.status, 0);
  assert.deepEqual(huge.flags, ['--max-inlined-bytecode-size-cumulative=460', '--interrupt-budget=600000']);
  writeFileSync(join(dir, 'main.cf'), `${body}x = )\n`);
  const bad = probed(['inmanta', 'compile', dir]);
  assert.equal(bad.status, 1);
  assert.deepEqual(bad.flags, ['--max-inlined-bytecode-size-cumulative=460', '--semi-space-growth-factor=1']);
  // A small model with the same error has the budget raised before it is parsed, and inlining left as V8 has it.
  writeFileSync(join(dir, 'main.cf'), 'x = )\n');
  assert.deepEqual(probed(['inmanta', 'compile', dir]).flags, ['--interrupt-budget=600000']);
  // This test process never called allowHeapTuning (only the CLI's main does): its V8 keeps its defaults.
  assert.equal(limitInliningForLargeCompile(), false);
});
