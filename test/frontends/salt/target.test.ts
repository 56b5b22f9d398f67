// A minion that is not this machine: grains from its facts, render-time commands and file functions on it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as fs from 'node:fs';
import { grains, loadPillar, renderHighstate, renderSls, showTop } from '../../../src/frontends/salt/render/index.js';
import type { SaltTarget } from '../../../src/frontends/salt/types.js';
import { FakeHost } from '../../../src/host/fake.js';
import { SimulatedHost } from '../../../src/host/simulated.js';
import { tree } from './render-helpers.js';

const argsOf = (r: ReturnType<typeof renderSls>, id: string): Record<string, unknown> =>
  Object.fromEntries(Object.entries(Object.assign({}, ...((r.high.states[id]?.test as unknown[]) ?? []).filter((a) => typeof a === 'object'))).filter(([k]) => k !== 'order'));

/** A fake minion unlike any machine the tests run on: another OS, architecture, user and addresses. */
function fakeMinion(): { host: FakeHost; target: () => Promise<SaltTarget> } {
  const host = new FakeHost({
    name: 'db7',
    files: { '/etc/minion-only.conf': 'role=db\n' },
    facts: {
      os: 'Linux',
      osFamily: 'rhel',
      osRelease: { ID: 'rocky', NAME: 'Rocky Linux', VERSION_ID: '9.3', VERSION_CODENAME: '' },
      kernel: '5.14.0-fake.el9',
      kernelVersion: '#1 SMP fake-build',
      arch: 'aarch64',
      hostname: 'db7.dc2.example.test',
      fqdn: 'db7.dc2.example.test',
      env: { PATH: '/opt/minion/bin:/usr/bin', SHELL: '/bin/zsh' },
      ipAddresses: ['198.51.100.7'],
      ipv4Interfaces: { lo: ['127.0.0.1'], ens5: ['198.51.100.7'] },
      cpuCount: 96,
      cpuModel: 'Fake Neoverse',
      memoryBytes: 512 * 1024 ** 3,
      user: { name: 'svc', uid: 4242, gid: 4343, group: 'svcgrp' },
      machineId: 'f'.repeat(32),
    },
    exec: (command, options) => {
      const argv = typeof command === 'string' ? ['/bin/sh', '-c', command] : [...command];
      if (argv[0] === '/bin/sh' && argv[2] === 'hostname') return { stdout: 'db7-from-the-minion\n' };
      // The #!py renderer's python3 runs on the minion: this one answers with what its run() would return.
      if (argv[0] === 'python3') return { stdout: JSON.stringify({ py: { 'test.nop': [{ ran_on: 'the minion', sls: (JSON.parse(String(options.stdin)) as { names: { sls: string } }).names.sls }] } }) };
      if (argv[0] === 'cat' && argv[2] === '/etc/minion-only.conf') return { stdout: 'role=db\n' };
      if (argv[0] === '/bin/sh' && argv[2]?.includes('[ -f "$1" ]')) return { stdout: argv[4] === '/etc/minion-only.conf' ? 'file\n' : '' };
      return { code: 127, stderr: `cannot run ${argv[0]}: command not found (ENOENT)\n` };
    },
  });
  return {
    host,
    target: async () => ({ facts: await host.facts(), execSync: (c, o) => host.execSync(c, o) }),
  };
}

test('grains come from the target\'s facts, not from the machine running cairn', async () => {
  const m = fakeMinion();
  const t = tree(
    {
      'salt/g.sls': [
        'g:',
        '  test.nop:',
        '    - os: {{ grains.os }} {{ grains.os_family }} {{ grains.osrelease }} {{ grains.osarch }} {{ grains.cpuarch }}',
        '    - kernel: "{{ grains.kernel }} {{ grains.kernelrelease }} {{ grains.kernelversion }}"',
        '    - names: {{ grains.id }} {{ grains.host }} {{ grains.fqdn }} {{ grains.domain }}',
        '    - hw: {{ grains.num_cpus }} {{ grains.mem_total }} {{ grains.cpu_model }}',
        '    - net: {{ grains.ipv4 | join(",") }} {{ grains.ip4_interfaces.ens5[0] }}',
        '    - who: {{ grains.username }} {{ grains.uid }} {{ grains.gid }} {{ grains.groupname }}',
        '    - env: {{ grains.path }} {{ grains.shell }} {{ grains.machine_id }}',
        "    - get: {{ salt['grains.get']('os') }}",
        '',
      ].join('\n'),
    },
    { minionId: 'db7', target: await m.target() },
  );
  const r = renderSls(['g'], t.opts);
  assert.deepEqual(r.errors, []);
  assert.deepEqual(argsOf(r, 'g'), {
    os: 'Rocky RedHat 9.3 arm64 aarch64',
    kernel: 'Linux 5.14.0-fake.el9 #1 SMP fake-build',
    names: 'db7 db7 db7.dc2.example.test dc2.example.test',
    hw: '96 524288 Fake Neoverse',
    net: '127.0.0.1,198.51.100.7 198.51.100.7',
    who: 'svc 4242 4343 svcgrp',
    env: `/opt/minion/bin:/usr/bin /bin/zsh ${'f'.repeat(32)}`,
    get: 'Rocky',
  });
  assert.equal(m.host.calls.facts, 1);
});

