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
