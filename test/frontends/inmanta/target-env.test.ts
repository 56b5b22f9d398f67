// std::get_env and std::get_env_int read the environment of the machine the compile is for (its facts),
// never the environment of the process running cairn.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { compileFor } from '../../../src/frontends/inmanta/compiler.js';
import { FAKE_FACTS, FakeHost } from '../../../src/host/fake.js';
import { tempDir } from '../../cli/cli-helpers.js';

test('get_env and get_env_int read the target facts', async () => {
  const dir = join(tempDir('cairn-inmanta-env-'), 'project');
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'main.cf'),
    [
      'std::print(std::get_env("APP_MODE"))',
      'std::print(std::get_env_int("APP_PORT") + 1)',
      'std::print(std::get_env("CAIRN_INMANTA_ONLY_HERE", "absent on the target"))',
      '',
    ].join('\n'),
  );
  process.env.APP_MODE = 'controller';
  process.env.APP_PORT = '1';
  process.env.CAIRN_INMANTA_ONLY_HERE = 'controller';
  try {
    const target = new FakeHost({ facts: { env: { ...FAKE_FACTS.env, APP_MODE: 'production', APP_PORT: '8080' } } });
    const r = await compileFor(dir, target);
    assert.equal(r.error, undefined, r.error?.msg);
    assert.deepEqual(r.printed, ['production', '8081', 'absent on the target']);
    assert.equal(target.calls.facts, 1);
  } finally {
    delete process.env.APP_MODE;
    delete process.env.APP_PORT;
    delete process.env.CAIRN_INMANTA_ONLY_HERE;
  }
});

test('a model that reads no environment compiles without gathering the target facts', async () => {
  const dir = join(tempDir('cairn-inmanta-env-'), 'project');
  mkdirSync(dir);
  writeFileSync(join(dir, 'main.cf'), 'entity A:\n  string name\nend\nimplement A using std::none\nA(name="a")\nstd::print(std::len([1, 2]))\n');
  const target = new FakeHost({ facts: { env: { ...FAKE_FACTS.env, APP_MODE: 'production' } } });
  const r = await compileFor(dir, target);
  assert.equal(r.error, undefined, r.error?.msg);
  assert.deepEqual(r.printed, ['2']);
  assert.equal(target.calls.facts, 0);
});

test('a model that renders a template gathers the facts (a template can read the environment)', async () => {
  const root = tempDir('cairn-inmanta-env-');
  const dir = join(root, 'project');
  mkdirSync(join(dir, 'libs/web/model'), { recursive: true });
  mkdirSync(join(dir, 'libs/web/templates'), { recursive: true });
  writeFileSync(join(dir, 'libs/web/module.yml'), 'name: web\nversion: 1.0.0\nlicense: Apache 2.0\n');
  writeFileSync(join(dir, 'libs/web/model/_init.cf'), '');
  writeFileSync(join(dir, 'libs/web/templates/t.j2'), 'hello {{ who }}');
  writeFileSync(join(dir, 'main.cf'), 'import web\nstd::print(std::template("web/t.j2", who="there"))\n');
  const target = new FakeHost();
  const r = await compileFor(dir, target);
  assert.equal(r.error, undefined, r.error?.msg);
  assert.deepEqual(r.printed, ['hello there']);
  assert.equal(target.calls.facts, 1);
});

test('a project that fails before it runs reports its error without gathering the facts', async () => {
  const dir = join(tempDir('cairn-inmanta-env-'), 'project');
  mkdirSync(dir);
  writeFileSync(join(dir, 'main.cf'), 'std::print(std::get_env("X"))\nstd::nosuch()\n');
  const target = new FakeHost();
  const r = await compileFor(dir, target);
  assert.equal(r.error?.kind, 'TypeNotFoundException');
  assert.equal(target.calls.facts, 0);
});
