import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { GraphNode } from '../../src/core/model.js';
import { FakeHost } from '../../src/host/fake.js';
import { LocalHost } from '../../src/host/local.js';
import type { ResourceContext } from '../../src/host/types.js';
import { findUser, gidByName, parseGroup, parsePasswd, readAccounts, supplementaryGroups, uidByName } from '../../src/resources/accounts.js';
import { kind } from '../../src/resources/user/index.js';

type P = Record<string, unknown>;
const node = (params: P): GraphNode => ({ id: 'u', type: 'user', name: 'u', params });
const local: ResourceContext = { host: new LocalHost(), baseDir: '/' };
const ABSENT = `cairn-nouser-${process.pid}`;
const ROOT = parsePasswd(readFileSync('/etc/passwd', 'utf8')).find((u) => u.name === 'root');

describe('accounts: parsing and lookups', () => {
  test('passwd and group lines; comments and malformed lines are skipped', () => {
    const users = parsePasswd('# comment\nroot:x:0:0:root:/root:/bin/bash\nbad:x:zero:0::/:/bin/sh\n+nis\nweb:x:33:33:Web,,,:/var/www:/usr/sbin/nologin\n');
    assert.deepEqual(users.map((u) => [u.name, u.uid, u.gid, u.home, u.shell]), [
      ['root', 0, 0, '/root', '/bin/bash'],
      ['web', 33, 33, '/var/www', '/usr/sbin/nologin'],
    ]);
    const groups = parseGroup('root:x:0:\nadm:x:4:syslog,alice\nbroken\n');
    assert.deepEqual(groups, [
      { name: 'root', gid: 0, members: [] },
      { name: 'adm', gid: 4, members: ['syslog', 'alice'] },
    ]);
    assert.deepEqual(supplementaryGroups({ users, groups }, 'alice'), ['adm']);
  });

  test('uid and gid by name from the real files', async () => {
    assert.equal(await uidByName(local.host, 'root'), 0);
    assert.equal(await gidByName(local.host, 'root'), 0);
    assert.equal(await uidByName(local.host, '1234'), 1234);
    assert.equal(await uidByName(local.host, ABSENT), undefined);
    assert.equal(await gidByName(local.host, ABSENT), undefined);
  });

  test('a host without the files has no accounts', async () => {
    const db = await readAccounts(new FakeHost());
    assert.deepEqual(db, { users: [], groups: [] });
  });
});

describe('user: validate', () => {
  const diags = (params: P) => kind.validate(params, node(params)).map((d) => d.message).join('\n');
  test('accepts every documented param', () => {
    assert.equal(diags({ name: 'web', uid: 900, gid: 'www-data', home: '/srv/web', shell: '/bin/sh', groups: ['adm'], system: true, createhome: false }), '');
    assert.equal(diags({ name: 'web', state: 'absent', purge: true }), '');
  });
  test('rejects unknown params, bad names and relative homes', () => {
    assert.match(diags({ name: 'web', password: 'x' }), /unknown param "password"/);
    assert.match(diags({ name: 'a:b' }), /param "name"/);
    assert.match(diags({ name: 'web', home: 'srv' }), /param "home"/);
    assert.match(diags({ name: 'web', uid: -1 }), /param "uid"/);
    assert.match(diags({}), /missing required param "name"/);
  });
});

describe('user: check against the real /etc/passwd', () => {
  test('root is present with uid 0', async () => {
    const params = { name: 'root', uid: 0, gid: 'root', home: ROOT?.home, shell: ROOT?.shell };
    const check = await kind.check(local, params, node(params));
    assert.deepEqual([check.inSync, check.comment], [true, 'User root is present and up to date']);
    assert.equal(check.outputs?.uid, 0);
    const byNumber = await kind.check(local, { name: 'root', gid: 0 }, node({}));
    assert.equal(byNumber.inSync, true);
  });

  test('a different uid or shell on root is drift', async () => {
    const check = await kind.check(local, { name: 'root', uid: 4242, shell: '/bin/cairn-shell' }, node({}));
    assert.equal(check.inSync, false);
    assert.deepEqual(check.changes, { uid: { old: 0, new: 4242 }, shell: { old: ROOT?.shell, new: '/bin/cairn-shell' } });
    assert.equal(check.comment, 'The following user attributes are set to be changed:\nuid: 4242\nshell: /bin/cairn-shell');
  });

  test('an absent user would be created', async () => {
    const params = { name: ABSENT, uid: 4321, groups: ['users', 'adm'] };
    const check = await kind.check(local, params, node(params));
    assert.equal(check.inSync, false);
    assert.equal(check.comment, `User ${ABSENT} set to be added`);
    assert.deepEqual(check.changes, { name: ABSENT, uid: 4321, groups: ['adm', 'users'] });
  });

  test('state absent: in sync for an absent user, removal for root (check only)', async () => {
    const absent = await kind.check(local, { name: ABSENT, state: 'absent' }, node({}));
    assert.deepEqual([absent.inSync, absent.comment], [true, `User ${ABSENT} is not present`]);
    const root = await kind.check(local, { name: 'root', state: 'absent' }, node({}));
    assert.deepEqual([root.inSync, root.changes, root.comment], [false, { root: 'removed' }, 'User root set for removal']);
    assert.ok(findUser(await readAccounts(local.host), 'root'), 'root is still there');
  });
});

