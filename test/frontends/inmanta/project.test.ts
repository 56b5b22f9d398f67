// The multi-module project fixture (test/fixtures/inmanta/project): two modules in libs/ with module.yml,
// sub-namespaces, import aliases, relations across modules, conditional implementations, an index, a
// std::template and a std::file. Its export is golden; deployed into a temp dir, a second deploy changes nothing.
import assert from 'node:assert/strict';
import { cpSync, existsSync, lstatSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { assertNoStack, cairn, tempDir } from '../../cli/cli-helpers.js';

const FIXTURE = resolve(import.meta.dirname, '../../fixtures/inmanta/project');
const ROOT = '/tmp/cairn-inmanta-project';

/** A copy of the project whose paths point into a fresh temp dir. */
function copy(): { dir: string; root: string; state: string } {
  const tmp = tempDir('cairn-inmanta-project-');
  const dir = join(tmp, 'project');
  cpSync(FIXTURE, dir, { recursive: true });
  const root = join(tmp, 'target');
  const paths = join(dir, 'libs/base/model/paths.cf');
  writeFileSync(paths, readFileSync(paths, 'utf8').replace(ROOT, root));
  return { dir, root, state: join(tmp, 'state') };
}

test('project: compile prints what the model prints', () => {
  const r = cairn(['inmanta', 'compile', FIXTURE, '--out', 'json']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), JSON.parse(readFileSync(join(FIXTURE, 'expected.json'), 'utf8')));
});

test('project: export is golden', () => {
  const r = cairn(['inmanta', 'export', FIXTURE, '--out', 'json']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), JSON.parse(readFileSync(join(FIXTURE, 'expected-export.json'), 'utf8')));
});

test('project: dry-run, deploy, then a second deploy with no changes', () => {
  const { dir, root, state } = copy();
  const exported = cairn(['inmanta', 'export', dir, '--out', 'json']);
  assert.equal(exported.code, 0, exported.stderr);
  const count = (JSON.parse(exported.stdout) as unknown[]).length;
  assert.equal(count, 11);

  const dry = cairn(['inmanta', 'deploy', dir, '--dry-run', '--state-dir', state, '--out', 'json']);
  assert.equal(dry.code, 0, dry.stderr);
  assert.equal(JSON.parse(dry.stdout).counts.pending, count);
  assert.equal(existsSync(root), false);

  const first = cairn(['inmanta', 'deploy', dir, '--state-dir', state, '--out', 'json']);
  assert.equal(first.code, 0, first.stdout + first.stderr);
  assert.equal(JSON.parse(first.stdout).counts.changed, count);
  assert.equal(readFileSync(join(root, 'etc/db/service.conf'), 'utf8'), '# db on node1 (prod)\nport = 5432\ntls = False\nuser = alice\nuser = bob\n');
  assert.match(readFileSync(join(root, 'etc/web/tls.pem'), 'utf8'), /^-----BEGIN CERTIFICATE-----\n/);
  assert.equal((lstatSync(join(root, 'etc/web/tls.pem')).mode & 0o777).toString(8), '600');
  assert.equal(readlinkSync(join(root, 'www/conf')), join(root, 'etc/web'));
  assert.ok(existsSync(join(root, 'announced-db')) && existsSync(join(root, 'announced-web')));

  const second = cairn(['inmanta', 'deploy', dir, '--state-dir', state, '--detailed-exitcode']);
  assert.equal(second.code, 0, second.stdout + second.stderr);
  assertNoStack(second.stderr);
  assert.match(second.stdout, new RegExp(`Applied: 0 changed, ${count} ok, 0 failed`));
});
