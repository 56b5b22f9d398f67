/** The SSH host against real OpenSSH servers on loopback: the conformance suite, host keys, a jump host. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { KnownHosts } from '../../src/host/known-hosts.js';
import { SshHost, type SshHostOptions } from '../../src/host/ssh.js';
import type { Host } from '../../src/host/types.js';
import { diskRoot, hostConformance } from './suite.js';
import { BECOME_USER, ensureBecomeUser, sshdMissing, startSshd, type TestSshd, testClientKey } from './sshd.js';

const missing = sshdMissing();
const work = fs.mkdtempSync('/tmp/cairn-ssh-test-');
// ssh-add reads the passphrase from this program (no terminal in tests).
fs.writeFileSync(join(work, 'askpass'), "#!/bin/sh\necho 'secret phrase'\n", { mode: 0o700 });
after(() => fs.rmSync(work, { recursive: true, force: true }));

function knownHosts(name = 'known_hosts'): KnownHosts {
  return new KnownHosts([], join(work, name));
}

function sshHost(server: TestSshd, extra: Partial<SshHostOptions> = {}, security: { knownHosts?: KnownHosts; accept?: boolean } = {}): SshHost {
  return new SshHost(
    { name: `h${server.port}`, address: '127.0.0.1', port: server.port, user: 'root', keyFile: testClientKey(), ...extra },
    { knownHosts: security.knownHosts ?? knownHosts(), acceptNewHostKeys: security.accept ?? true, connectTimeoutMs: 10_000, agentSocket: '' },
  );
}

if (missing) {
  test('SSH host', { skip: missing }, () => {});
} else {
  let server: TestSshd;
  const becomeProblem = ensureBecomeUser();
  before(async () => {
    server = await startSshd();
  });
  after(() => server?.stop());

  /**
   * One connection for a whole suite, as in a run (the suite closes its host after every test; here that
   * close is kept for the end, so the suite does not pay a handshake per test). Closing and reopening is
   * covered by its own test below.
   */
  const sharedHost = (make: () => SshHost): (() => Host) => {
    let real: SshHost | undefined;
    after(() => real?.close());
    return () => {
      real ??= make();
      const host = real;
      return new Proxy(host, { get: (t, key) => (key === 'close' ? async () => {} : Reflect.get(t, key, t)) }) as Host;
    };
  };
  const rootHost = sharedHost(() => sshHost(server));
  hostConformance('SshHost (root)', () => ({ host: rootHost(), root: diskRoot(), done() {} }), { runsCommands: true, realNetwork: true });
  if (becomeProblem) test('SshHost (become)', { skip: becomeProblem }, () => {});
  else {
    const becomeHost = sharedHost(() => sshHost(server, { user: BECOME_USER, become: true }));
    hostConformance('SshHost (become)', () => ({ host: becomeHost(), root: diskRoot(), done() {} }), { runsCommands: true, realNetwork: true });
  }

  describe('SshHost specifics', () => {
    test('close ends the connection; the next operation opens a new one', async () => {
      const host = sshHost(server);
      const root = diskRoot();
      try {
        for (let i = 0; i < 3; i++) {
          await host.open();
          await host.close();
          await host.close();
          assert.equal((await host.readFile(join(root, 'seed.txt'))).toString(), 'seed\n');
          assert.equal((await host.exec(['echo', 'again'])).stdout, 'again\n');
          await host.close();
        }
      } finally {
        await host.close();
      }
    });

    test('become acts as root: files written over SFTP belong to root, commands run as root', async () => {
      if (becomeProblem) return;
      const root = diskRoot();
      const host = sshHost(server, { user: BECOME_USER, become: true });
      try {
        await host.writeFileAtomic(join(root, 'owned'), 'x', { mode: 0o600 });
        const st = fs.statSync(join(root, 'owned'));
        assert.equal(st.uid, 0);
        assert.equal(st.mode & 0o7777, 0o600);
        assert.equal((await host.exec(['id', '-u'])).stdout, '0\n');
      } finally {
        await host.close();
      }
      const plain = sshHost(server, { user: BECOME_USER });
      try {
        assert.notEqual((await plain.exec(['id', '-u'])).stdout, '0\n');
      } finally {
        await plain.close();
      }
    });

    test('a no-op check of many files costs a few sequential round trips, not one per file', async () => {
      const root = diskRoot();
      for (let i = 0; i < 200; i++) fs.writeFileSync(join(root, `f${i}`), `content ${i}\n`);
      const host = sshHost(server);
      try {
        await host.open();
        await Promise.all(
          Array.from({ length: 200 }, async (_, i) => {
            const st = await host.lstat(join(root, `f${i}`));
            assert.equal(st?.type, 'file');
            assert.equal((await host.readFile(join(root, `f${i}`))).toString(), `content ${i}\n`);
          }),
        );
        // lstat, then open; fstat ∥ read; close: five requests each, in three waves.
        assert.equal(host.stats.requests, 200 * 5);
        // Three waves when nothing else runs; a loaded machine may split one, never into one per file.
        assert.ok(host.stats.roundTrips <= 10, `${host.stats.roundTrips} sequential round trips`);
      } finally {
        await host.close();
      }
    });

    test('probeTcp works where the server forbids forwarding (a shell probe on the target)', async () => {
      const closed = await startSshd({ allowForwarding: false });
      const host = sshHost(closed);
      try {
        assert.deepEqual(await host.probeTcp('127.0.0.1', server.port, 5000), { ok: true });
        const { freePort } = await import('./sshd.js');
        const refused = await host.probeTcp('127.0.0.1', await freePort(), 5000);
        assert.equal(refused.ok, false);
      } finally {
        await host.close();
        closed.stop();
      }
    });

    test('owners are exact: a requested uid/gid is set on the written file', async () => {
      const root = diskRoot();
      const host = sshHost(server);
      try {
        await host.writeFileAtomic(join(root, 'o'), 'o', { uid: 1234, gid: 4321, mode: 0o640 });
        const st = fs.statSync(join(root, 'o'));
        assert.deepEqual([st.uid, st.gid, st.mode & 0o7777], [1234, 4321, 0o640]);
        await host.chown(join(root, 'o'), 99, -1);
        assert.deepEqual([fs.statSync(join(root, 'o')).uid, fs.statSync(join(root, 'o')).gid], [99, 4321]);
      } finally {
        await host.close();
      }
    });
  });

  describe('host keys', () => {
    test('an unknown key is refused without --accept-new-host-keys, recorded with it, then known', async () => {
      const kh = knownHosts('kh-accept');
      const refused = sshHost(server, {}, { knownHosts: kh, accept: false });
      await assert.rejects(refused.open(), (e: Error) => {
        assert.match(e.message, new RegExp(`host key of \\[127\\.0\\.0\\.1\\]:${server.port} is not known \\(ssh-ed25519 SHA256:`));
        assert.match(e.message, /--accept-new-host-keys/);
        return true;
      });
      assert.equal(fs.existsSync(kh.managedFile), false, 'nothing recorded when refused');
      const accepting = sshHost(server, {}, { knownHosts: kh, accept: true });
      await accepting.open();
      await accepting.close();
      const recorded = fs.readFileSync(kh.managedFile, 'utf8');
      assert.equal(recorded, `[127.0.0.1]:${server.port} ${server.hostPublicKey.split(' ').slice(0, 2).join(' ')}\n`);
      const again = sshHost(server, {}, { knownHosts: new KnownHosts([], kh.managedFile), accept: false });
      await again.open();
      await again.close();
    });

    test('a hashed OpenSSH known_hosts entry is honoured', async () => {
      const file = join(work, 'openssh_known_hosts');
      fs.writeFileSync(file, `[127.0.0.1]:${server.port} ${server.hostPublicKey}\n`);
      const { execFileSync } = await import('node:child_process');
      execFileSync('ssh-keygen', ['-H', '-f', file], { stdio: 'ignore' });
      assert.match(fs.readFileSync(file, 'utf8'), /^\|1\|/);
      const host = sshHost(server, {}, { knownHosts: new KnownHosts([file], join(work, 'unused-managed')), accept: false });
      await host.open();
      await host.close();
    });

    test('a changed key is refused even with --accept-new-host-keys, naming the file and line', async () => {
      const other = await startSshd();
      try {
        const file = join(work, 'changed_known_hosts');
        // The other server's key recorded under this server's name: what an attacker in the middle looks like.
        fs.writeFileSync(file, `# comment\n[127.0.0.1]:${server.port} ${other.hostPublicKey}\n`);
        const host = sshHost(server, {}, { knownHosts: new KnownHosts([file], join(work, 'managed-changed')), accept: true });
        await assert.rejects(host.open(), (e: Error) => {
          assert.match(e.message, new RegExp(`HOST KEY CHANGED for \\[127\\.0\\.0\\.1\\]:${server.port}`));
          assert.ok(e.message.includes(`${file}:2`), e.message);
          return true;
        });
        assert.equal(fs.existsSync(join(work, 'managed-changed')), false);
      } finally {
        other.stop();
      }
    });
  });

  describe('execSync through OpenSSH\'s client', () => {
    test('it trusts exactly the keys the run trusts: one recorded by the run is accepted, a changed one refused', async () => {
      const kh = knownHosts('kh-sync');
      const host = sshHost(server, {}, { knownHosts: kh, accept: true });
      await host.open();
      const r = host.execSync('printf %s "$0-ok"');
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, '/bin/sh-ok');
      await host.close();
      const other = await startSshd();
      try {
        const file = join(work, 'sync_changed_known_hosts');
        fs.writeFileSync(file, `[127.0.0.1]:${server.port} ${other.hostPublicKey}\n`);
        const changed = sshHost(server, {}, { knownHosts: new KnownHosts([file], join(work, 'sync-managed-changed')), accept: true });
        const refused = changed.execSync(['true']);
        assert.equal(refused.code, 255);
        assert.match(refused.stderr, new RegExp(`^h${server.port}: ssh failed: .*(REMOTE HOST IDENTIFICATION HAS CHANGED|Host key verification failed)`, 's'));
      } finally {
        other.stop();
      }
    });
  });

  describe('jump host', () => {
    test('a target reached through a jump host; the target refuses direct forwarding itself', async () => {
      const jump = await startSshd({ allowForwarding: true });
      const target = await startSshd({ allowForwarding: false });
      try {
        const host = sshHost(target, { jump: { name: 'bastion', address: '127.0.0.1', port: jump.port, user: 'root', keyFile: testClientKey() } });
        const facts = await host.facts();
        assert.equal(facts.os, 'Linux');
        const root = diskRoot();
        await host.writeFileAtomic(join(root, 'via-jump'), 'hop\n');
        assert.equal(fs.readFileSync(join(root, 'via-jump'), 'utf8'), 'hop\n');
        await host.close();
        const closedJump = await startSshd({ allowForwarding: false });
        const refused = sshHost(target, { jump: { name: 'bastion', address: '127.0.0.1', port: closedJump.port, user: 'root', keyFile: testClientKey() } });
        await assert.rejects(refused.open(), /jump host bastion cannot reach 127\.0\.0\.1:\d+/);
        closedJump.stop();
      } finally {
        jump.stop();
        target.stop();
      }
    });
  });

  describe('authentication', () => {
    test('through ssh-agent, with an encrypted key that cairn itself cannot read', async () => {
      const { execFileSync, spawn } = await import('node:child_process');
      const key = join(work, 'encrypted_key');
      execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'secret phrase', '-f', key]);
      // The server must accept this key too: add it to the test server's authorized keys.
      const authorized = join(server.hostKeyFile, '..', 'authorized_keys');
      fs.appendFileSync(authorized, fs.readFileSync(`${key}.pub`));
      const withoutAgent = sshHost(server, { keyFile: key });
      await assert.rejects(withoutAgent.open(), { message: `h${server.port}: key file ${key} is encrypted: load it into ssh-agent (ssh-add ${key})` });
      const socket = join(work, 'agent.sock');
      const agent = spawn('ssh-agent', ['-D', '-a', socket], { stdio: 'ignore' });
      try {
        for (let i = 0; i < 100 && !fs.existsSync(socket); i++) await new Promise((r) => setTimeout(r, 20));
        execFileSync('ssh-add', [key], { env: { ...process.env, SSH_AUTH_SOCK: socket, SSH_ASKPASS: join(work, 'askpass'), SSH_ASKPASS_REQUIRE: 'force', DISPLAY: ':0' }, stdio: 'ignore', input: '' });
        const host = new SshHost(
          { name: 'agent', address: '127.0.0.1', port: server.port, user: 'root', keyFile: key },
          { knownHosts: knownHosts(), acceptNewHostKeys: true, connectTimeoutMs: 10_000, agentSocket: socket },
        );
        assert.equal((await host.exec(['echo', 'through the agent'])).stdout, 'through the agent\n');
        await host.close();
      } finally {
        agent.kill();
      }
    });
  });

  describe('connection errors', () => {
    test('a missing key file and a closed port say so, naming the host', async () => {
      const noKey = sshHost(server, { keyFile: join(work, 'no-such-key') });
      await assert.rejects(noKey.open(), { message: `h${server.port}: cannot read key file ${join(work, 'no-such-key')}: no such file` });
      const { freePort } = await import('./sshd.js');
      const port = await freePort();
      const closed = new SshHost(
        { name: 'gone', address: '127.0.0.1', port, user: 'root', keyFile: testClientKey() },
        { knownHosts: knownHosts(), acceptNewHostKeys: true, connectTimeoutMs: 5000, agentSocket: '' },
      );
      await assert.rejects(closed.open(), { message: `gone: connection refused by 127.0.0.1:${port}` });
    });

    test('a server that accepts but never speaks times out', async () => {
      const net = await import('node:net');
      const sockets: import('node:net').Socket[] = [];
      const silent = net.createServer((s) => sockets.push(s));
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const port = (silent.address() as import('node:net').AddressInfo).port;
      const host = new SshHost(
        { name: 'mute', address: '127.0.0.1', port, user: 'root', keyFile: testClientKey() },
        { knownHosts: knownHosts(), acceptNewHostKeys: true, connectTimeoutMs: 300, agentSocket: '' },
      );
      try {
        await assert.rejects(host.open(), { message: `mute: timed out connecting to 127.0.0.1:${port}` });
      } finally {
        for (const s of sockets) s.destroy();
        silent.close();
      }
    });
  });
}
