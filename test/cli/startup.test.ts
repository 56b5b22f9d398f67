// How the CLI starts: the bundle and its V8 code cache written by the build, a cache V8 refuses changing
// nothing but speed, only the named command declared, and the store's temporary names.
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import Module from 'node:module';
import { Script } from 'node:vm';
import { test } from 'node:test';
import { buildProgram } from '../../src/cli/main.js';
import {
  endJitForLargeRun,
  HUGE_INPUT,
  heapFlagsFor,
  jitFlagsForInput,
  jitFlagsForRun,
  LARGE_INPUT,
  LARGE_RUN_ITEMS,
  tuneHeapForInput,
  tuneJitForLargeInput,
} from '../../src/engine/heap.js';
import { uniquePart } from '../../src/store/temp-name.js';
import { cairnSpawned, ROOT, tempDir } from './cli-helpers.js';

test('the build writes the bundle, kept ASCII, and the code cache of its training run', () => {
  const bundle = readFileSync(join(ROOT, 'dist/cairn.cjs'));
  assert.ok(bundle.length > 100_000);
  assert.equal(bundle.findIndex((b) => b > 0x7f), -1, 'bin/cairn.js reads it as latin1: it must be ASCII');
  // V8 takes each cache for the bundle (it refuses one made under other V8 flags than a plain run's).
  const source = Module.wrap(bundle.toString('latin1'));
  for (const cache of ['cairn.cjs.cache', ...['salt', 'converge', 'otter', 'zapusk', 'inmanta'].map((fe) => `cairn.cjs.${fe}.cache`)]) {
    const cachedData = readFileSync(join(ROOT, 'dist', cache));
    assert.ok(cachedData.length > 10_000, `the training run wrote ${cache}`);
    assert.equal(new Script(source, { filename: join(ROOT, 'dist/cairn.cjs'), cachedData }).cachedDataRejected, false, `V8 refuses ${cache}`);
  }
});

/** A copy of bin/ and dist/ (packages linked), so the cache can be spoiled without touching the build. */
function copyOfCli(): string {
  const dir = tempDir();
  cpSync(join(ROOT, 'bin'), join(dir, 'bin'), { recursive: true });
  // The bundle, the version module and the cache; not the source map (most of dist/'s size).
  cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true, filter: (f) => !f.endsWith('.map') });
  cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