const PASSWD = 'root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000:Alice:/home/alice:/bin/bash\n';
const GROUP = 'root:x:0:\nalice:x:1000:\nadm:x:4:alice\nstaff:x:50:\nusers:x:100:\n';

function fakeAccounts(answer: (argv: readonly string[]) => { code?: number; stderr?: string } = () => ({})) {
  const host = new FakeHost({ files: { '/etc/passwd': PASSWD, '/etc/group': GROUP } });
  host.execHandler = (command) => answer(command as readonly string[]);
  return { host, ctx: { host, baseDir: '/' } as ResourceContext };
}

describe('user: supplementary groups and apply (fake host)', () => {
  test('groups compare as a set and ignore the primary group', async () => {
    const { ctx } = fakeAccounts();
    const same = await kind.check(ctx, { name: 'alice', groups: ['adm', 'alice'] }, node({}));
    assert.equal(same.inSync, true);
    const more = await kind.check(ctx, { name: 'alice', groups: ['staff', 'adm'] }, node({}));
    assert.deepEqual(more.changes, { groups: { old: ['adm'], new: ['adm', 'staff'] } });
    const none = await kind.check(ctx, { name: 'alice', groups: [] }, node({}));
    assert.deepEqual(none.changes, { groups: { old: ['adm'], new: [] } });
  });

  test('a primary group given by name compares by gid', async () => {
    const { ctx } = fakeAccounts();
    assert.equal((await kind.check(ctx, { name: 'alice', gid: 'alice' }, node({}))).inSync, true);
    const other = await kind.check(ctx, { name: 'alice', gid: 'users' }, node({}));
    assert.deepEqual(other.changes, { gid: { old: 'alice', new: 'users' } });
    const missing = await kind.check(ctx, { name: 'alice', gid: 'not-yet' }, node({}));
    assert.equal(missing.inSync, false);
  });

  test('creates with useradd and the given attributes', async () => {
    const { host, ctx } = fakeAccounts((argv) => {
      if (argv[0] === 'useradd') host.addFile('/etc/passwd', `${PASSWD}web:x:900:100::/srv/web:/bin/sh\n`);
      return {};
    });
    const params = { name: 'web', uid: 900, gid: 'users', home: '/srv/web', shell: '/bin/sh', groups: ['staff'], system: true, createhome: false };
    const applied = await kind.apply(ctx, params, await kind.check(ctx, params, node(params)), node(params));
    assert.deepEqual(host.execLog.map((c) => c.command), [
      ['useradd', '-u', '900', '-g', 'users', '-d', '/srv/web', '-s', '/bin/sh', '-G', 'staff', '-r', '-M', 'web'],
    ]);
    assert.equal(applied.ok, true);
    assert.equal(applied.comment, 'New user web created');
    assert.deepEqual(applied.changes, { name: 'web', uid: 900, gid: 100, groups: [], home: '/srv/web', shell: '/bin/sh', fullname: '' });
  });

  test('updates only what differs with usermod', async () => {
    const { host, ctx } = fakeAccounts((argv) => {
      if (argv[0] === 'usermod') {
        host.addFile('/etc/passwd', PASSWD.replace(':1000:1000:Alice:/home/alice:/bin/bash', ':1000:1000:Alice:/home/alice:/bin/zsh'));
        host.addFile('/etc/group', GROUP.replace('staff:x:50:', 'staff:x:50:alice'));
      }
      return {};
    });
    const params = { name: 'alice', uid: 1000, shell: '/bin/zsh', groups: ['adm', 'staff'] };
    const applied = await kind.apply(ctx, params, await kind.check(ctx, params, node(params)), node(params));
    assert.deepEqual(host.execLog.map((c) => c.command), [['usermod', '-s', '/bin/zsh', '-G', 'adm,staff', 'alice']]);
    assert.equal(applied.ok, true, applied.comment);
    assert.equal(applied.comment, 'Updated user alice');
    assert.deepEqual(applied.changes, { shell: { old: '/bin/bash', new: '/bin/zsh' }, groups: { old: ['adm'], new: ['adm', 'staff'] } });
  });

  test('on a simulating host, create and update report the plan without reading it back', async () => {
    const { host, ctx } = fakeAccounts();
    Object.assign(host, { simulated: true });
    const created = await kind.apply(ctx, { name: 'web', uid: 900 }, { inSync: false }, node({}));
    assert.deepEqual([created.ok, created.changes, created.comment], [true, { name: 'web', uid: 900 }, 'New user web created']);
    const updated = await kind.apply(ctx, { name: 'alice', shell: '/bin/zsh' }, { inSync: false }, node({}));
    assert.deepEqual([updated.ok, updated.changes], [true, { shell: { old: '/bin/bash', new: '/bin/zsh' } }]);
  });

  test('a failing useradd is a failed result with its message', async () => {
    const { ctx } = fakeAccounts(() => ({ code: 9, stderr: "useradd: user 'web' already exists\n" }));
    const applied = await kind.apply(ctx, { name: 'web' }, { inSync: false }, node({}));
    assert.equal(applied.ok, false);
    assert.equal(applied.comment, "Failed to create new user web: useradd: user 'web' already exists");
  });

  test('absent removes with userdel (-r with purge); nothing to do when gone', async () => {
    const { host, ctx } = fakeAccounts();
    const applied = await kind.apply(ctx, { name: 'alice', state: 'absent', purge: true }, { inSync: false }, node({}));
    assert.deepEqual([applied.ok, applied.changes, applied.comment], [true, { alice: 'removed' }, 'Removed user alice']);
    assert.deepEqual(host.execLog.map((c) => c.command), [['userdel', '-r', 'alice']]);
    const gone = await kind.apply(ctx, { name: 'nobody-here', state: 'absent' }, { inSync: true }, node({}));
    assert.deepEqual([gone.ok, gone.comment], [true, 'User nobody-here is not present']);
  });
});

