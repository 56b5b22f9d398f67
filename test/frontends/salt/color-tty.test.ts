// The highstate outputter colours its text when standard output is a terminal, as salt-call does, and
// not when it is piped or --no-color is given. A terminal is made with script(1); the test is skipped
// (with one line saying so) where script is not installed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CAIRN, tempDir } from '../../cli/cli-helpers.js';

const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
if (!hasScript) process.stderr.write('salt color-tty: script(1) is not installed; the terminal colour test is skipped\n');

function runOnTerminal(args: string[]): string {
  const line = [process.execPath, CAIRN, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  const env = { ...process.env };
  delete env.NO_COLOR;
  delete env.FORCE_COLOR;
  const r = spawnSync('script', ['-qec', line, '/dev/null'], { encoding: 'utf8', env });
  return r.stdout;
}

test('salt highstate output: colours on a terminal, none with --no-color or in a pipe', { skip: !hasScript }, () => {
  const dir = tempDir('cairn-salt-tty-');
  const roots = join(dir, 'srv');
  mkdirSync(roots);
  writeFileSync(join(roots, 'main.sls'), 'ok:\n  test.succeed_without_changes\nbad:\n  test.fail_without_changes\n');
  const args = ['salt', 'state.sls', 'main', '--file-root', roots, '--state-dir', join(dir, 'state'), '--id', 'cairn-test'];
  const tty = runOnTerminal(args);
  assert.match(tty, /\x1b\[0;31mlocal:\x1b\[0;0m/, 'the host line is red after a failure');
  assert.match(tty, /\x1b\[0;32m {6}ID: ok\x1b\[0;0m/, 'a success is green');
  assert.match(tty, /\x1b\[0;31mFailed: {4}1\x1b\[0;0m/);
  const plain = runOnTerminal([...args, '--no-color']);
  assert.doesNotMatch(plain, /\x1b\[/, '--no-color on a terminal');
  assert.match(plain, / {10}ID: ok/);
  const piped = spawnSync(process.execPath, [CAIRN, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '' } });
  assert.doesNotMatch(piped.stdout, /\x1b\[/, 'a pipe gets plain text');
});
