import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, test } from 'node:test';
import type { GraphNode } from '../../src/core/model.js';
import { FakeHost } from '../../src/host/fake.js';
import { LocalHost } from '../../src/host/local.js';
import type { ResourceContext } from '../../src/host/types.js';
import { findGroup, readAccounts } from '../../src/resources/accounts.js';
import { kind } from '../../src/resources/group/index.js';

type P = Record<string, unknown>;
const node = (params: P): GraphNode => ({ id: 'g', type: 'group', name: 'g', params });
const local: ResourceContext = { host: new LocalHost(), baseDir: '/' };
const ABSENT = `cairn-nogroup-${process.pid}`;

describe('group: validate', () => {
  const diags = (params: P) => kind.validate(params, node(params)).map((d) => d.message).join('\n');
  test('accepts every documented param', () => {
    assert.equal(diags({ name: 'web', gid: 900, system: true, members: ['alice'] }), '');
    assert.equal(diags({ name: 'web', state: 'absent' }), '');
  });
  test('rejects unknown params and bad values', () => {
    assert.match(diags({ name: 'web', addusers: ['a'] }), /unknown param "addusers"/);
    assert.match(diags({ name: 'web', gid: 'x' }), /param "gid"/);
    assert.match(diags({ name: 'web', members: 'alice' }), /param "members"/);
    assert.match(diags({ name: 'web', state: 'gone' }), /param "state"/);
  });
});

describe('group: check against the real /etc/group', () => {
  test('root is present with gid 0', async () => {
    const check = await kind.check(local, { name: 'root', gid: 0 }, node({}));
    assert.deepEqual([check.inSync, check.comment], [true, 'Group root is present and up to date']);
    assert.equal(check.outputs?.gid, 0);
  });

  test('a different gid or member list is drift', async () => {
    const root = findGroup(await readAccounts(local.host), 'root');
    const check = await kind.check(local, { name: 'root', gid: 4242, members: ['cairn-x'] }, node({}));
    assert.equal(check.inSync, false);
    assert.deepEqual(check.changes, { gid: { old: 0, new: 4242 }, members: { old: root?.members, new: ['cairn-x'] } });
    assert.equal(check.comment, 'The following group attributes are set to be changed:\ngid: 4242\nmembers: cairn-x');
  });

  test('an absent group would be created; absent state is in sync', async () => {
    const check = await kind.check(local, { name: ABSENT, gid: 4343 }, node({}));
    assert.deepEqual([check.inSync, check.changes, check.comment], [false, { name: ABSENT, gid: 4343 }, `Group ${ABSENT} set to be added`]);
    const absent = await kind.check(local, { name: ABSENT, state: 'absent' }, node({}));
    assert.deepEqual([absent.inSync, absent.comment], [true, `Group ${ABSENT} is not present`]);
    const root = await kind.check(local, { name: 'root', state: 'absent' }, node({}));
    assert.deepEqual([root.inSync, root.changes, root.comment], [false, { root: '' }, 'Group root is set for removal']);
  });
});

const GROUP = 'root:x:0:\nstaff:x:50:alice\n';

function fakeGroups(answer: (argv: readonly string[], host: FakeHost) => { code?: number; stderr?: string } = () => ({})) {
  const host = new FakeHost({ files: { '/etc/group': GROUP, '/etc/passwd': 'root:x:0:0:root:/root:/bin/bash\n' } });
  host.execHandler = (command) => answer(command as readonly string[], host);
  return { host, ctx: { host, baseDir: '/' } as ResourceContext };
}

