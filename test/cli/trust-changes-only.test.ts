// --changes-only: the text output leaves out resources already in the right state and counts them; what
// changes, would change or failed is always shown; the JSON output and the run store keep every result.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cairn, tempDir } from './cli-helpers.js';

test('graph file: plan and apply with --changes-only show only what changes, with a count of the rest', () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'same'), 'same\n');
  const graph = join(dir, 'g.json');
  writeFileSync(
    graph,
    JSON.stringify({
      version: 1,
      nodes: [
        { id: 'same', type: 'file', params: { path: join(dir, 'same'), content: 'same\n' } },
        { id: 'new', type: 'file', params: { path: join(dir, 'new'), content: 'new\n' } },
        { id: 'bad', type: 'file', params: { path: join(dir, 'missing-dir', 'x'), content: 'x\n' } },
      ],
    }),
  );
  const state = ['--state-dir', join(dir, 'state')];
  const full = cairn(['plan', graph, ...state]);
  assert.match(full.stdout, /^ok +file same/m, 'without the flag every resource is listed');
  const plan = cairn(['plan', graph, ...state, '--changes-only']);
  assert.doesNotMatch(plan.stdout, / same\b/);
  assert.match(plan.stdout, /^would change file new /m);
  assert.match(plan.stdout, /^would change file bad /m);
  assert.match(plan.stdout, /^1 unchanged not shown \(--changes-only\)\nPlan: 2 to change, 1 ok, 0 failed, 0 skipped \(3 nodes/m);
  const apply = cairn(['apply', graph, ...state, '--changes-only']);
  assert.equal(apply.code, 1);
  assert.match(apply.stdout, /^changed +file new/m);
  assert.match(apply.stdout, /^failed +file bad /m, 'a failure is always shown');
  assert.match(apply.stdout, /^1 unchanged not shown \(--changes-only\)\nApplied: 1 changed, 1 ok, 1 failed/m);
  const json = cairn(['plan', graph, ...state, '--changes-only', '--out', 'json']);
  assert.equal((JSON.parse(json.stdout) as { results: unknown[] }).results.length, 3, 'JSON keeps every result');
  const history = cairn(['history', '2', ...state]);
  assert.match(history.stdout, /same/, 'the run store keeps every result');
});

test('Inmanta: deploy --changes-only', () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'same'), 'same\n');
  writeFileSync(
    join(dir, 'main.cf'),
    `import fs\nh = std::Host(name="n", os=std::linux)\nfs::File(host=h, path="${dir}/same", content="same\\n", mode=644)\nfs::File(host=h, path="${dir}/new", content="new\\n", mode=644)\n`,
  );
  const r = cairn(['inmanta', 'deploy', dir, '--dry-run', '--changes-only', '--state-dir', join(dir, 'state')]);
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stdout, /path=.*\/same\]/);
  assert.match(r.stdout, /fs::File\[n,path=.*\/new\]/);
  assert.match(r.stdout, /^1 unchanged not shown \(--changes-only\)\nPlan: 1 to change, 1 ok/m);
});

test('Zapusk: a dry run with --changes-only leaves out the files it would leave as they are', () => {
  const dir = tempDir();
  mkdirSync(join(dir, 'p.zdb'));
  writeFileSync(join(dir, 'same'), 'same');
  writeFileSync(join(dir, 'p.zdb/main.ini'), `################# files\n[file]\npath=${dir}/same\ncontent=same\n\n################# more\n[file]\npath=${dir}/new\ncontent=new\n`);
  const args = ['zapusk', 'p.zdb', 'plan', '--state-dir', join(dir, 'state')];
  const full = cairn(args, { cwd: dir });
  assert.equal(full.code, 0, full.stderr);
  assert.match(full.stdout, /would leave .*\/same as it is/, 'without the flag every file is listed');
  const r = cairn([...args, '--changes-only'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stdout, /would leave/);
  assert.match(r.stdout, /\*\*\* would write .*\/new /);
  assert.match(r.stdout, /\*\*\* 1 unchanged not shown \(--changes-only\)\n\*\*\* Plan: 1 to write, 0 to remove, 0 to restore, 0 to run; nothing was changed\./);
});
