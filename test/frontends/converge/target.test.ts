// Converge reads the machine it acts on: `platform` comes from the target host's facts, and a task's check
// script is syntax-checked by the target's shell, never the controller's.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DiagnosticError } from '../../../src/core/diag.js';
import { compileConverge } from '../../../src/frontends/converge/index.js';
import { FakeHost } from '../../../src/host/fake.js';
import { tempDir } from '../../cli/cli-helpers.js';

function hcl(text: string): string {
  const file = join(tempDir('cairn-cv-target-'), 'main.hcl');
  writeFileSync(file, text);
  return file;
}

const PLATFORM = 'file.content "p" {\n  destination = "/tmp/p"\n  content = "{{with platform}}{{.OS}}|{{.LinuxDistribution}}|{{.Version}}|{{.Name}}|{{.LinuxLSBLike}}{{end}}"\n}\n';

test('platform is the target host\'s, from its facts', async () => {
  const alpine = new FakeHost({ facts: { os: 'Linux', osRelease: { ID: 'alpine', VERSION_ID: '3.19.1', NAME: 'Alpine Linux', ID_LIKE: 'busybox musl' } } });
  const program = await compileConverge(hcl(PLATFORM), new Map(), 'plan', alpine);
  assert.equal(program.graph.nodes.find((n) => n.id === 'root/file.content.p')?.params.content, 'linux|alpine|3.19.1|Alpine Linux|[busybox musl]');
  assert.equal(alpine.calls.facts, 1);
  const bsd = new FakeHost({ facts: { os: 'FreeBSD', osRelease: { ID: 'freebsd', VERSION_ID: '14.0' } } });
  const other = await compileConverge(hcl(PLATFORM), new Map(), 'plan', bsd);
  // converge reads os-release only on Linux.
  assert.equal(other.graph.nodes.find((n) => n.id === 'root/file.content.p')?.params.content, 'freebsd||||[]');
});

test('env reads the environment of the target, not of the controller', async () => {
  const host = new FakeHost({ facts: { env: { ROLE: 'db' } } });
  process.env.ROLE = 'controller';
  try {
    const program = await compileConverge(hcl('file.content "e" {\n  destination = "/tmp/e"\n  content = "{{env `ROLE`}}|{{env `HOME`}}"\n}\n'), new Map(), 'plan', host);
    assert.equal(program.graph.nodes.find((n) => n.id === 'root/file.content.e')?.params.content, 'db|');
  } finally {
    delete process.env.ROLE;
  }
});

test('a switch on platform picks the case of the target', async () => {
  const text = 'switch "os" {\n  case "eq `{{with platform}}{{.LinuxDistribution}}{{end}}` `alpine`" "alpine" {\n    task "a" {\n      check = "true"\n      apply = "true"\n    }\n  }\n  default {\n    task "d" {\n      check = "true"\n      apply = "true"\n    }\n  }\n}\n';
  const ids = async (host: FakeHost) => (await compileConverge(hcl(text), new Map(), 'plan', host)).graph.nodes.filter((n) => n.meta?.skipped === undefined).map((n) => n.id).filter((id) => id.includes('/task.'));
  assert.deepEqual(await ids(new FakeHost({ facts: { osRelease: { ID: 'alpine' } } })), ['root/macro.switch.os/macro.case.alpine/task.a']);
  assert.deepEqual(await ids(new FakeHost()), ['root/macro.switch.os/macro.case.default/task.d']);
});

test('the check script is syntax-checked through the target host: sh -n with the script on stdin', async () => {
  const good = new FakeHost();
  await compileConverge(hcl('task "t" {\n  check = "test -f /etc/x"\n  apply = "touch /etc/x"\n}\n'), new Map(), 'plan', good);
  assert.deepEqual(good.execLog.map((c) => [c.command, c.options.stdin, c.options.readOnly]), [[['/bin/sh', '-n'], 'test -f /etc/x', true]]);
  const custom = new FakeHost();
  await compileConverge(hcl('task "t" {\n  interpreter = "/usr/bin/python3"\n  check_flags = ["-m", "py_compile"]\n  check = "x = 1"\n  apply = "pass"\n}\n'), new Map(), 'plan', custom);
  assert.deepEqual(custom.execLog.map((c) => c.command), [['/usr/bin/python3', '-m', 'py_compile']]);
  const bad = new FakeHost({ exec: () => ({ code: 2, stderr: 'sh: 1: Syntax error: "(" unexpected\n' }) });
  await assert.rejects(compileConverge(hcl('task "t" {\n  check = "echo a(b"\n  apply = "true"\n}\n'), new Map(), 'plan', bad), (e: unknown) => {
    assert.ok(DiagnosticError.is(e));
    assert.equal(e.diagnostics.length, 1);
    assert.equal(e.diagnostics[0]?.code, 'CV041');
    assert.equal(e.diagnostics[0]?.message, 'syntax error: Command Stderr:\nsh: 1: Syntax error: "(" unexpected\n: exit status 2');
    assert.equal(e.diagnostics[0]?.span?.line, 2);
    return true;
  });
});

test('the facts are read only when a template may call platform or env', async () => {
  const plain = new FakeHost({ facts: { env: { ROLE: 'db' } } });
  const program = await compileConverge(hcl('param "who" { default = "x" }\n\nfile.content "a" {\n  destination = "/tmp/a"\n  content = "{{param `who`}}"\n}\n'), new Map(), 'plan', plain);
  assert.equal(program.graph.nodes.find((n) => n.id === 'root/file.content.a')?.params.content, 'x');
  assert.equal(plain.calls.facts, 0);
  // env inside a module's param default, read by the module: the facts are read and the program compiled with them.
  const dir = tempDir('cairn-cv-target-mod-');
  writeFileSync(join(dir, 'm.hcl'), 'param "role" { default = "{{env `ROLE`}}" }\n\nfile.content "m" {\n  destination = "/tmp/m"\n  content = "{{param `role`}}"\n}\n');
  writeFileSync(join(dir, 'main.hcl'), 'module "m.hcl" "m" {}\n');
  const reading = new FakeHost({ facts: { env: { ROLE: 'db' } } });
  const withEnv = await compileConverge(join(dir, 'main.hcl'), new Map(), 'plan', reading);
  assert.equal(withEnv.graph.nodes.find((n) => n.id.endsWith('file.content.m'))?.params.content, 'db');
  assert.equal(reading.calls.facts, 1);
  // A switch predicate that calls env outside any {{ }} reads them too.
  const sw = 'switch "os" {\n  case "eq (env `ROLE`) `db`" "l" {\n    task "a" {\n      check = "true"\n      apply = "true"\n    }\n  }\n}\n';
  const linux = new FakeHost({ facts: { env: { ROLE: 'db' } } });
  const picked = (await compileConverge(hcl(sw), new Map(), 'plan', linux)).graph.nodes.filter((n) => n.meta?.skipped === undefined).map((n) => n.id);
  assert.ok(picked.includes('root/macro.switch.os/macro.case.l/task.a'), picked.join(', '));
  assert.equal(linux.calls.facts, 1);
});