const integrationSkip =
  process.env.CAIRN_INTEGRATION !== '1' ? 'changes the machine: set CAIRN_INTEGRATION=1 (as root) to run' : process.getuid?.() !== 0 ? 'needs root' : false;

describe('user: a real account', () => {
  test('create, update, and remove a user', { skip: integrationSkip }, async () => {
    const name = `cairnu${process.pid % 100000}`;
    const home = `/tmp/${name}-home`;
    try {
      const params = { name, home, shell: '/bin/sh', groups: ['users'] };
      const check = await kind.check(local, params, node(params));
      assert.equal(check.inSync, false);
      const created = await kind.apply(local, params, check, node(params));
      assert.equal(created.ok, true, created.comment);
      assert.equal(created.comment, `New user ${name} created`);
      assert.ok(existsSync(home), 'createhome made the home directory');
      assert.equal((await kind.check(local, params, node(params))).inSync, true);

      const changed = { ...params, shell: '/bin/bash', groups: [] };
      const updated = await kind.apply(local, changed, await kind.check(local, changed, node(changed)), node(changed));
      assert.equal(updated.ok, true, updated.comment);
      assert.deepEqual(updated.changes, { shell: { old: '/bin/sh', new: '/bin/bash' }, groups: { old: ['users'], new: [] } });
      assert.equal((await kind.check(local, changed, node(changed))).inSync, true);

      const absent = { name, state: 'absent', purge: true };
      const removed = await kind.apply(local, absent, await kind.check(local, absent, node(absent)), node(absent));
      assert.equal(removed.ok, true, removed.comment);
      assert.equal((await kind.check(local, absent, node(absent))).inSync, true);
    } finally {
      try {
        execFileSync('userdel', ['-r', name], { stdio: 'ignore' });
      } catch {
        // already removed by the test
      }
    }
  });
});