test('a code cache V8 refuses, or none, changes nothing but speed', () => {
  const work = tempDir();
  mkdirSync(join(work, 'files'));
  const graph = join(work, 'g.json');
  writeFileSync(graph, JSON.stringify({ version: 1, nodes: [{ id: 'f', type: 'file', params: { path: join(work, 'files/f'), content: 'x\n' } }] }));
  const run = (cli: string) => {
    const r = spawnSync(process.execPath, [join(cli, 'bin/cairn.js'), 'plan', graph, '--state-dir', join(work, 'state')], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    return { code: r.status, stdout: r.stdout.replace(/ in [\d.]+ s, run \d+/, ''), stderr: r.stderr };
  };
  const good = run(ROOT);
  assert.equal(good.code, 0, good.stderr);
  assert.match(good.stdout, /^would change file f /m);
  const spoiled = copyOfCli();
  writeFileSync(join(spoiled, 'dist/cairn.cjs.cache'), Buffer.alloc(4096, 7));
  assert.deepEqual(run(spoiled), good);
  const none = copyOfCli();
  rmSync(join(none, 'dist/cairn.cjs.cache'));
  assert.equal(existsSync(join(none, 'dist/cairn.cjs.cache')), false);
  assert.deepEqual(run(none), good);
});

test("a front end's command uses its own code cache, another command the general one, and a training run writes the one it uses", () => {
  const cli = copyOfCli();
  const work = tempDir();
  mkdirSync(join(work, 'files'));
  mkdirSync(join(work, 'salt'));
  const graph = join(work, 'g.json');
  writeFileSync(graph, JSON.stringify({ version: 1, nodes: [{ id: 'f', type: 'file', params: { path: join(work, 'files/f'), content: 'x\n' } }] }));
  writeFileSync(join(work, 'salt/top.sls'), "base:\n  '*':\n    - s\n");
  writeFileSync(join(work, 'salt/s.sls'), 'noted:\n  test.nop: []\n');
  const env = { ...process.env, NO_COLOR: '1', CAIRN_STATE_DIR: join(work, 'state') };
  const cairnIn = (args: string[], extra: Record<string, string> = {}) => spawnSync(process.execPath, [join(cli, 'bin/cairn.js'), ...args], { encoding: 'utf8', env: { ...env, ...extra } });
  const general = join(cli, 'dist/cairn.cjs.cache');
  const salt = join(cli, 'dist/cairn.cjs.salt.cache');
  // Without its own cache, a front end falls back to the general one, and works the same.
  rmSync(salt);
  const top = cairnIn(['salt', 'state.show_top', '--file-root', join(work, 'salt')]);
  assert.equal(top.status, 0, top.stderr);
  assert.match(top.stdout, /^ +- s$/m);
  // A training run of a Salt command writes Salt's cache and leaves the general one as it was.
  const before = readFileSync(general);
  assert.equal(cairnIn(['salt', 'state.show_top', '--file-root', join(work, 'salt')], { CAIRN_CODE_CACHE_WRITE: '1' }).status, 0);
  assert.ok(statSync(salt).size > 10_000, "the training run wrote Salt's code cache");
  assert.deepEqual(readFileSync(general), before);
  // A spoiled front-end cache changes nothing but speed; the graph commands never read it.
  writeFileSync(salt, Buffer.alloc(4096, 7));
  assert.deepEqual(cairnIn(['salt', 'state.show_top', '--file-root', join(work, 'salt')]).stdout, top.stdout);
  rmSync(general);
  const plan = cairnIn(['plan', graph], { CAIRN_CODE_CACHE_WRITE: '1' });
  assert.equal(plan.status, 0, plan.stderr);
  assert.ok(statSync(general).size > 10_000, 'a graph command writes the general cache');
  assert.deepEqual(readFileSync(salt), Buffer.alloc(4096, 7));
});

test('only the command named on the line is declared; help and unknown names get them all', () => {
  const names = (args: string[]) => buildProgram({ exitOverride: true, args: ['node', 'cairn', ...args] }).commands.map((c) => c.name());
  const all = names([]);
  assert.ok(all.length >= 15, all.join(' '));
  assert.deepEqual(all.slice(0, 3), ['plan', 'apply', 'collect']);
  for (const fe of ['salt', 'converge', 'zapusk', 'otter', 'inmanta', 'history', 'explain']) assert.ok(all.includes(fe), fe);
  assert.deepEqual(names(['plan', 'g.json']), ['plan']);
  assert.deepEqual(names(['salt', 'state.apply']), ['salt']);
  assert.deepEqual(names(['ping', 'web*']), ['hosts', 'ping']);
  assert.deepEqual(names(['--help']), all);
  assert.deepEqual(names(['help', 'plan']), all);
  assert.deepEqual(names(['plann']), all);
  // What a user sees is the same: a typo still gets the suggestion from all the commands.
  const typo = cairnSpawned(['plann', 'x']);
  assert.equal(typo.code, 1);
  assert.match(typo.stderr, /unknown command 'plann'[\s\S]*Did you mean plan\?/);
});

test('the heap is tuned for a large input, and never in a process that hosts many runs', () => {
  assert.equal(heapFlagsFor(LARGE_INPUT - 1), undefined);
  assert.match(heapFlagsFor(LARGE_INPUT) ?? '', /--semi-space-growth-factor=1/);
  assert.match(heapFlagsFor(HUGE_INPUT - 1) ?? '', /--heap-growing-percent=50/);
  // A huge input keeps V8's defaults: its young generation may grow.
  assert.equal(heapFlagsFor(HUGE_INPUT), undefined);
  // This test process never called allowHeapTuning (only the CLI's main does): its V8 keeps its defaults.
  assert.equal(tuneHeapForInput(LARGE_INPUT * 10), false);
});

test("a large run after a one-run compile takes V8's default interrupt budget back, and only there", () => {
  assert.equal(jitFlagsForRun(LARGE_RUN_ITEMS - 1), undefined);
  assert.equal(jitFlagsForRun(LARGE_RUN_ITEMS), '--interrupt-budget=67584');
  // The one-run budget was never set in this process (no allowHeapTuning): nothing to take back.
  assert.equal(endJitForLargeRun(LARGE_RUN_ITEMS * 10), false);
});

test("a large source (a Salt render of large SLS files) takes V8's default interrupt budget back, and only there", () => {
  assert.equal(jitFlagsForInput(LARGE_INPUT - 1), undefined);
  assert.equal(jitFlagsForInput(LARGE_INPUT), '--interrupt-budget=67584');
  // The one-run budget was never set in this process: nothing to take back, no inlining halved.
  assert.equal(tuneJitForLargeInput(LARGE_INPUT * 10), false);
});

test("the store's temporary names differ on every call and are plain file-name characters", () => {
  const seen = new Set(Array.from({ length: 10_000 }, () => uniquePart()));
  assert.equal(seen.size, 10_000);
  for (const s of [...seen].slice(0, 100)) assert.match(s, /^[0-9a-z]+$/);
});
