// rememberLocalFacts: once on, LocalHost objects share one reading of this machine's facts per host name,
// working directory and environment; another environment or directory reads the machine again. Per-run
// variables (a held lock's token) do not count: each caller sees its own value in the facts' env.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { LocalHost, rememberLocalFacts } from '../../src/host/local.js';

test('remembered facts: one reading per directory and environment, each caller gets its own copy', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-facts-'));
  const saved = { path: process.env.PATH, extra: process.env.CAIRN_FACTS_TEST, cwd: process.cwd() };
  t.after(() => {
    process.env.PATH = saved.path;
    delete process.env.CAIRN_FACTS_PER_RUN;
    if (saved.extra === undefined) delete process.env.CAIRN_FACTS_TEST;
    else process.env.CAIRN_FACTS_TEST = saved.extra;
    process.chdir(saved.cwd);
    rmSync(dir, { recursive: true, force: true });
  });
  // `getconf` is run once by every reading of the facts: a stand-in counts the readings.
  const log = join(dir, 'readings');
  writeFileSync(log, '');
  writeFileSync(join(dir, 'getconf'), `#!/bin/sh\necho x >> '${log}'\necho 3\n`);
  chmodSync(join(dir, 'getconf'), 0o755);
  process.env.PATH = `${dir}:${saved.path ?? ''}`;
  const readings = (): number => readFileSync(log, 'utf8').split('\n').filter(Boolean).length;

  rememberLocalFacts(['CAIRN_FACTS_PER_RUN']);
  const first = await new LocalHost().facts();
  assert.equal(first.cpuCount, 3);
  assert.equal(readings(), 1);
  (first.env as Record<string, string>).CHANGED_BY_A_CALLER = 'x';
  const second = await new LocalHost().facts();
  assert.equal(readings(), 1, 'the same directory and environment: read once');
  assert.equal(second.env.CHANGED_BY_A_CALLER, undefined, 'a caller changing its facts changes no one else\'s');
  assert.deepEqual({ ...second, env: {} }, { ...first, env: {} });

  process.env.CAIRN_FACTS_TEST = 'another environment';
  const third = await new LocalHost().facts();
  assert.equal(readings(), 2);
  assert.equal(third.env.CAIRN_FACTS_TEST, 'another environment');

  process.chdir(dir);
  const fourth = await new LocalHost().facts();
  assert.equal(readings(), 3, 'another working directory reads again');
  assert.equal(fourth.env.PWD, process.cwd());

  await new LocalHost('web1').facts();
  assert.equal(readings(), 4, 'another host name reads again');

  process.env.CAIRN_FACTS_PER_RUN = 'token-1';
  const fifth = await new LocalHost().facts();
  assert.equal(readings(), 4, 'a per-run variable is no other environment');
  assert.equal(fifth.env.CAIRN_FACTS_PER_RUN, 'token-1', 'the facts show the run its own value');
  process.env.CAIRN_FACTS_PER_RUN = 'token-2';
  assert.equal((await new LocalHost().facts()).env.CAIRN_FACTS_PER_RUN, 'token-2');
  delete process.env.CAIRN_FACTS_PER_RUN;
  const sixth = await new LocalHost().facts();
  assert.equal(readings(), 4);
  assert.equal('CAIRN_FACTS_PER_RUN' in sixth.env, false, 'unset in the run: absent from its facts');
  assert.deepEqual(sixth, fourth);
});
