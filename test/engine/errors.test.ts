// The three kinds of error: a resource failure is a failed result in the resource's words; a bug in cairn
// (a throwing resource kind, a throwing parser) is marked internal, keeps its stack in the run record only,
// and the user sees one distinct line and exit 1; a closed stdout or a missing build end cleanly.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { GraphNode, ResourceKind } from '../../src/core/model.js';
import { checkGraph } from '../../src/core/runtime.js';
import { reportError } from '../../src/engine/errors.js';
import { runCompiled } from '../../src/engine/pipeline.js';
import { FakeHost } from '../../src/host/fake.js';
import type { ResourceContext } from '../../src/host/types.js';
import { assertNoStack, CAIRN, cairn, ROOT, tempDir, writeGraph } from '../cli/cli-helpers.js';

function kind(type: string, check: () => never): ResourceKind<ResourceContext> {
  return { type, validate: () => [], check: async () => check(), apply: async () => ({ ok: true }) };
}

const buggy = kind('buggy', () => {
  const o = undefined as unknown as { x: { y: number } };
  return o.x.y as never;
});
const refusing = kind('refusing', () => {
  throw new Error('cannot read /etc/x: permission denied (EACCES)');
});

function node(id: string, type: string): GraphNode {
  return { id, type, name: id, params: {} };
}

/** Runs through the engine's pipeline with stderr captured. */
async function run(nodes: GraphNode[], stateDir: string): Promise<{ code: number; stderr: string; stdout: string }> {
  const graph = { nodes, edges: [] };
  const kinds = new Map([buggy, refusing].map((k) => [k.type, k]));
  const index = checkGraph(graph, kinds).index;
  assert.ok(index);
  let stderr = '';
  let stdout = '';
  const [errWrite, outWrite] = [process.stderr.write, process.stdout.write];
  process.stderr.write = ((s: string) => ((stderr += s), true)) as typeof process.stderr.write;
  process.stdout.write = ((s: string) => ((stdout += s), true)) as typeof process.stdout.write;
  try {
    const ctx = { host: new FakeHost(), baseDir: '/' };
    const code = await runCompiled({ frontEnd: 'graph', mode: 'apply', source: ['/x.json'], graph, index, ctx, kinds }, { out: 'text', stateDir, jobs: 1, detailedExitcode: false, lockTimeout: 1 }, (report) => ({
      print: () => process.stdout.write(report.results.map((r) => `${r.id}: ${r.comment}\n`).join('')),
    }));
    return { code, stderr, stdout };
  } finally {
    process.stderr.write = errWrite;
    process.stdout.write = outWrite;
  }
}

function runRecord(stateDir: string): { results: Array<{ id: string; comment: string; internal?: { stack: string } }> } {
  const dir = join(stateDir, 'runs');
  const name = readdirSync(dir).find((f) => f.endsWith('.json'));
  assert.ok(name, 'the run was recorded');
  return JSON.parse(readFileSync(join(dir, name), 'utf8'));
}

test('a throwing resource kind is an internal error: marked, stack in the run record, one line for the user, exit 1', async () => {
  const stateDir = tempDir();
  const r = await run([node('a', 'buggy'), node('b', 'refusing')], stateDir);
  assert.equal(r.code, 1);
  assert.match(r.stdout, /^a: internal error \(a bug in cairn, not in your input\): TypeError: Cannot read properties of undefined/m);
  assert.match(r.stdout, /^b: cannot read \/etc\/x: permission denied \(EACCES\)$/m, 'a resource failure keeps its own wording');
  assert.match(r.stderr, /^cairn: 1 result failed because of a bug in cairn \(internal error\); the stack is kept in run 1 /m);
  assertNoStack(r.stdout + r.stderr);
  const record = runRecord(stateDir);
  const a = record.results.find((x) => x.id === 'a');
  const b = record.results.find((x) => x.id === 'b');
  assert.match(a?.internal?.stack ?? '', /TypeError: Cannot read properties of undefined[\s\S]*\n\s+at /);
  assert.equal(b?.internal, undefined);
});

test('a throwing parser (any bug reaching the top) prints one line, no stack, and exit 1', () => {
  let stderr = '';
  const errWrite = process.stderr.write;
  process.stderr.write = ((s: string) => ((stderr += s), true)) as typeof process.stderr.write;
  try {
    const tooDeep = (): number => tooDeep() + 1;
    let thrown: unknown;
    try {
      tooDeep();
    } catch (e) {
      thrown = e;
    }
    assert.equal(reportError(thrown), 1);
  } finally {
    process.stderr.write = errWrite;
  }
  assert.match(stderr, /^cairn: internal error: Maximum call stack size exceeded\n\(this is a bug in cairn;/);
  assertNoStack(stderr);
});

test('a reader that goes away (cairn plan X | head -1) ends quietly, and the run is still recorded', () => {
  const dir = tempDir();
  const nodes = Array.from({ length: 3000 }, (_, i) => ({ id: `n${i}`, type: 'file', params: { path: join(dir, `f${i}`), content: 'x' } }));
  const graph = writeGraph(dir, nodes);
  const stateDir = join(dir, 'state');
  const r = spawnSync('bash', ['-c', `"${process.execPath}" "${CAIRN}" plan "${graph}" --state-dir "${stateDir}" | head -1; echo "rc=\${PIPESTATUS[0]}" >&2`], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  assert.equal(r.stdout.split('\n').filter(Boolean).length, 1);
  assert.match(r.stderr, /^rc=0$/m);
  assert.doesNotMatch(r.stderr, /EPIPE|internal error/);
  assertNoStack(r.stderr);
  const history = cairn(['history', '--state-dir', stateDir, '--out', 'json']);
  assert.equal(history.code, 0);
  assert.equal(JSON.parse(history.stdout).length, 1, 'the plan was recorded');
});

test('a checkout without dist/ says which command builds it', () => {
  const dir = tempDir();
  mkdirSync(join(dir, 'bin'));
  cpSync(join(ROOT, 'bin/cairn.js'), join(dir, 'bin/cairn.js'));
  cpSync(join(ROOT, 'bin/package.json'), join(dir, 'bin/package.json'));
  cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  assert.equal(existsSync(join(dir, 'dist')), false);
  const r = spawnSync(process.execPath, [join(dir, 'bin/cairn.js'), '--version'], { encoding: 'utf8' });
  assert.equal(r.status, 1);
  assert.equal(r.stderr, 'cairn: the program is not built yet (dist/cairn.cjs is missing); run `npm ci && npm run build` in the cairn folder first\n');
});