test('render-time commands and file functions run on the target', async () => {
  const m = fakeMinion();
  const t = tree(
    {
      'salt/c.sls': [
        'c:',
        '  test.nop:',
        "    - out: {{ salt['cmd.run']('hostname', python_shell=True) }}",
        "    - code: {{ salt['cmd.retcode']('no-such-tool --x') }}",
        "    - exists: {{ salt['file.file_exists']('/etc/minion-only.conf') }} {{ salt['file.file_exists']('/etc/os-release') }}",
        "    - read: {{ salt['file.read']('/etc/minion-only.conf') | trim }}",
        '',
      ].join('\n'),
    },
    { minionId: 'db7', target: await m.target() },
  );
  const r = renderSls(['c'], t.opts);
  assert.deepEqual(r.errors, []);
  // /etc/os-release exists on the machine running the tests, but not on the minion.
  assert.deepEqual(argsOf(r, 'c'), { out: 'db7-from-the-minion', code: 127, exists: 'True False', read: 'role=db' });
  assert.deepEqual(
    m.host.execLog.map((c) => (typeof c.command === 'string' ? c.command : c.command.join(' ')).slice(0, 30)),
    ['/bin/sh -c hostname', 'no-such-tool --x', '/bin/sh -c if [ -f "$1" ]; the', '/bin/sh -c if [ -f "$1" ]; the', 'cat -- /etc/minion-only.conf'],
  );
});

test('top files and pillar top files match the target\'s grains, per minion', async () => {
  const m = fakeMinion();
  const files = {
    'salt/top.sls': "base:\n  'G@os_family:RedHat':\n    - match: compound\n    - rh\n  'os:Debian':\n    - match: grain\n    - deb\n  'db*':\n    - db\n",
    'salt/rh.sls': 'rh:\n  test.nop: []\n',
    'salt/deb.sls': 'deb:\n  test.nop: []\n',
    'salt/db.sls': "db:\n  test.nop:\n    - role: {{ pillar.role }}\n",
    'pillar/top.sls': "base:\n  'cpuarch:aarch64':\n    - match: grain\n    - arm\n  '*':\n    - common\n",
    'pillar/arm.sls': 'role: arm-db\n',
    'pillar/common.sls': 'common: yes\n',
  };
  const remote = tree(files, { minionId: 'db7', target: await m.target() });
  assert.deepEqual(showTop(remote.opts).top, { base: ['rh', 'db'] });
  assert.deepEqual(loadPillar(remote.opts), { role: 'arm-db', common: true });
  const r = renderHighstate(remote.opts);
  assert.deepEqual(r.errors, []);
  assert.deepEqual(Object.keys(r.high.states), ['rh', 'db']);
  assert.deepEqual(argsOf(r, 'db'), { role: 'arm-db' });
});

test('the #!py renderer runs python3 on the target, given the file and the minion\'s grains', async () => {
  const m = fakeMinion();
  const t = tree({ 'salt/p.sls': '#!py\ndef run():\n    return {}\n' }, { minionId: 'db7', target: await m.target() });
  const r = renderSls(['p'], t.opts);
  assert.deepEqual(r.errors, []);
  assert.deepEqual(argsOf(r, 'py'), { ran_on: 'the minion', sls: 'p' });
  const sent = JSON.parse(String(m.host.execLog.find((c) => c.command[0] === 'python3')?.options.stdin)) as { grains: Record<string, unknown>; source: string };
  assert.equal(sent.grains.os, 'Rocky');
  assert.match(sent.source, /def run/);
});

test('without a target, grains are this machine\'s, read by the same facts script', () => {
  const g = grains();
  assert.equal(g.kernel, 'Linux');
  assert.equal(g.kernelrelease, fs.readFileSync('/proc/sys/kernel/osrelease', 'utf8').trim());
  assert.equal(g.kernelversion, fs.readFileSync('/proc/sys/kernel/version', 'utf8').trim());
  assert.equal(g.nodename, fs.readFileSync('/proc/sys/kernel/hostname', 'utf8').trim());
  assert.equal(g.uid, process.getuid?.());
  assert.ok((g.ipv4 as string[]).includes('127.0.0.1'), 'Salt keeps loopback in ipv4');
});

test('a simulated host passes render-time commands to the machine it wraps (Salt runs them in test mode too)', () => {
  const inner = new FakeHost({ exec: (c) => ({ stdout: `ran ${String(c)}\n` }) });
  const sim = new SimulatedHost(inner);
  assert.equal(sim.execSync('hostname').stdout, 'ran hostname\n');
  assert.deepEqual(inner.execLog.map((c) => c.command), ['hostname']);
  assert.deepEqual(sim.actions, []);
});

test('grains are read only when something reads them: a plain SLS under a glob target needs no facts', async () => {
  const m = fakeMinion();
  const base = await m.target();
  let reads = 0;
  const counted: SaltTarget = {
    get facts() {
      reads++;
      return base.facts;
    },
    execSync: base.execSync,
  };
  const files = {
    'salt/top.sls': "base:\n  'db*':\n    - plain\n",
    'salt/plain.sls': 'plain:\n  test.nop:\n    - x: 1\n',
    'salt/uses.sls': 'uses:\n  test.nop:\n    - os: {{ grains.os }}\n',
  };
  const plain = renderHighstate(tree(files, { minionId: 'db7', target: counted }).opts);
  assert.deepEqual(plain.errors, []);
  assert.deepEqual(Object.keys(plain.high.states), ['plain']);
  assert.equal(reads, 0);
  const uses = renderSls(['uses'], tree(files, { minionId: 'db7', target: counted }).opts);
  assert.deepEqual(argsOf(uses, 'uses'), { os: 'Rocky' });
  assert.equal(reads, 1);
  // A grain matcher in the top file reads them too.
  const grained = tree({ 'salt/top.sls': "base:\n  'os:Rocky':\n    - match: grain\n    - plain\n", 'salt/plain.sls': files['salt/plain.sls'] }, { minionId: 'db7', target: counted });
  assert.deepEqual(Object.keys(renderHighstate(grained.opts).high.states), ['plain']);
  assert.equal(reads, 2);
});
