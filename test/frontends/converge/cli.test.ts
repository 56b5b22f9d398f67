/** Runs `cairn converge` on the fixtures as a user would and compares with the expected Converge text. */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { assertNoStack, cairn } from '../../cli/cli-helpers.js';
import { expected, FIX, run, tempDir } from './fixture-helpers.js';


for (const fixture of ['values', 'modules']) {
  describe(`converge fixture ${fixture}`, () => {
    const dir = tempDir();
    const main = join(FIX, fixture, 'main.hcl');
    test('graph prints DOT', () => {
      const r = run(['graph', main], dir);
      assert.equal(r.stderr, '');
      assert.equal(r.stdout, expected(`${fixture}/graph.dot`, dir));
      assert.equal(r.code, 0);
    });
    test('plan shows what would change and changes nothing', () => {
      const r = run(['plan', main], dir);
      assert.equal(r.stdout, expected(`${fixture}/plan.txt`, dir));
      assert.equal(r.code, 0);
      assert.equal(existsSync(join(dir, 'effect')), false);
      assert.equal(run(['plan', main, '--detailed-exitcode'], dir).code, 2);
    });
    test('apply makes the changes', () => {
      const r = run(['apply', main], dir);
      assert.equal(r.stdout, expected(`${fixture}/apply.txt`, dir));
      assert.equal(r.code, 0);
    });
    test('a plan after apply has no changes', () => {
      const r = run(['plan', main, '--only-show-changes'], dir);
      assert.equal(r.stdout, expected(`${fixture}/replan.txt`, dir));
      assert.equal(run(['apply', main, '--detailed-exitcode'], dir).code, 0);
    });
    test('healthcheck reports every node healthy', () => {
      const r = run(['healthcheck', main], dir);
      assert.equal(r.stdout, expected(`${fixture}/health.txt`, dir));
      assert.equal(r.code, 0);
    });
  });
}

describe('converge value passing', () => {
  test('a task output flows through lookup into a file', () => {
    const dir = tempDir();
    run(['apply', join(FIX, 'values/main.hcl')], dir);
    assert.equal(readFileSync(join(dir, 'effect.txt'), 'utf8'), `sum=42 from ${dir}/static.txt`);
    assert.equal(readFileSync(join(dir, 'static.txt'), 'utf8'), 'hello cairn\n');
  });
  test('-p overrides a default; JSON output has the results', () => {
    const dir = tempDir();
    const r = cairn(['converge', 'plan', join(FIX, 'values/main.hcl'), '-p', `dir=${dir}`, '-p', 'greeting=hi', '--out', 'json', '--state-dir', join(dir, '.state')]);
    const json = JSON.parse(r.stdout);
    // A lookup of a task's output reads its check in a plan, as converge does.
    const effect = json.results.find((x: { id: string }) => x.id === 'root/file.content.effect');
    assert.equal(effect.status, 'pending');
    const stat = json.results.find((x: { id: string }) => x.id === 'root/file.content.static');
    assert.equal(stat.status, 'pending');
    assert.equal(typeof json.run, 'number');
  });
});

describe('converge failures', () => {
  test('a failing task: Errors section, dependency errors, exit 1', () => {
    const dir = tempDir();
    const file = join(dir, 'fail.hcl');
    writeFileSync(file, `task "fails" {\n  check = "exit 1"\n  apply = "echo no; exit 1"\n}\n\nfile.content "dependent" {\n  destination = "${dir}/x"\n  depends = ["task.fails"]\n}\n`);
    const r = cairn(['converge', 'apply', file, '--state-dir', join(dir, '.state')]);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /root\/task\.fails:\n Error: root\/task\.fails still has changes after apply\n Messages:\n  check \(returned: 1\)\n  \n  \n  apply \(returned: 1\)\n  no\n \n  \n Has Changes: yes\n/);
    assert.match(r.stdout, /Errors:\n \* root\/task\.fails: root\/task\.fails still has changes after apply\n\n/);
    assert.match(r.stdout, /Failed due to failing dependency:\n \* root\/file\.content\.dependent: error in dependency "root\/task\.fails"\n/);
    assert.match(r.stdout, /Summary: 1 errors, 0 changes, 1 dependency errors\n$/);
    assert.equal(existsSync(join(dir, 'x')), false);
  });
});

