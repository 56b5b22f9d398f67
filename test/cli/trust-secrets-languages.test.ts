// Secret marking per language: a planted secret never reaches any stdout, stderr or file under the state
// dir of a run (plan, apply, re-plan, history, graph views), while the managed files still get the real
// value. The graph file's `$secret` and OtterScript's are tested in trust-secrets.test.ts and otter's own.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cairn, type CliResult, tempDir } from './cli-helpers.js';

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

/** Runs each command and fails on any output or state file that holds one of the secrets. */
function assertNeverShown(secrets: readonly string[], state: string, runs: ReadonlyArray<{ args: string[]; cwd?: string; code?: number }>): CliResult[] {
  const results: CliResult[] = [];
  for (const { args, cwd, code } of runs) {
    const r = cairn(args, cwd ? { cwd } : {});
    assert.equal(r.code, code ?? 0, `${args.join(' ')}: ${r.stderr}`);
    for (const s of secrets) {
      assert.ok(!r.stdout.includes(s), `${args.join(' ')} stdout shows ${s}:\n${r.stdout}`);
      assert.ok(!r.stderr.includes(s), `${args.join(' ')} stderr shows ${s}:\n${r.stderr}`);
    }
    results.push(r);
  }
  for (const f of filesUnder(state)) {
    const text = readFileSync(f, 'utf8');
    for (const s of secrets) assert.ok(!text.includes(s), `${f} holds ${s}`);
  }
  return results;
}

test('Converge: a sensitive param, its module copy and a node looking it up are never shown or stored', () => {
  const dir = tempDir();
  const secrets = ['PLANTED-default-4d1e', 'PLANTED-cli-77aa'];
  mkdirSync(join(dir, 'mod'));
  writeFileSync(
    join(dir, 'main.hcl'),
    [
      'param "pw" {\n  default   = "PLANTED-default-4d1e"\n  sensitive = true\n}',
      'param "token" {\n  default   = "none"\n  sensitive = true\n}',
      'param "dir" {}',
      'file.content "conf" {\n  destination = "{{param `dir`}}/conf"\n  content     = "password={{param `pw`}}\\n"\n}',
      'task.query "read" {\n  query = "cat {{param `dir`}}/conf"\n  depends = ["file.content.conf"]\n}',
      'file.content "copy" {\n  destination = "{{param `dir`}}/copy"\n  content     = "{{lookup `task.query.read.status.stdout`}}"\n}',
      'module "mod/inner.hcl" "inner" {\n  params = {\n    dir = "{{param `dir`}}"\n    key = "{{param `token`}}"\n  }\n}',
      '',
    ].join('\n\n'),
  );
  writeFileSync(join(dir, 'mod/inner.hcl'), 'param "dir" {}\nparam "key" {}\n\nfile.content "key" {\n  destination = "{{param `dir`}}/key"\n  content     = "{{param `key`}}"\n}\n');
  const state = join(dir, 'state');
  const p = ['-p', `dir=${dir}`, '-p', `token=${secrets[1]}`, '--state-dir', state];
  const [plan, apply] = assertNeverShown(secrets, state, [
    { args: ['converge', 'plan', 'main.hcl', ...p], cwd: dir },
    { args: ['converge', 'apply', 'main.hcl', ...p], cwd: dir },
    { args: ['converge', 'plan', 'main.hcl', ...p], cwd: dir },
    { args: ['converge', 'plan', 'main.hcl', ...p, '--out', 'json'], cwd: dir },
    { args: ['converge', 'graph', '--show-params', 'main.hcl', '-p', `dir=${dir}`, '-p', `token=${secrets[1]}`], cwd: dir },
    { args: ['converge', 'graph', '--show-params', '--out', 'json', 'main.hcl', '-p', `dir=${dir}`, '-p', `token=${secrets[1]}`], cwd: dir },
    { args: ['history', '--state-dir', state] },
    { args: ['history', '2', '--state-dir', state] },
    { args: ['history', '2', '--state-dir', state, '--out', 'json'] },
  ]);
  // The files hold the real values; the output says only that the content changed, by its hash.
  assert.equal(readFileSync(join(dir, 'conf'), 'utf8'), `password=${secrets[0]}\n`);
  assert.equal(readFileSync(join(dir, 'copy'), 'utf8'), `password=${secrets[0]}\n`);
  assert.equal(readFileSync(join(dir, 'key'), 'utf8'), secrets[1]);
  assert.match(plan?.stdout ?? '', /conf: "<file-missing>" => "sha256 [0-9a-f]{12}…"/);
  assert.match(apply?.stdout ?? '', /Summary: 0 errors, \d+ changes/);
});

test('Converge: sensitive must be true or false', () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'main.hcl'), 'param "pw" {\n  default   = "x"\n  sensitive = "yes"\n}\n');
  const r = cairn(['converge', 'plan', 'main.hcl', '--state-dir', join(dir, 'state')], { cwd: dir });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^main\.hcl:3:15: CV017 param sensitive must be true or false/m);
});

