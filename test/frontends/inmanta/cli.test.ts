// The built CLI on a multi-module project: export shapes, dry-run changes nothing, deploy, re-deploy is a no-op.
import assert from 'node:assert/strict';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { assertNoStack, cairn, tempDir } from '../../cli/cli-helpers.js';

const FIXTURES = resolve(import.meta.dirname, '../../fixtures/inmanta');

function project(): { dir: string; base: string; state: string } {
  const tmp = tempDir('cairn-inmanta-');
  const dir = join(tmp, 'project');
  cpSync(join(FIXTURES, 'deploy'), dir, { recursive: true });
  const base = join(tmp, 'target');
  const main = join(dir, 'main.cf');
  writeFileSync(main, readFileSync(main, 'utf8').replace('/tmp/cairn-inmanta-fixture', base));
  return { dir, base, state: join(tmp, 'state') };
}

test('export prints resource ids with their attributes and requires', () => {
  const { dir, base } = project();
  const r = cairn(['inmanta', 'export', dir, '--out', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const res = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
  assert.deepEqual(
    res.map((x) => x.id),
    [
      `exec::Run[node1,command=touch ${base}/ran]`,
      `fs::Directory[node1,path=${base}/www]`,
      `fs::Directory[node1,path=${base}]`,
      `fs::File[node1,path=${base}/www/index.html]`,
      `fs::Symlink[node1,target=${base}/current]`,
    ],
  );
  const file = res.find((x) => String(x.id).startsWith('fs::File'));
  assert.equal(file?.content, `web blog at ${base}/www on node1`);
  // The file requires its directory, and what the enclosing web::Site requires (the root directory).
  assert.deepEqual(file?.requires, [`fs::Directory[node1,path=${base}/www]`, `fs::Directory[node1,path=${base}]`]);
  // Requiring an abstract entity means requiring the resources its implementation built.
  const link = res.find((x) => String(x.id).startsWith('fs::Symlink'));
  assert.deepEqual(link?.requires, [`fs::Directory[node1,path=${base}/www]`, `fs::File[node1,path=${base}/www/index.html]`]);
  const text = cairn(['inmanta', 'export', dir]);
  assert.equal(text.code, 0);
  assert.match(text.stdout, new RegExp(`^fs::File\\[node1,path=${base}/www/index.html\\]\\n    path: "${base}/www/index.html"`, 'm'));
});

test('deploy: dry-run changes nothing, deploy makes it so, a second deploy changes nothing', () => {
  const { dir, base, state } = project();
  const dry = cairn(['inmanta', 'deploy', dir, '--dry-run', '--state-dir', state, '--out', 'json']);
  assert.equal(dry.code, 0, dry.stderr);
  const plan = JSON.parse(dry.stdout);
  assert.equal(plan.mode, 'check');
  assert.equal(plan.counts.pending, 5);
  assert.equal(existsSync(base), false);

  const first = cairn(['inmanta', 'deploy', dir, '--state-dir', state, '--out', 'json']);
  assert.equal(first.code, 0, first.stdout + first.stderr);
  assert.equal(JSON.parse(first.stdout).counts.changed, 5);
  assert.equal(readFileSync(join(base, 'www/index.html'), 'utf8'), `web blog at ${base}/www on node1`);
  assert.ok(existsSync(join(base, 'ran')));

  const second = cairn(['inmanta', 'deploy', dir, '--state-dir', state, '--detailed-exitcode']);
  assert.equal(second.code, 0, second.stdout + second.stderr);
  assert.match(second.stdout, /Applied: 0 changed, 5 ok, 0 failed/);
});

test('compile errors: positioned diagnostic, exit 1, nothing exported or deployed', () => {
  const { dir, base, state } = project();
  writeFileSync(join(dir, 'main.cf'), `${readFileSync(join(dir, 'main.cf'), 'utf8')}\nsite.name = "other"\n`);
  for (const action of ['compile', 'export', 'deploy']) {
    const r = cairn(['inmanta', action, dir, '--state-dir', state]);
    assert.equal(r.code, 1);
    assertNoStack(r.stderr);
    assert.match(r.stderr, /main\.cf:11:1: AttributeException Could not set attribute `name`/);
    assert.equal(r.stdout, '');
  }
  assert.equal(existsSync(base), false);
  const json = cairn(['inmanta', 'compile', dir, '--out', 'json']);
  assert.equal(JSON.parse(json.stdout).error.kind, 'AttributeException');
  const missing = cairn(['inmanta', 'compile', join(dir, 'nope')]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /project directory .* does not exist/);
});