describe('converge bad input: positioned diagnostic, exit 1, nothing applied', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['syntax', 'task "a" {\n  check = "true"\n  apply = \n}\n', /bad\.hcl:4:1: HCL010 expected a value/],
    ['unknown type', 'task "a" {\n  check = "true"\n}\n\nbogus.thing "b" {\n}\n', /bad\.hcl:5:1: CV031 unknown resource type "bogus\.thing"/],
    ['unsupported type', 'docker.image "b" {\n  name = "x"\n}\n', /bad\.hcl:1:1: CV030 docker\.image "b": docker resources are not supported/],
    ['missing param', 'param "needed" {}\n\ntask "a" {\n  check = "echo {{param `needed`}}"\n}\n', /bad\.hcl:1:1: CV008 required param "needed" has no value \(give it with -p needed=VALUE\)/],
    ['wrong param type', 'param "n" {\n  default = "x"\n  type = "int"\n}\n', /bad\.hcl:2:13: CV009 param "n" must be of type int/],
    ['unknown module', 'module "nowhere.hcl" "m" {}\n', /bad\.hcl:1:8: CV001 cannot read module .*nowhere\.hcl: no such file/],
    ['unknown lookup', 'task "a" {\n  check = "echo {{lookup `task.zz.status.stdout`}}"\n}\n', /bad\.hcl:2:11: CV024 lookup "task\.zz\.status\.stdout": no node in root matches/],
    ['unknown field', 'task "a" {\n  check = "true"\n  chekc = "x"\n}\n', /bad\.hcl:3:11: CV032 task has no field "chekc"/],
    ['unknown depends', 'task "a" {\n  check = "true"\n  depends = ["task.b"]\n}\n', /bad\.hcl:3:14: CV051 depends on unknown node "task\.b" in root/],
    ['cycle', 'task "a" {\n  check = "exit 1"\n  apply = "touch @/a"\n  depends = ["task.b"]\n}\n\ntask "b" {\n  check = "exit 1"\n  apply = "touch @/b"\n  depends = ["task.a"]\n}\n', /bad\.hcl:1:1: G006 dependency cycle/],
  ];
  for (const [name, text, want] of cases) {
    test(name, () => {
      const dir = tempDir();
      const file = join(dir, 'bad.hcl');
      writeFileSync(file, text.replaceAll('@', dir));
      const r = cairn(['converge', 'apply', file, '--state-dir', join(dir, '.state')]);
      assert.equal(r.code, 1, r.stderr);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, want);
      assertNoStack(r.stderr);
      assert.equal(existsSync(join(dir, 'a')) || existsSync(join(dir, 'b')), false);
    });
  }
});

describe('converge fixture tasks (checked against converge)', () => {
  const main = join(FIX, 'tasks/main.hcl');
  const cases: Array<[string, string[], string, number]> = [
    ['plan: check errors have no changes', ['plan'], 'tasks/plan.txt', 1],
    ['plan --show-meta adds the root and param nodes', ['plan', '--show-meta'], 'tasks/plan-meta.txt', 1],
    ['apply: a failing apply is worded as converge words it', ['apply'], 'tasks/apply.txt', 1],
    ['graph --show-params draws params and their edges', ['graph', '--show-params'], 'tasks/graph.dot', 0],
  ];
  for (const [name, args, file, code] of cases) {
    test(name, () => {
      const dir = tempDir();
      const r = cairn(['converge', ...args, main, '--state-dir', join(dir, '.state')]);
      assert.equal(r.stdout, expected(file, dir));
      assert.equal(r.code, code);
    });
  }
});

describe('converge healthcheck fixture', () => {
  test('each node prints its own status code, changes and warning, as converge does; nothing changes', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'same.txt'), 'hello', { mode: 0o644 });
    writeFileSync(join(dir, 'drift.txt'), 'old', { mode: 0o644 });
    writeFileSync(join(dir, 'm.txt'), '', { mode: 0o644 });
    const r = run(['healthcheck', join(FIX, 'health/main.hcl')], dir);
    assert.equal(r.stdout, expected('health/health.txt', dir));
    assert.equal(r.code, 0);
    assert.equal(existsSync(join(dir, 'new.txt')), false);
    assert.equal(existsSync(join(dir, 'sub')), false);
    assert.equal(readFileSync(join(dir, 'drift.txt'), 'utf8'), 'old');
  });
});