test('Inmanta: a std::password value is never printed, exported, shown or stored', () => {
  const dir = tempDir();
  const secret = 'PLANTED-inmanta-3c3c';
  const out = join(dir, 'out');
  mkdirSync(out);
  writeFileSync(join(dir, 'passwordfile'), `# id = value\ndb = ${secret}\n`);
  writeFileSync(
    join(dir, 'main.cf'),
    [
      'import fs',
      'import exec',
      'pw = std::password("db")',
      'std::print("the password is {{pw}}")',
      'h = std::Host(name="node1", os=std::linux)',
      `conf = fs::File(host=h, path="${out}/conf", content="password={{pw}}\\n", mode=600)`,
      `exec::Run(host=h, command="cat ${out}/conf > ${out}/copy", creates="${out}/copy", requires=conf)`,
      `fs::File(host=h, path="${out}/plain", content="nothing secret\\n", mode=644)`,
      '',
    ].join('\n'),
  );
  const state = join(dir, 'state');
  const [compile, exported, json] = assertNeverShown([secret], state, [
    { args: ['inmanta', 'compile', dir] },
    { args: ['inmanta', 'export', dir] },
    { args: ['inmanta', 'export', dir, '--out', 'json'] },
    { args: ['inmanta', 'compile', dir, '--out', 'json'] },
    { args: ['inmanta', 'deploy', dir, '--state-dir', state, '--dry-run'] },
    { args: ['inmanta', 'deploy', dir, '--state-dir', state] },
    { args: ['inmanta', 'deploy', dir, '--state-dir', state, '--out', 'json'] },
    { args: ['history', '--state-dir', state] },
    { args: ['history', '2', '--state-dir', state, '--out', 'json'] },
  ]);
  assert.equal(compile?.stdout, 'the password is ********\n');
  assert.match(exported?.stdout ?? '', /content: "password=\*{8}\\n"/);
  assert.match(exported?.stdout ?? '', /content: "nothing secret\\n"/, 'a resource without the secret is shown whole');
  assert.match(json?.stdout ?? '', /"content": "password=\*{8}\\n"/);
  assert.equal(readFileSync(join(out, 'conf'), 'utf8'), `password=${secret}\n`);
  assert.equal(readFileSync(join(out, 'copy'), 'utf8'), `password=${secret}\n`);
});

test('Inmanta: std::password of an unknown id, or without a password file, is a positioned plugin error', () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'main.cf'), 'x = std::password("nope")\n');
  const none = cairn(['inmanta', 'compile', dir]);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /main\.cf:1:5: ExternalException Exception in plugin std::password\ncaused by: .*passwordfile does not exist/);
  writeFileSync(join(dir, 'passwordfile'), 'other = x\n');
  const unknown = cairn(['inmanta', 'compile', dir]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /main\.cf:1:5: ExternalException Exception in plugin std::password\ncaused by: Password nope does not exist in file .*passwordfile/);
});

test('Salt: pillar values never reach the run store, while the output stays what salt-call prints', () => {
  const dir = tempDir();
  const secret = 'PLANTED-pillar-9c3f';
  mkdirSync(join(dir, 'salt'));
  mkdirSync(join(dir, 'pillar'));
  writeFileSync(join(dir, 'pillar/top.sls'), "base:\n  '*':\n    - db\n");
  writeFileSync(join(dir, 'pillar/db.sls'), `db:\n  password: ${secret}\n`);
  writeFileSync(join(dir, 'salt/top.sls'), "base:\n  '*':\n    - app\n");
  writeFileSync(
    join(dir, 'salt/app.sls'),
    `conf:\n  file.managed:\n    - name: ${join(dir, 'app.conf')}\n    - contents: "password={{ pillar['db']['password'] }}"\n` +
      `show:\n  cmd.run:\n    - name: cat ${join(dir, 'app.conf')}\n    - require:\n      - file: conf\n`,
  );
  writeFileSync(join(dir, 'app.conf'), 'password=old\n');
  const state = join(dir, 'state');
  const args = ['salt', 'state.apply', '--file-root', join(dir, 'salt'), '--pillar-root', join(dir, 'pillar'), '--state-dir', state];
  const apply = cairn([...args, '--out', 'json']);
  assert.equal(apply.code, 0, apply.stderr);
  // As salt-call prints it: the diff and the command's output show the value.
  assert.ok(apply.stdout.includes(`+password=${secret}`), apply.stdout);
  assert.ok(apply.stdout.includes(`"stdout": "password=${secret}"`), apply.stdout);
  assert.equal(readFileSync(join(dir, 'app.conf'), 'utf8'), `password=${secret}\n`);
  const history = cairn(['history', '1', '--state-dir', state]);
  assert.equal(history.code, 0, history.stderr);
  assert.ok(!history.stdout.includes(secret), history.stdout);
  assert.match(history.stdout, /password=\*{8}/);
  for (const f of filesUnder(state)) assert.ok(!readFileSync(f, 'utf8').includes(secret), `${f} holds the pillar value`);
});
