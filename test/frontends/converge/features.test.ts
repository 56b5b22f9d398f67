/** switch/case and the file.fetch, unarchive, file.mode, file.owner, wait and healthcheck.task fixtures, plus their bad input. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { assertNoStack, cairn } from '../../cli/cli-helpers.js';
import { expected, FIX, run, tempDir } from './fixture-helpers.js';


const SETUP: Record<string, (dir: string) => void> = {
  switch: () => {},
  resources: (dir) => {
    writeFileSync(join(dir, 'src.txt'), 'hello\n', { mode: 0o644 });
    mkdirSync(join(dir, 'arc'));
    mkdirSync(join(dir, 'unpack'));
    mkdirSync(join(dir, 'tree/sub'), { recursive: true });
    writeFileSync(join(dir, 'arc/one.txt'), 'hi\n');
    spawnSync('tar', ['-C', join(dir, 'arc'), '-czf', join(dir, 'a.tar.gz'), 'one.txt']);
    rmSync(join(dir, 'arc'), { recursive: true });
    writeFileSync(join(dir, 'tree/a'), '');
    writeFileSync(join(dir, 'tree/sub/b'), '');
  },
};

const isRoot = process.getuid?.() === 0;

for (const fixture of ['switch', 'resources']) {
  describe(`converge fixture ${fixture}`, { skip: fixture === 'resources' && !isRoot ? 'file.owner needs root' : false }, () => {
    const dir = tempDir();
    SETUP[fixture]?.(dir);
    const main = join(FIX, fixture, 'main.hcl');
    test('plan', () => {
      const r = run(['plan', main], dir);
      assert.equal(r.stdout, expected(`${fixture}/plan.txt`, dir));
      assert.equal(r.code, 0);
    });
    test('apply', () => {
      const r = run(['apply', main], dir);
      assert.equal(r.stdout, expected(`${fixture}/apply.txt`, dir));
      assert.equal(r.code, 0);
    });
    test('plan after apply', () => {
      const r = run(['plan', main, '--only-show-changes'], dir);
      assert.equal(r.stdout, expected(`${fixture}/replan.txt`, dir));
    });
  });
}

describe('converge switch', () => {
  test('only the taken branch acts; -p picks another branch', () => {
    const dir = tempDir();
    run(['apply', join(FIX, 'switch/main.hcl'), '-p', 'os=plan9'], dir);
    assert.equal(readFileSync(join(dir, 'other.conf'), 'utf8'), 'other');
    assert.equal(existsSync(join(dir, 'linux.conf')) || existsSync(join(dir, 'bsd.conf')), false);
  });
});

describe('converge resources', () => {
  test('the fetched file is a copy; unarchive unpacks; the tree is owned by uid 1', { skip: isRoot ? false : 'needs root' }, () => {
    const dir = tempDir();
    SETUP.resources?.(dir);
    run(['apply', join(FIX, 'resources/main.hcl')], dir);
    assert.equal(readFileSync(join(dir, 'fetched.txt'), 'utf8'), 'hello\n');
    assert.equal(readFileSync(join(dir, 'unpack/one.txt'), 'utf8'), 'hi\n');
    assert.equal(statSync(join(dir, 'tree/sub/b')).uid, 1);
    assert.equal(statSync(join(dir, 'src.txt')).mode & 0o777, 0o600);
  });
  test('file.mode of a missing file: a warning in plan, an error after apply, nothing created', () => {
    const dir = tempDir();
    const file = join(dir, 'm.hcl');
    writeFileSync(file, `file.mode "m" {\n  destination = "${dir}/none"\n  mode = 0644\n}\n`);
    const plan = cairn(['converge', 'plan', file, '--state-dir', join(dir, '.state')]);
    assert.match(plan.stdout, / Warning: ".*\/none" does not exist\n Messages:\n Has Changes: yes\n Changes:\n  .*\/none: "----------" => "-rw-r--r--"\n/);
    const apply = cairn(['converge', 'apply', file, '--state-dir', join(dir, '.state')]);
    assert.equal(apply.code, 1);
    assert.match(apply.stdout, /\* root\/file\.mode\.m: root\/file\.mode\.m still has changes after apply: chmod .*\/none: no such file or directory\n/);
    assert.equal(existsSync(join(dir, 'none')), false);
  });
  test('file.directory without create_all under a missing parent is an error', () => {
    const dir = tempDir();
    const file = join(dir, 'd.hcl');
    writeFileSync(file, `file.directory "d" {\n  destination = "${dir}/x/y"\n}\n`);
    const r = cairn(['converge', 'plan', file, '--state-dir', join(dir, '.state')]);
    assert.equal(r.code, 1);
    assert.match(r.stdout, / Error: resource cannot change because of an error\n Messages:\n  ".*\/x" does not exist and will not be created \(enable create_all to do this\)\n/);
  });
});

describe('converge healthcheck.task', () => {
  test('a failing check prints as converge prints it; exit 1 counts as a warning, 2 as an error', () => {
    const dir = tempDir();
    const file = join(dir, 'h.hcl');
    writeFileSync(file, 'healthcheck.task "one" {\n  check = "exit 1"\n}\n\nhealthcheck.task "two" {\n  check = "exit 2"\n}\n\nhealthcheck.task "ok" {\n  check = "true"\n}\n');
    const r = cairn(['converge', 'healthcheck', file, '--state-dir', join(dir, '.state')]);
    const block = (id: string) => `root/healthcheck.task.${id}:\n Error: required changes detected\n Messages:\n  Check returned 2\n  Check indicates changes are required\n Has Changes: yes\n Changes: No changes\n\n`;
    assert.equal(r.stdout, `\n${block('one')}${block('two')}root/healthcheck.task.ok:\n Messages:\n Has Changes: no\n Changes: No changes\n\nSummary: 1 errors, 1 warnings\n0 checks will fail due to failing dependencies\n`);
    assert.equal(r.code, 0);
    const apply = cairn(['converge', 'apply', file, '--state-dir', join(dir, '.state')]);
    assert.equal(apply.code, 0);
    assert.match(apply.stdout, /root\/healthcheck\.task\.one:\n Messages:\n  check \(returned: 1\)\n  \n  \n  apply \(returned: 0\)\n/);
  });
});

describe('converge bad input of the new resources: positioned diagnostic, exit 1, nothing applied', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['file.fetch without source', 'file.fetch "f" {\n  destination = "@/a"\n}\n', /bad\.hcl:1:1: R001 fetch "root\/file\.fetch\.f": missing required param "source"/],
    ['file.fetch force of the wrong type', 'file.fetch "f" {\n  source = "@/src"\n  destination = "@/a"\n  force = "maybe"\n}\n', /bad\.hcl:4:11: R001 fetch "root\/file\.fetch\.f": param "force"/],
    ['file.fetch bad hash_type', 'file.fetch "f" {\n  source = "@/src"\n  destination = "@/a"\n  hash_type = "crc"\n  hash = "abc"\n}\n', /bad\.hcl:4:15: R001 .*expected one of md5, sha1, sha256, sha512/],
    ['unarchive without destination', 'unarchive "u" {\n  source = "@/a.tar"\n}\n', /bad\.hcl:1:1: R001 unarchive "root\/unarchive\.u": missing required param "destination"/],
    ['wait.port with a port of the wrong type', 'wait.port "p" {\n  port = "http"\n}\n', /bad\.hcl:2:10: R001 wait "root\/wait\.port\.p": param "port"/],
    ['wait.query with a bad interval', 'wait.query "q" {\n  check = "true"\n  interval = "soon"\n}\n', /bad\.hcl:3:14: CV040 interval must be a duration/],
    ['file.owner without destination', 'file.owner "o" {\n  uid = 0\n}\n', /bad\.hcl:1:1: R001 chown "root\/file\.owner\.o": missing required param "path"/],
    ['file.mode with a bad mode', 'file.mode "m" {\n  destination = "@/a"\n  mode = "rwx"\n}\n', /bad\.hcl:3:10: R001 chmod "root\/file\.mode\.m": param "mode"/],
    ['systemd.unit.state with a bad state', 'systemd.unit.state "s" {\n  unit = "x.service"\n  state = "dancing"\n}\n', /bad\.hcl:3:11: R001 unit "root\/systemd\.unit\.state\.s": param "state"/],
    ['switch with a stray block', 'switch "s" {\n  task "t" {\n    check = "true"\n  }\n}\n', /bad\.hcl:2:3: CV012 a switch holds only case/],
    ['switch with a bad predicate', 'switch "s" {\n  case "eq {{param `nope`}} 1" "one" {\n    task "a" {\n      check = "exit 1"\n      apply = "touch @/a"\n    }\n  }\n}\n', /bad\.hcl:2:8: CV025 invalid predicate "eq \{\{param `nope`\}\} 1": param "nope" is not declared/],
  ];
  for (const [name, text, want] of cases) {
    test(name, () => {
      const dir = tempDir();
      const file = join(dir, 'bad.hcl');
      writeFileSync(file, `${text.replaceAll('@', dir)}\ntask "a" {\n  check = "test -f ${dir}/a"\n  apply = "touch ${dir}/a"\n}\n`.replace(/\ntask "a"[\s\S]*$/, name.startsWith('switch') ? '' : `\ntask "a" {\n  check = "test -f ${dir}/a"\n  apply = "touch ${dir}/a"\n}\n`));
      const r = cairn(['converge', 'apply', file, '--state-dir', join(dir, '.state')]);
      assert.equal(r.code, 1, r.stderr);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, want);
      assertNoStack(r.stderr);
      assert.equal(existsSync(join(dir, 'a')), false);
    });
  }
});

describe('converge file.directory modes', () => {
  test('directories are created 0700, parents too with create_all, as converge creates them; existing ones keep theirs', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'kept'), { mode: 0o755 });
    const file = join(dir, 'd.hcl');
    writeFileSync(file, `file.directory "deep" {\n  destination = "${dir}/a/b/c"\n  create_all = true\n}\n\nfile.directory "kept" {\n  destination = "${dir}/kept"\n}\n`);
    const r = cairn(['converge', 'apply', file, '--state-dir', join(dir, '.state')]);
    assert.equal(r.code, 0, r.stdout);
    for (const p of ['a', 'a/b', 'a/b/c']) assert.equal(statSync(join(dir, p)).mode & 0o777, 0o700, p);
    assert.equal(statSync(join(dir, 'kept')).mode & 0o777, 0o755);
  });
});
