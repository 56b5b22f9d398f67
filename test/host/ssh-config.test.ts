// OpenSSH's client config: what cairn reads of it (HostName, User, Port, IdentityFile, ProxyJump), with
// ssh's rules (first value wins, Host globs and negations, options before any Host for all, Include), and
// inventory values winning over it.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DiagnosticError, formatDiagnostic } from '../../src/core/diag.js';
import { hostsFor } from '../../src/host/fleet.js';
import { parseInventory } from '../../src/host/inventory.js';
import { SshConfig } from '../../src/host/ssh-config.js';
import { cairn, tempDir } from '../cli/cli-helpers.js';

const CONFIG = `# comment
User everyone

Host web? !web9
  HostName %h.example.net
  Port 2222
  IdentityFile ~/.ssh/web_%r

Host web1
  Port 3333

Host db
  HostName=10.0.1.5
  User "db admin"
  ProxyJump jump-user@bastion:2200

Host *
  Port 22
  IdentityFile %d/.ssh/id_default
  ProxyJump none

Match host web1
  User nobody
`;

test('ssh_config rules: first value wins, globs and negations, global options, tokens', () => {
  const c = SshConfig.parse(CONFIG, 'config', '/home/me');
  assert.deepEqual(c.lookup('web1', '/home/me'), { hostName: 'web1.example.net', user: 'everyone', port: 2222, identityFile: '/home/me/.ssh/web_everyone' });
  assert.deepEqual(c.lookup('web9', '/home/me'), { user: 'everyone', port: 22, identityFile: '/home/me/.ssh/id_default' });
  assert.deepEqual(c.lookup('DB', '/home/me'), { hostName: '10.0.1.5', user: 'everyone', port: 22, identityFile: '/home/me/.ssh/id_default', proxyJump: 'jump-user@bastion:2200' });
});

test('Include reads other files in place; a bad Port is a positioned diagnostic', () => {
  const home = tempDir('cairn-sshcfg-');
  fs.mkdirSync(join(home, '.ssh', 'conf.d'), { recursive: true });
  fs.writeFileSync(join(home, '.ssh', 'conf.d', 'a.conf'), 'Host inc\n  HostName included.example\n');
  fs.writeFileSync(join(home, '.ssh', 'config'), 'Include conf.d/*.conf\nHost inc\n  HostName later.example\n  Port 2200\n');
  const c = SshConfig.read(join(home, '.ssh', 'config'), home);
  assert.deepEqual(c.lookup('inc', home), { hostName: 'included.example', port: 2200 });
  assert.deepEqual(SshConfig.read(join(home, 'missing'), home).lookup('x', home), {});
  assert.throws(
    () => SshConfig.parse('Host a\n  Port ssh\n', 'cfg'),
    (e: unknown) => DiagnosticError.is(e) && formatDiagnostic(e.diagnostics[0] as never) === 'cfg:2:3: INV010 Port: expected a port number from 1 to 65535, found "ssh"',
  );
});

test('inventory values win; only what the inventory leaves unset comes from the config', () => {
  const home = tempDir('cairn-sshcfg-');
  const file = join(home, 'config');
  fs.writeFileSync(file, 'Host web1 web2 bastion\n  HostName %h.internal\n  User ops\n  Port 2200\n  IdentityFile /keys/ops\nHost web2\n  ProxyJump bastion\n');
  const inv = parseInventory('inv.yaml', 'defaults:\n  user: deploy\nhosts:\n  web1: {}\n  web2: {address: 10.0.0.2, key: /keys/mine}\n');
  const hosts = hostsFor(inv.hosts, inv, { acceptNewHostKeys: false, managedKnownHosts: join(home, 'kh'), connectTimeoutMs: 1000, sshConfig: file });
  const options = hosts.map((h) => (h as unknown as { options: Record<string, unknown> }).options);
  // web1: address, port and key from the config; the user from the inventory's defaults.
  assert.deepEqual([options[0]?.address, options[0]?.port, options[0]?.user, options[0]?.keyFile, options[0]?.jump], ['web1.internal', 2200, 'deploy', '/keys/ops', undefined]);
  // web2: its address and key are the inventory's; ssh matches the config on that address, so web2's
  // blocks do not apply.
  assert.deepEqual([options[1]?.address, options[1]?.port, options[1]?.keyFile, options[1]?.jump], ['10.0.0.2', 22, '/keys/mine', undefined]);
  const byName = parseInventory('inv.yaml', 'hosts:\n  web2: {}\n');
  const [web2] = hostsFor(byName.hosts, byName, { acceptNewHostKeys: false, managedKnownHosts: join(home, 'kh'), connectTimeoutMs: 1000, sshConfig: file });
  const o = (web2 as unknown as { options: { jump: Record<string, unknown> } }).options;
  // The jump host named by ProxyJump is looked up in the config too.
  assert.deepEqual(o.jump, { name: 'bastion', address: 'bastion.internal', port: 2200, user: 'ops', keyFile: '/keys/ops' });
  const none = hostsFor(byName.hosts, byName, { acceptNewHostKeys: false, managedKnownHosts: join(home, 'kh'), connectTimeoutMs: 1000, sshConfig: null });
  assert.equal((none[0] as unknown as { options: { address: string } }).options.address, 'web2');
});

test('cairn hosts shows the hosts as they will be connected, the config filling what the inventory leaves unset', () => {
  const home = tempDir('cairn-sshcfg-');
  fs.mkdirSync(join(home, '.ssh'));
  fs.writeFileSync(join(home, '.ssh', 'config'), 'Host web1\n  HostName 10.1.1.1\n  Port 2201\n  User ops\n  ProxyJump gw\n');
  fs.writeFileSync(join(home, 'inventory.yaml'), 'hosts:\n  web1: {}\n  web2: {address: 10.1.1.2}\n');
  const r = cairn(['hosts', '--inventory', join(home, 'inventory.yaml')], { cwd: home, env: { HOME: home } });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^web1 +10\.1\.1\.1:2201 +ops +- +gw +-$/m);
  assert.match(r.stdout, /^web2 +10\.1\.1\.2:22 /m);
  const none = cairn(['hosts', '--inventory', join(home, 'inventory.yaml'), '--ssh-config', 'none'], { cwd: home, env: { HOME: home } });
  assert.match(none.stdout, /^web1 +web1:22 /m);
  fs.writeFileSync(join(home, 'bad-config'), 'Host web1\n  Port twenty\n');
  const bad = cairn(['hosts', '--inventory', join(home, 'inventory.yaml'), '--ssh-config', join(home, 'bad-config')], { cwd: home, env: { HOME: home } });
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /bad-config:2:3: INV010 Port: expected a port number from 1 to 65535, found "twenty"\n 2 \|   Port twenty\n/);
});
