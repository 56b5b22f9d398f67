// The text output (log level, scopes, summary, drift with a diff), warnings before a collect run,
// secrets never shown or stored, `!token` lock files and credentials from the environment.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { assertNoStack, cairn, tempDir } from '../../cli/cli-helpers.js';

function script(text: string): { root: string; file: string; state: string } {
  const root = tempDir('cairn-otter-');
  const file = join(root, 'plan.otter');
  writeFileSync(file, text);
  return { root, file, state: tempDir('cairn-otter-state-') };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

test('text: an operation with a description opens a scope; --log-level shows DEBUG only when asked; drift shows a diff', () => {
  const { root, file, state } = script('# Write the configuration\nEnsure-File app.conf (Text: port=80);\nLog-Warning careful;\n');
  writeFileSync(join(root, 'app.conf'), 'port=8080');
  const base = ['otter', 'run', file, '--root', root, '--state-dir', state, '--mode', 'collect'];
  const plain = cairn(base);
  assert.equal(plain.code, 0);
  assert.equal(
    plain.stdout,
    [
      // The scope holds only debug lines: at the default level it is not shown.
      'WARN: careful',
      '',
      'Status: Warning (run 1)',
      'Summary: 1 operation run: 0 changed, 0 unchanged, 1 drifted, 0 failed; 1 warning, 0 errors',
      '',
      'Drift (nothing changed):',
      '  Ensure-File app.conf: Text',
      '      --- app.conf (found)',
      '      +++ app.conf (wanted)',
      '      @@ -1 +1 @@',
      '      -port=8080',
      '      \\ No newline at end of file',
      '      +port=80',
      '      \\ No newline at end of file',
      '',
    ].join('\n'),
  );
  const debug = cairn([...base, '--log-level', 'debug']);
  assert.match(debug.stdout, /^Write the configuration\n {2}DEBUG: Looking for app\.conf\.\.\.\n {2}DEBUG: File exists, loading from disk\.\.\.\n {2}DEBUG: File configuration loaded\.\nWARN: careful\n/);
  const quiet = cairn([...base, '--log-level', 'error', '--out', 'json']);
  assert.deepEqual(JSON.parse(quiet.stdout).log, []);
  // A warning not shown still counts in the status and the summary.
  assert.equal(JSON.parse(quiet.stdout).status, 'Warning');
  assert.equal(JSON.parse(quiet.stdout).summary.warnings, 1);
});

test('collect: what the run raises only when reached is warned about on stderr before anything runs', () => {
  const { root, file, state } = script('Ensure-Directory logs;\ncall Missing(A: 1);\nFrobnicate-Widget now;\n');
  const r = cairn(['otter', 'run', file, '--root', root, '--state-dir', state, '--mode', 'collect']);
  assert.equal(r.code, 1);
  assert.equal(
    r.stderr,
    `${file}:2:1: OTTER005 warning: module Missing was not found (declare it, or put Missing.otter in the raft)\n 2 | call Missing(A: 1);\n   | ^\n` +
      `${file}:3:1: OTTER002 warning: unknown operation Frobnicate-Widget\n 3 | Frobnicate-Widget now;\n   | ^\n`,
  );
  assert.match(r.stdout, new RegExp(`ERROR: ${file}:2:1: module Missing was not found\\n`));
  // In execute mode nothing is printed before the run; the run raises the first one it reaches.
  const exec = cairn(['otter', 'run', file, '--root', root, '--state-dir', state]);
  assert.equal(exec.code, 1);
  assert.equal(exec.stderr, '');
  assert.equal(existsSync(join(root, 'logs')), true, 'the statement before the error ran');
});

test('secrets: a --secret-var value and a credential password never reach the output or the state directory', () => {
  const { root, file, state } = script(
    'Ensure-File db.conf (Text: password=$Db);\nExec "echo $Db";\nwith credentials = Deploy {\n    Log-Information pass=Pa55-word-9;\n}\n',
  );
  writeFileSync(join(root, 'db.conf'), 'password=old-Secret-1');
  for (const mode of ['collect', 'execute']) {
    for (const out of ['text', 'json']) {
      const r = cairn(['otter', 'run', file, '--root', root, '--state-dir', state, '--mode', mode, '--out', out, '--secret-var', 'Db=hunter2-xyz', '--log-level', 'debug'], {
        env: { CAIRN_OTTER_CREDENTIAL_DEPLOY: 'deployer:Pa55-word-9' },
      });
      assert.equal(r.code, 0, r.stderr);
      assertNoStack(r.stderr);
      for (const secret of ['hunter2-xyz', 'Pa55-word-9', 'old-Secret-1']) {
        assert.equal(r.stdout.includes(secret), false, `${mode}/${out} shows ${secret}`);
        for (const f of filesUnder(state)) assert.equal(readFileSync(f, 'utf8').includes(secret), false, `${f} holds ${secret}`);
      }
      assert.match(r.stdout, /\*\*\*\*\*\*\*\*/);
    }
  }
  assert.equal(readFileSync(join(root, 'db.conf'), 'utf8'), 'password=hunter2-xyz');
});

test('!token locks hold across processes through lock files in the state directory; a stale one is taken over', () => {
  const { root, file, state } = script('with timeout = 1, lock = !deploy {\n    Create-File done.txt (Text: x);\n}\n');
  const locks = join(state, 'otter-locks');
  mkdirSync(locks, { recursive: true });
  // Held by a live process (this test's own): the block waits, and its timeout ends the wait.
  writeFileSync(join(locks, 'deploy.lock'), JSON.stringify({ pid: process.pid, token: 'deploy' }));
  const held = cairn(['otter', 'run', file, '--root', root, '--state-dir', state, '--out', 'json']);
  assert.equal(held.code, 1);
  assert.deepEqual(JSON.parse(held.stdout).log, [`ERROR: ${file}:1:1: the block did not finish within its timeout of 1 seconds`]);
  assert.equal(existsSync(join(root, 'done.txt')), false);
  // Left by a process that is gone: taken over, and removed when the block ends.
  writeFileSync(join(locks, 'deploy.lock'), JSON.stringify({ pid: 2 ** 22 + 12345, token: 'deploy' }));
  const stale = cairn(['otter', 'run', file, '--root', root, '--state-dir', state]);
  assert.equal(stale.code, 0, stale.stdout);
  assert.equal(readFileSync(join(root, 'done.txt'), 'utf8'), 'x');
  assert.deepEqual(readdirSync(locks), []);
});

test('credentials: a bad credentials file is a clear error before anything runs', () => {
  const { root, file, state } = script('with credentials = X { Create-File a.txt (Text: a); }\n');
  const creds = join(root, 'creds.json');
  writeFileSync(creds, '{"X": {"UserName": "u"}}');
  const r = cairn(['otter', 'run', file, '--root', root, '--state-dir', state, '--credentials', creds]);
  assert.equal(r.code, 1);
  assert.equal(r.stderr, `cairn: credentials ${creds}: X needs "UserName" and "Password" strings\n`);
  assert.equal(existsSync(join(root, 'a.txt')), false);
});

test('text: a scope whose lines are all below --log-level is not shown', () => {
  const { root, file, state } = script('# Scope A\n{\n    Log-Debug hidden;\n}\n# Scope B\n{\n    # inner\n    {\n        Log-Warning shown;\n    }\n}\n');
  const r = cairn(['otter', 'run', file, '--root', root, '--state-dir', state]);
  assert.equal(r.stdout, 'Scope B\n  inner\n    WARN: shown\n\nStatus: Warning (run 1)\nSummary: 0 operation runs: 0 changed, 0 unchanged, 0 drifted, 0 failed; 1 warning, 0 errors\n');
  const all = cairn(['otter', 'run', file, '--root', root, '--state-dir', state, '--log-level', 'debug']);
  assert.match(all.stdout, /^Scope A\n {2}DEBUG: hidden\nScope B\n/);
});

test('many lock and timeout blocks in a loop leave no listeners behind (nothing on stderr)', () => {
  const { root, file, state } = script('foreach $i in @Range(0, 30) {\n    with timeout = 5, lock = L {\n        Sleep 0;\n    }\n}\n');
  const r = cairn(['otter', 'run', file, '--root', root, '--state-dir', state]);
  assert.equal(r.code, 0);
  assert.equal(r.stderr, '');
});
