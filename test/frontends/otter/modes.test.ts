import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeHost } from '../../../src/host/fake.js';
import { info, run } from './helpers.js';

const PLAN = `
# Web config
{
  Ensure-Directory logs;
  Ensure-File app.conf (Text: port=80);
  Exec "systemctl reload app";
}
# Unrelated
{
  Ensure-File other.conf (Text: same);
  Exec "echo other";
}
with executionPolicy = always { Exec "echo always"; }
`;

function ran(host: FakeHost): string[] {
  return host.execLog.map((c) => String(c.command)).filter((c) => !c.startsWith('dpkg'));
}

test('drift: collect finds it and changes nothing, collect-execute fixes exactly it, a second collect finds none', async () => {
  const host = new FakeHost({ files: { '/w/app.conf': 'port=8080', '/w/other.conf': 'same' } });
  const collect = await run(PLAN, { mode: 'collect', host });
  assert.deepEqual(collect.result.drift, [
    { operation: 'Ensure-Directory', key: 'logs', properties: ['Exists'], details: [{ property: 'Exists', expected: 'true', actual: 'false' }] },
    {
      operation: 'Ensure-File',
      key: 'app.conf',
      properties: ['Text'],
      details: [{ property: 'Text', diff: '--- app.conf (found)\n+++ app.conf (wanted)\n@@ -1 +1 @@\n-port=8080\n\\ No newline at end of file\n+port=80\n\\ No newline at end of file\n' }],
    },
  ]);
  assert.equal((await host.readFile('/w/app.conf')).toString(), 'port=8080');
  assert.equal(await host.stat('/w/logs'), null);
  assert.deepEqual(ran(host), []);
  assert.equal(collect.result.changed, false);

  const fix = await run(PLAN, { mode: 'collect-execute', host });
  assert.equal((await host.readFile('/w/app.conf')).toString(), 'port=80');
  assert.equal((await host.stat('/w/logs'))?.type, 'directory');
  // The reload runs (same block as the drift); "echo other" does not; the always block does.
  assert.deepEqual(ran(host), ['systemctl reload app', 'echo always']);
  assert.deepEqual(info(fix.log), [
    'INFO: Directory logs configured.',
    'INFO: File app.conf configured.',
    'INFO: Executing systemctl...',
    'INFO: Process exited with code: 0 (success)',
    'INFO: Executing echo...',
    'INFO: Process exited with code: 0 (success)',
  ]);

  const again = await run(PLAN, { mode: 'collect', host });
  assert.deepEqual(again.result.drift, []);
  const quiet = await run(PLAN, { mode: 'collect-execute', host });
  assert.deepEqual(info(quiet.log), []);
  assert.equal(quiet.result.changed, false);
});

test('Ensure-File drift: a missing file drifts on Exists only; Exists: false on a present file', async () => {
  const host = new FakeHost({ files: { '/w/gone.txt': 'x' } });
  const r = await run('Ensure-File new.txt (Text: a, ReadOnly: true);\nEnsure-File gone.txt (Exists: false);', { mode: 'collect', host });
  assert.deepEqual(r.result.drift.map((d) => [d.key, d.properties]), [['new.txt', ['Exists']], ['gone.txt', ['Exists']]]);
});

test('execute mode: everything runs; a second execute configures again (as Inedo logs it) and changes nothing', async () => {
  const host = new FakeHost({ files: { '/w/.keep': '' } });
  const first = await run('Ensure-File a/b.txt (Text: hi);\nEnsure-Directory d;\nCreate-File c.txt (Text: c);', { host });
  assert.equal(first.result.changed, true);
  assert.equal((await host.readFile('/w/a/b.txt')).toString(), 'hi');
  const second = await run('Ensure-File a/b.txt (Text: hi);\nEnsure-Directory d;', { host });
  assert.equal(second.result.changed, false);
  assert.deepEqual(info(second.log), ['INFO: File a/b.txt configured.', 'INFO: Directory d configured.']);
  assert.deepEqual(second.result.results.map((x) => x.status), ['ok', 'ok']);
});

test('collect mode skips executing operations and still runs control flow and logs', async () => {
  const host = new FakeHost({ files: { '/w/.keep': '' } });
  const r = await run('Create-File x.txt;\nExec "rm -rf /";\nLog-Information still logs;', { mode: 'collect', host });
  assert.deepEqual(info(r.log), ['INFO: still logs']);
  assert.equal(await host.stat('/w/x.txt'), null);
  assert.deepEqual(ran(host), []);
});

test('file operations: Delete-Files, Copy-Files, Rename-File, Replace-Text, Apply-Template', async () => {
  const host = new FakeHost({
    files: { '/w/src/a.txt': 'hello NAME', '/w/src/sub/b.log': 'b', '/w/tmp/x.tmp': '', '/w/tmp/keep.txt': '', '/w/raft/greeting.tpl': 'Hi $who from $tier' },
  });
  const r = await run(
    `
    set $tier = prod;
    Delete-Files @(*.tmp) (Directory: tmp);
    Copy-Files (From: src, To: dst, Include: @(**));
    Rename-File (From: dst/a.txt, To: dst/renamed.txt);
    Replace-Text (SearchText: NAME, ReplaceWith: world, Directory: dst, Include: @(*.txt));
    Apply-Template greeting (OutputFile: out.txt, AdditionalVariables: %(who: me), OutputVariable => $text);
    Log-Information $text;
  `,
    { host },
  );
  assert.equal(r.result.status, 'normal', r.log.join('\n'));
  assert.equal(await host.stat('/w/tmp/x.tmp'), null);
  assert.ok(await host.stat('/w/tmp/keep.txt'));
  assert.equal((await host.readFile('/w/dst/renamed.txt')).toString(), 'hello world');
  assert.equal(await host.stat('/w/dst/a.txt'), null);
  assert.equal((await host.readFile('/w/dst/sub/b.log')).toString(), 'b');
  assert.equal((await host.readFile('/w/out.txt')).toString(), 'Hi me from prod');
  assert.equal(info(r.log).at(-1), 'INFO: Hi me from prod');
});

test('Exec: output is logged, a failing exit code is an error, SuccessExitCode and outputs', async () => {
  const host = new FakeHost({
    exec: (cmd) => (String(cmd).includes('fail') ? { code: 3, stderr: 'bad thing\n' } : { code: 0, stdout: 'line one\nline two\n' }),
  });
  const ok = await run('Exec "show" (ExitCode => $c, Output => $o);\nLog-Information code=$c;', { host });
  assert.deepEqual(info(ok.log), ['INFO: Executing show...', 'INFO: line one', 'INFO: line two', 'INFO: Process exited with code: 0 (success)', 'INFO: code=0']);
  const tolerated = await run('Exec "fail" (SuccessExitCode: 3, ErrorOutputLogLevel: Warning);', { host });
  assert.equal(tolerated.result.status, 'warning');
  const failed = await run('Exec "fail";\nLog-Information never;', { host });
  assert.equal(failed.result.status, 'error');
  assert.deepEqual(info(failed.log), ['INFO: Executing fail...', 'ERROR: bad thing', 'ERROR: Process exited with code: 3 (failure)']);
});
