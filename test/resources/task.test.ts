import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { GraphNode } from '../../src/core/model.js';
import { LocalHost } from '../../src/host/local.js';
import { SimulatedHost } from '../../src/host/simulated.js';
import type { ResourceContext } from '../../src/host/types.js';
import { kinds } from '../../src/resources/index.js';
import { kind } from '../../src/resources/task/index.js';

type P = Record<string, unknown>;
const node = (params: P): GraphNode => ({ id: 'task.t', type: 'task', name: 'task.t', params });
const local: ResourceContext = { host: new LocalHost(), baseDir: '/' };

let dir = '';
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-task-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('task: validate', () => {
  const diags = (params: P) => kind.validate(params, node(params)).map((d) => d.message);
  test('is registered and accepts every documented param', () => {
    assert.equal(kinds.get('task'), kind);
    assert.deepEqual(
      diags({ check: 'true', apply: 'true', interpreter: '/bin/bash', check_flags: ['-e'], exec_flags: ['-x'], dir: '/tmp', env: { A: '1', B: 2 }, timeout: 2, query: false }),
      [],
    );
  });
  test('rejects a missing check, unknown params and wrong types', () => {
    assert.match(diags({}).join('\n'), /missing required param "check"/);
    assert.match(diags({ check: 'true', bogus: 1 }).join('\n'), /unknown param "bogus"/);
    assert.match(diags({ check: 'true', timeout: 0 }).join('\n'), /param "timeout"/);
  });
});

describe('task: check and apply', () => {
  test('check exit 0 is in sync and exposes the check output as the final status', async () => {
    const p = { check: 'echo ok; echo warn >&2' };
    const c = await kind.check(local, p, node(p));
    assert.equal(c.inSync, true);
    assert.equal(c.outputs?.stdout, 'ok\n');
    assert.equal(c.outputs?.stderr, 'warn\n');
    assert.equal(c.outputs?.exitstatus, 0);
    assert.equal(c.outputs?.['check.exitstatus'], 0);
  });

  test('a failing check needs changes and leaves the final status unknown', async () => {
    const p = { check: 'echo nope; exit 3', apply: 'true' };
    const c = await kind.check(local, p, node(p));
    assert.equal(c.inSync, false);
    assert.equal(c.outputs?.['check.exitstatus'], 3);
    assert.equal(c.outputs?.['check.stdout'], 'nope\n');
    assert.equal('stdout' in (c.outputs ?? {}), false);
  });

  test('apply runs the apply script, re-checks, and exposes the apply output', async () => {
    const marker = join(dir, 'm1');
    const p = { check: `test -f ${marker}`, apply: `echo made; touch ${marker}` };
    const c = await kind.check(local, p, node(p));
    const a = await kind.apply(local, p, c, node(p));
    assert.equal(a.ok, true);
    assert.equal(a.outputs?.stdout, 'made\n');
    assert.equal(a.outputs?.['apply.exitstatus'], 0);
    assert.ok(existsSync(marker));
    assert.equal((await kind.check(local, p, node(p))).inSync, true);
  });

  test('a task is judged by its apply script, as Converge judges it', async () => {
    const p = { check: 'exit 1', apply: 'echo tried; exit 3' };
    const c = await kind.check(local, p, node(p));
    const a = await kind.apply(local, p, c, node(p));
    assert.equal(a.ok, false);
    assert.equal(a.comment, 'still has changes after apply: the apply script returned 3');
    assert.equal(a.outputs?.['apply.exitstatus'], 3);
    // The check runs again, but an apply that exits 0 is a success even if the check still fails.
    const ok = { check: 'exit 1', apply: 'echo tried' };
    const b = await kind.apply(local, ok, c, node(ok));
    assert.equal(b.ok, true);
    assert.equal(b.outputs?.['final.exitstatus'], 1);
    const none = { check: 'exit 1' };
    const n = await kind.apply(local, none, c, node(none));
    assert.equal(n.ok, false);
    assert.match(n.comment ?? '', /no apply script/);
  });

  test('scripts that cannot run are errors worded as converge words them', async () => {
    const missing = { check: 'true', interpreter: join(dir, 'no-such-shell') };
    await assert.rejects(kind.check(local, missing, node(missing)), { message: `fork/exec ${join(dir, 'no-such-shell')}: no such file or directory` });
    const slow = { check: 'sleep 5', timeout: 0.2 };
    await assert.rejects(kind.check(local, slow, node(slow)), { message: 'execution timed out' });
    const nodir = { check: 'true', dir: join(dir, 'no-such-dir') };
    const c = await kind.check(local, nodir, node(nodir));
    assert.equal(c.inSync, false);
    assert.equal(c.outputs?.['check.stdout'], `stat ${join(dir, 'no-such-dir')}: no such file or directory`);
    assert.equal(c.outputs?.['check.exitstatus'], 1);
    const slowApply = { check: 'exit 1', apply: 'sleep 5', timeout: 0.2 };
    const a = await kind.apply(local, slowApply, await kind.check(local, slowApply, node(slowApply)), node(slowApply));
    assert.equal(a.ok, false);
    assert.equal(a.comment, 'still has changes after apply: execution timed out');
  });

  test('interpreter, flags, dir and env reach the script', async () => {
    const p = { check: 'exit 1', apply: `pwd > out; echo "$GREETING" >> out; touch done`, dir, env: { GREETING: 'hi' }, interpreter: '/bin/sh', exec_flags: ['-e'] };
    const p2 = { ...p, check: `test -f ${join(dir, 'done')}` };
    const a = await kind.apply(local, p2, await kind.check(local, p2, node(p2)), node(p2));
    assert.equal(a.ok, true);
    assert.equal(readFileSync(join(dir, 'out'), 'utf8'), `${dir}\nhi\n`);
  });

  test('a query exiting non-zero reports changes it cannot make; its output is known at check time', async () => {
    const p = { check: 'echo 42; exit 5', query: true };
    const c = await kind.check(local, p, node(p));
    assert.equal(c.inSync, false);
    assert.equal(c.outputs?.stdout, '42\n');
    assert.equal(c.outputs?.exitstatus, 5);
    const a = await kind.apply(local, p, c, node(p));
    assert.equal(a.ok, false);
    assert.equal(a.comment, 'still has changes after apply: query apply called but it should never have changes');
    const fine = { check: 'echo 1', query: true };
    assert.equal((await kind.check(local, fine, node(fine))).inSync, true);
  });

  test('a timeout is a failure', async () => {
    const p = { check: 'sleep 5', timeout: 0.2 };
    await assert.rejects(kind.check(local, p, node(p)), /timed out/);
  });

  test('on a simulating host the check runs and the apply does not', async () => {
    const marker = join(dir, 'sim');
    const sim: ResourceContext = { host: new SimulatedHost(new LocalHost()), baseDir: '/' };
    const p = { check: `test -f ${marker}`, apply: `touch ${marker}` };
    const c = await kind.check(sim, p, node(p));
    assert.equal(c.inSync, false);
    await kind.apply(sim, p, c, node(p));
    assert.equal(existsSync(marker), false);
  });
});
