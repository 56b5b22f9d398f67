// The CLI's standard output and error (src/engine/stdio.ts): written straight to the descriptor while
// Node's streams are not made, the same text and the same stored copy when a stream is made on the way.
import assert from 'node:assert/strict';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { CAIRN, cairn, tempDir, writeGraph } from './cli-helpers.js';

/** Preloaded into the CLI process: says on stderr (by descriptor) when Node's stdout or stderr stream is made. */
const TRAP = `
const { writeSync } = require('node:fs');
for (const name of ['stdout', 'stderr']) {
  const d = Object.getOwnPropertyDescriptor(process, name);
  let told = false;
  Object.defineProperty(process, name, { configurable: true, enumerable: true, get() {
    if (!told) writeSync(2, 'made process.' + name + '\\n');
    told = true;
    return d.get.call(process);
  } });
}
`;

/** `node -r trap bin/cairn.js ARGS` with stdout to a file (or /dev/null): its exit code, stdout text and stderr. */
function run(dir: string, args: readonly string[], env: Record<string, string>, stdoutPath = join(dir, 'out.txt')): { code: number | null; stdout: string; stderr: string } {
  const trap = join(dir, 'trap.cjs');
  writeFileSync(trap, TRAP);
  const fd = openSync(stdoutPath, 'w');
  try {
    const r = spawnSync(process.execPath, ['-r', trap, CAIRN, ...args], { stdio: ['ignore', fd, 'pipe'], encoding: 'utf8', env: { ...process.env, NO_COLOR: '', FORCE_COLOR: '', ...env } });
    return { code: r.status, stdout: stdoutPath === '/dev/null' ? '' : readFileSync(stdoutPath, 'utf8'), stderr: r.stderr };
  } finally {
    closeSync(fd);
  }
}

function storedOutput(stateDir: string): string {
  const r = cairn(['history', 'last', '--state-dir', stateDir, '--out', 'json']);
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { output: string }).output;
}

function smallGraph(dir: string): string {
  return writeGraph(dir, [
    { id: 'd', type: 'directory', params: { path: join(dir, 'files') } },
    { id: 'f', type: 'file', params: { path: join(dir, 'files/f'), content: 'x\n' }, require: ['d'] },
  ]);
}

test('a plan to a file or /dev/null never makes Node\'s stdout or stderr stream, and its output is whole and stored', () => {
  const dir = tempDir();
  const graph = smallGraph(dir);
  const state = join(dir, 'state');
  const r = run(dir, ['plan', graph, '--state-dir', state], {});
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '', 'no stream was made, nothing went to stderr');
  assert.match(r.stdout, /^would change directory d {2}.*\n[\s\S]*\nwould change file f {2}.*\n[\s\S]*\nPlan: 2 to change, 0 ok, 0 failed, 0 skipped \(2 nodes in [0-9.]+ s, run 1\)\n$/);
  assert.equal(storedOutput(state), r.stdout);
  // /dev/null is a character device, but not a terminal: still no stream.
  const quiet = run(dir, ['plan', graph, '--state-dir', state], {}, '/dev/null');
  assert.equal(quiet.code, 0);
  assert.equal(quiet.stderr, '');
  // An error goes to stderr the same way.
  const bad = run(dir, ['plan', join(dir, 'missing.json'), '--state-dir', state], {});
  assert.equal(bad.code, 1);
  assert.equal(bad.stderr, `cairn: cannot read graph file ${join(dir, 'missing.json')}: no such file\n`);
});

test('coloured output is written the same way; the stored copy is plain', () => {
  const dir = tempDir();
  const graph = smallGraph(dir);
  const state = join(dir, 'state');
  const r = run(dir, ['plan', graph, '--state-dir', state], { FORCE_COLOR: '1' });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  const plain = r.stdout.replace(/\x1b\[[0-9;]*m/g, '');
  assert.notEqual(plain, r.stdout, 'the output is coloured');
  assert.match(plain, /^would change directory d {2}.*\n[\s\S]*\nwould change file f {2}[\s\S]*\nPlan: 2 to change/);
  assert.equal(storedOutput(state), plain);
});

test('a front end\'s output goes the same way, and is stored', () => {
  const dir = tempDir();
  const roots = join(dir, 'salt');
  const state = join(dir, 'state');
  const tree = join(dir, 'tree');
  // A Salt state tree of one file.managed.
  mkdirSync(roots);
  mkdirSync(tree);
  writeFileSync(join(roots, 'top.sls'), "base:\n  '*':\n    - one\n");
  writeFileSync(join(roots, 'one.sls'), `one:\n  file.managed:\n    - name: ${join(tree, 'one')}\n    - contents: "x"\n`);
  const r = run(dir, ['salt', 'state.apply', '--file-root', roots, '--state-dir', state], {});
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  assert.match(r.stdout, /Succeeded: 1 \(changed=1\)/);
  assert.equal(storedOutput(state), r.stdout);
  assert.equal(readFileSync(join(tree, 'one'), 'utf8'), 'x\n');
});

test('on a terminal the stream is made during the print (for its colours), and the stored copy is still whole and plain', (t) => {
  if (spawnSync('script', ['--version']).status !== 0) {
    t.skip('SKIPPED: `script` (util-linux) is not installed, so no terminal can be given to the CLI');
    return;
  }
  const dir = tempDir();
  const graph = smallGraph(dir);
  const state = join(dir, 'state');
  const trap = join(dir, 'trap.cjs');
  writeFileSync(trap, TRAP);
  const line = [process.execPath, '-r', trap, CAIRN, 'plan', graph, '--state-dir', state].map((a) => `'${a}'`).join(' ');
  const r = spawnSync('script', ['-qec', line, '/dev/null'], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '', FORCE_COLOR: '', CI: '' } });
  assert.equal(r.status, 0, r.stderr);
  // The terminal shows stderr and stdout together, with CR LF line ends. On a terminal both streams are
  // made: stdout to ask whether it is one (and for the colour library), stderr for the progress display.
  const shown = r.stdout.replace(/\r\n/g, '\n');
  const made = shown.match(/^made process\.\w+\n/gm) ?? [];
  assert.deepEqual([...made].sort(), ['made process.stderr\n', 'made process.stdout\n']);
  const printed = shown.replace(/^made process\.\w+\n/gm, '');
  assert.notEqual(printed, printed.replace(/\x1b\[[0-9;]*m/g, ''), 'a terminal gets colours');
  assert.equal(storedOutput(state), printed.replace(/\x1b\[[0-9;]*m/g, ''));
});
