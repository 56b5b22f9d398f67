// exec::Run(reload_only=true) runs only when something it requires changed in the same deploy, so a
// converged model deploys as a no-op; fs::File and exec::Run come from the modules real projects import.
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { cairn, tempDir } from '../../cli/cli-helpers.js';

const FIXTURE = resolve(import.meta.dirname, '../../fixtures/inmanta/deploy-reload');

test('a reload-only command runs when its requirement changed, and only then', () => {
  const tmp = tempDir('cairn-inmanta-reload-');
  const dir = join(tmp, 'project');
  cpSync(FIXTURE, dir, { recursive: true });
  const base = join(tmp, 'target');
  const main = join(dir, 'main.cf');
  writeFileSync(main, readFileSync(main, 'utf8').replace('/tmp/cairn-inmanta-reload', base));
  const state = join(tmp, 'state');
  const deploy = (...extra: string[]) => cairn(['inmanta', 'deploy', dir, '--state-dir', state, '--out', 'json', ...extra]);

  const exported = cairn(['inmanta', 'export', dir, '--out', 'json']);
  assert.equal(exported.code, 0, exported.stderr);
  const ids = (JSON.parse(exported.stdout) as Array<{ id: string }>).map((r) => r.id);
  assert.deepEqual(ids, [
    `exec::Run[node1,command=touch ${base}/never]`,
    `exec::Run[node1,command=touch ${base}/not-this]`,
    `exec::Run[node1,command=touch ${base}/reloaded-8080]`,
    `fs::File[node1,path=${base}/app.conf]`,
  ]);

  mkdirSync(base);
  const first = deploy();
  assert.equal(first.code, 0, first.stdout + first.stderr);
  assert.equal(readFileSync(join(base, 'app.conf'), 'utf8'), 'port=8080\n');
  assert.ok(existsSync(join(base, 'reloaded-8080')), 'the file changed, so the reload ran');
  assert.ok(!existsSync(join(base, 'never')), 'a reload-only command that requires nothing never runs');
  assert.ok(existsSync(join(base, 'reload-cmd')) && !existsSync(join(base, 'not-this')), 'a reload-only command with a reload command runs that one');

  rmSync(join(base, 'reloaded-8080'));
  const second = deploy();
  assert.equal(second.code, 0, second.stdout + second.stderr);
  assert.equal(JSON.parse(second.stdout).counts.changed, 0, second.stdout);
  assert.ok(!existsSync(join(base, 'reloaded-8080')), 'nothing changed, so no reload');

  writeFileSync(join(base, 'app.conf'), 'drifted\n');
  const third = deploy();
  assert.equal(third.code, 0, third.stdout + third.stderr);
  assert.equal(readFileSync(join(base, 'app.conf'), 'utf8'), 'port=8080\n');
  assert.ok(existsSync(join(base, 'reloaded-8080')), 'the file was repaired, so the reload ran again');
});