describe('group: apply (fake host)', () => {
  test('creates with groupadd, then sets members with gpasswd -M', async () => {
    const { host, ctx } = fakeGroups((argv, h) => {
      if (argv[0] === 'groupadd') h.addFile('/etc/group', `${GROUP}web:x:900:\n`);
      if (argv[0] === 'gpasswd') h.addFile('/etc/group', `${GROUP}web:x:900:bob,alice\n`);
      return {};
    });
    const params = { name: 'web', gid: 900, system: true, members: ['bob', 'alice'] };
    const applied = await kind.apply(ctx, params, await kind.check(ctx, params, node(params)), node(params));
    assert.deepEqual(host.execLog.map((c) => c.command), [
      ['groupadd', '-g', '900', '-r', 'web'],
      ['gpasswd', '-M', 'alice,bob', 'web'],
    ]);
    assert.deepEqual([applied.ok, applied.comment], [true, 'New group web created']);
    assert.deepEqual(applied.changes, { name: 'web', gid: 900, members: ['alice', 'bob'] });
  });

  test('updates gid and members; members compare as a set', async () => {
    const { host, ctx } = fakeGroups((argv, h) => {
      if (argv[0] === 'groupmod') h.addFile('/etc/group', 'root:x:0:\nstaff:x:51:alice\n');
      if (argv[0] === 'gpasswd') h.addFile('/etc/group', 'root:x:0:\nstaff:x:51:\n');
      return {};
    });
    assert.equal((await kind.check(ctx, { name: 'staff', members: ['alice', 'alice'] }, node({}))).inSync, true);
    const params = { name: 'staff', gid: 51, members: [] };
    const applied = await kind.apply(ctx, params, await kind.check(ctx, params, node(params)), node(params));
    assert.deepEqual(host.execLog.map((c) => c.command), [
      ['groupmod', '-g', '51', 'staff'],
      ['gpasswd', '-M', '', 'staff'],
    ]);
    assert.equal(applied.ok, true, applied.comment);
    assert.deepEqual(applied.changes, { gid: { old: 50, new: 51 }, members: { old: ['alice'], new: [] } });
  });

  test('a gpasswd failure fails the result', async () => {
    const { ctx } = fakeGroups((argv) => (argv[0] === 'gpasswd' ? { code: 3, stderr: 'gpasswd: user ghost does not exist\n' } : {}));
    const applied = await kind.apply(ctx, { name: 'staff', members: ['ghost'] }, { inSync: false }, node({}));
    assert.equal(applied.ok, false);
    assert.equal(applied.comment, 'Failed to set the members of group staff: gpasswd: user ghost does not exist');
  });

  test('on a simulating host, create and update report the plan without reading it back', async () => {
    const { host, ctx } = fakeGroups();
    Object.assign(host, { simulated: true });
    const created = await kind.apply(ctx, { name: 'web', gid: 900, members: ['bob'] }, { inSync: false }, node({}));
    assert.deepEqual([created.ok, created.changes], [true, { name: 'web', gid: 900, members: ['bob'] }]);
    const updated = await kind.apply(ctx, { name: 'staff', gid: 51 }, { inSync: false }, node({}));
    assert.deepEqual([updated.ok, updated.changes], [true, { gid: { old: 50, new: 51 } }]);
  });

  test('absent removes with groupdel', async () => {
    const { host, ctx } = fakeGroups();
    const applied = await kind.apply(ctx, { name: 'staff', state: 'absent' }, { inSync: false }, node({}));
    assert.deepEqual([applied.ok, applied.changes, applied.comment], [true, { staff: '' }, 'Removed group staff']);
    assert.deepEqual(host.execLog.map((c) => c.command), [['groupdel', 'staff']]);
  });
});

const integrationSkip =
  process.env.CAIRN_INTEGRATION !== '1' ? 'changes the machine: set CAIRN_INTEGRATION=1 (as root) to run' : process.getuid?.() !== 0 ? 'needs root' : false;

describe('group: a real group', () => {
  test('create, set members, change gid, remove', { skip: integrationSkip }, async () => {
    const name = `cairng${process.pid % 100000}`;
    try {
      const params = { name, members: ['root'] };
      const created = await kind.apply(local, params, await kind.check(local, params, node(params)), node(params));
      assert.equal(created.ok, true, created.comment);
      assert.deepEqual((created.changes as P).members, ['root']);
      assert.equal((await kind.check(local, params, node(params))).inSync, true);

      const gid = 47000 + (process.pid % 1000);
      const changed = { name, gid, members: [] };
      const updated = await kind.apply(local, changed, await kind.check(local, changed, node(changed)), node(changed));
      assert.equal(updated.ok, true, updated.comment);
      assert.equal((await kind.check(local, changed, node(changed))).inSync, true);

      const absent = { name, state: 'absent' };
      const removed = await kind.apply(local, absent, await kind.check(local, absent, node(absent)), node(absent));
      assert.equal(removed.ok, true, removed.comment);
      assert.equal((await kind.check(local, absent, node(absent))).inSync, true);
    } finally {
      try {
        execFileSync('groupdel', [name], { stdio: 'ignore' });
      } catch {
        // already removed by the test
      }
    }
  });
});
