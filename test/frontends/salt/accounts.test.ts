/**
 * pkg, user and group states through the Salt runtime: on a FakeHost whose programs edit its own
 * /etc/passwd and /etc/group and answer dpkg-query, and (read-only, test=True) against this machine's
 * real dpkg and passwd data when they are there.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import type { Chunk } from '../../../src/frontends/salt/compile/index.js';
import { runChunks } from '../../../src/frontends/salt/run/index.js';
import { translate } from './render-helpers.js';
import { FakeHost } from '../../../src/host/fake.js';
import { LocalHost } from '../../../src/host/local.js';
import type { Host } from '../../../src/host/types.js';

function chunk(state: string, fun: string, name: string, args: Record<string, unknown> = {}, order = 10000): Chunk {
  return { __id__: name, __sls__: 'acc', __env__: 'base', state, fun, name, order, ...args } as Chunk;
}

async function run(host: Host, chunks: Chunk[], test = false) {
  const out = await runChunks(chunks, { test, failhard: false, jobs: 1, ctx: { host, baseDir: '/' }, translate });
  return out.running as Record<string, { result: boolean | null; comment: string; changes: Record<string, unknown> }>;
}

/** A Debian-like fake: useradd/groupadd append to the account files, dpkg-query knows `installed`. */
function fakeMachine(): FakeHost {
  const host = new FakeHost({
    files: { '/etc/passwd': 'root:x:0:0:root:/root:/bin/bash\n', '/etc/group': 'root:x:0:\n' },
  });
  host.execHandler = (command) => {
    const argv = [...(command as readonly string[])];
    const name = argv[argv.length - 1] as string;
    const opt = (flag: string) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
    if (argv[0] === 'groupadd') {
      host.addFile('/etc/group', `${host.contentOf('/etc/group')}${name}:x:${opt('-g') ?? '2000'}:\n`);
      return { code: 0 };
    }
    if (argv[0] === 'useradd') {
      host.addFile('/etc/passwd', `${host.contentOf('/etc/passwd')}${name}:x:${opt('-u') ?? '1500'}:${opt('-g') ?? '1500'}::${opt('-d') ?? `/home/${name}`}:${opt('-s') ?? '/bin/sh'}\n`);
      return { code: 0 };
    }
    if (argv[0] === 'dpkg-query') {
      const lines = argv.slice(3).map((p) => (p === 'installed' ? `${p}\tinstall ok installed\t1.0-1\n` : ''));
      return { code: lines.every((l) => l !== '') ? 0 : 1, stdout: lines.join(''), stderr: '' };
    }
    return { code: 1, stderr: `unexpected ${argv.join(' ')}` };
  };
  return host;
}

test('group.present then user.present on a fake machine: Salt comments, then nothing to do', async () => {
  const host = fakeMachine();
  const chunks = [chunk('group', 'present', 'web', { gid: 2100 }), chunk('user', 'present', 'deploy', { uid: 1600, gid: 2100, home: '/srv/deploy', shell: '/bin/bash', require: [{ group: 'web' }] }, 10001)];
  const first = await run(host, chunks);
  assert.equal(first['group_|-web_|-web_|-present']?.comment, 'New group web created');
  assert.equal(first['user_|-deploy_|-deploy_|-present']?.comment, 'New user deploy created');
  assert.match(host.contentOf('/etc/passwd') ?? '', /^deploy:x:1600:2100::\/srv\/deploy:\/bin\/bash$/m);
  const second = await run(host, chunks);
  assert.equal(second['user_|-deploy_|-deploy_|-present']?.comment, 'User deploy is present and up to date');
  assert.deepEqual(second['group_|-web_|-web_|-present']?.changes, {});
  const absent = await run(host, [chunk('user', 'absent', 'nobody-here')]);
  assert.equal(absent['user_|-nobody-here_|-nobody-here_|-absent']?.comment, 'User nobody-here is not present');
});

test('pkg.installed on a fake machine: installed is in sync; test=True names what would be installed', async () => {
  const host = fakeMachine();
  const ok = await run(host, [chunk('pkg', 'installed', 'installed')]);
  assert.equal(ok['pkg_|-installed_|-installed_|-installed']?.comment, 'Package installed is already installed');
  assert.equal(ok['pkg_|-installed_|-installed_|-installed']?.result, true);
});

const haveDpkg = existsSync('/var/lib/dpkg/status') && spawnSync('dpkg-query', ['-W', 'dpkg']).status === 0;

test('this machine, test=True: dpkg is installed, root is present with its real passwd data', { skip: haveDpkg ? false : 'no dpkg here' }, async () => {
  const host = new LocalHost();
  const r = await run(host, [chunk('pkg', 'installed', 'dpkg'), chunk('user', 'present', 'root', { uid: 0, home: '/root' }, 10001), chunk('group', 'present', 'root', { gid: 0 }, 10002)], true);
  assert.equal(r['pkg_|-dpkg_|-dpkg_|-installed']?.comment, 'Package dpkg is already installed');
  assert.equal(r['user_|-root_|-root_|-present']?.comment, 'User root is present and up to date');
  assert.equal(r['group_|-root_|-root_|-present']?.result, true);
});

test('CAIRN_INTEGRATION=1 as root: group.present and group.absent really run', { skip: process.env.CAIRN_INTEGRATION === '1' && process.getuid?.() === 0 ? false : 'needs CAIRN_INTEGRATION=1 and root' }, async () => {
  const host = new LocalHost();
  const name = `cairnsalt${process.pid}`;
  const made = await run(host, [chunk('group', 'present', name)]);
  assert.equal(made[`group_|-${name}_|-${name}_|-present`]?.comment, `New group ${name} created`);
  const gone = await run(host, [chunk('group', 'absent', name)]);
  assert.equal(gone[`group_|-${name}_|-${name}_|-absent`]?.result, true);
});
