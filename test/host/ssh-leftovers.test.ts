/**
 * Temp files of an interrupted write on an SSH host are removed by the next write of the same path:
 * those of a dead writer on this controller at once, those of another controller (or the older name form)
 * once untouched for ten minutes; a live writer's, another path's and anything else are left alone.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { KnownHosts } from '../../src/host/known-hosts.js';
import { SshHost } from '../../src/host/ssh.js';
import { CONTROLLER, isAbandoned, parseLeftover, STALE_MS, sshTempName } from '../../src/host/ssh-leftovers.js';
import { CAIRN } from '../cli/cli-helpers.js';
import { sshdMissing, startSshd, type TestSshd, testClientKey } from './sshd.js';

/** The pid of a process that has already ended. */
function deadPid(): number {
  const pid = spawnSync('true').pid;
  assert.ok(pid !== undefined && pid > 0);
  return pid;
}

test('temp names of an SSH write name the controller, the process and the file', () => {
  const name = sshTempName('/srv/app/conf').split('/').pop() ?? '';
  const l = parseLeftover(name);
  assert.deepEqual(l && { target: l.target, controller: l.controller, pid: l.pid }, { target: 'conf', controller: CONTROLLER, pid: process.pid });
  assert.equal(parseLeftover('.conf.cairn-123-kx2-1.tmp')?.controller, undefined, 'the older form is recognised too');
  for (const other of ['conf', '.conf.tmp', '.conf.cairn@h-x-1-1.tmp', 'conf.cairn@h-1-a-1.tmp', '.conf.cairn@h-1-a-1.tmp.bak']) assert.equal(parseLeftover(other), undefined, other);
});

test('which leftovers are abandoned', () => {
  const now = Date.now();
  const mine = (pid: number) => ({ name: 'x', target: 'f', controller: CONTROLLER, pid });
  const other = { name: 'x', target: 'f', controller: 'elsewhere', pid: 1 };
  assert.equal(isAbandoned(mine(4242), now, now, () => false), true, 'a dead writer on this controller');
  assert.equal(isAbandoned(mine(4242), now - 2 * STALE_MS, now, () => true), false, 'a live writer, however old');
  assert.equal(isAbandoned(mine(process.pid), now - 2 * STALE_MS, now, () => false), false, 'this process');
  assert.equal(isAbandoned(other, now - 1000, now), false, 'another controller, touched a second ago');
  assert.equal(isAbandoned(other, now - STALE_MS, now), true, 'another controller, untouched for ten minutes');
});

const missing = sshdMissing();
if (missing) {
  test('SSH leftovers against a real sshd', { skip: missing }, () => {});
} else {
  describe('SSH leftovers against a real sshd', () => {
    let server: TestSshd;
    const work = fs.mkdtempSync('/tmp/cairn-ssh-leftovers-');
    before(async () => {
      server = await startSshd();
    });
    after(() => {
      server?.stop();
      fs.rmSync(work, { recursive: true, force: true });
    });

    test('the next write of a path removes its abandoned temp files and nothing else', async () => {
      const dir = fs.mkdtempSync(join(work, 'd-'));
      const old = new Date(Date.now() - 2 * STALE_MS);
      const plant = (name: string, mtime?: Date): string => {
        fs.writeFileSync(join(dir, name), 'half-written');
        if (mtime) fs.utimesSync(join(dir, name), mtime, mtime);
        return name;
      };
      const dead = plant(`.conf.cairn@${CONTROLLER}-${deadPid()}-kx2-1.tmp`);
      const live = plant(`.conf.cairn@${CONTROLLER}-${process.ppid}-kx2-2.tmp`, old);
      const otherFresh = plant('.conf.cairn@elsewhere-77-kx2-3.tmp');
      const otherOld = plant('.conf.cairn@elsewhere-78-kx2-4.tmp', old);
      const olderForm = plant('.conf.cairn-999999-kx2-5.tmp', old);
      const otherFile = plant(`.other.cairn@${CONTROLLER}-${deadPid()}-kx2-6.tmp`);
      const lookalike = plant('.conf.cairn-backup.tmp', old);
      fs.mkdirSync(join(dir, `.conf.cairn@${CONTROLLER}-${deadPid()}-kx2-7.tmp`));
      const host = new SshHost(
        { name: 'h', address: '127.0.0.1', port: server.port, user: 'root', keyFile: testClientKey() },
        { knownHosts: new KnownHosts([], join(work, 'known_hosts')), acceptNewHostKeys: true, connectTimeoutMs: 10_000, agentSocket: '' },
      );
      try {
        await host.open();
        await host.writeFileAtomic(join(dir, 'conf'), 'new\n');
      } finally {
        await host.close();
      }
      const left = fs.readdirSync(dir).sort();
      assert.equal(fs.readFileSync(join(dir, 'conf'), 'utf8'), 'new\n');
      for (const gone of [dead, otherOld, olderForm]) assert.ok(!left.includes(gone), `${gone} is removed`);
      for (const kept of [live, otherFresh, otherFile, lookalike, `.conf.cairn@${CONTROLLER}`]) {
        assert.ok(left.some((n) => n.startsWith(kept)), `${kept} is kept`);
      }
      assert.equal(left.filter((n) => n.endsWith('.tmp')).length, 5, `left: ${left.join(' ')}`);
    });

    test('an apply over SSH killed with SIGKILL: the next apply converges and leaves no temp file of the dead run', async () => {
      const dir = fs.mkdtempSync(join(work, 'kill-'));
      fs.chmodSync(dir, 0o755);
      const target = join(dir, 'target');
      fs.mkdirSync(target);
      fs.mkdirSync(join(dir, 'sources'));
      const FILES = 40;
      const SIZE = 1 << 20;
      const old = 'o'.repeat(SIZE);
      const want = (i: number): string => `${i}`.padEnd(SIZE, 'n');
      const nodes = [];
      for (let i = 0; i < FILES; i++) {
        fs.writeFileSync(join(target, `f${i}`), old);
        fs.writeFileSync(join(dir, 'sources', `f${i}`), want(i));
        nodes.push({ id: `f${i}`, type: 'file', params: { path: join(target, `f${i}`), source: `sources/f${i}` } });
      }
      fs.writeFileSync(join(dir, 'graph.json'), JSON.stringify({ version: 1, nodes }));
      fs.writeFileSync(join(dir, 'inventory.yaml'), `hosts:\n  one: {address: 127.0.0.1, port: ${server.port}, user: root, key: ${testClientKey()}}\n`);
      const args = [CAIRN, 'apply', 'graph.json', '--inventory', 'inventory.yaml', '--hosts', 'one', '--accept-new-host-keys', '--jobs', '1', '--state-dir', join(dir, 'state')];
      const env = { ...process.env, HOME: dir, SSH_AUTH_SOCK: '', NO_COLOR: '1' };
      const child = spawn(process.execPath, args, { cwd: dir, env, stdio: 'ignore' });
      const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
      // Kill once the run is under way: some file replaced, most not yet.
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline && fs.readFileSync(join(target, 'f0'), 'utf8')[0] === 'o') await new Promise((r) => setTimeout(r, 2));
      child.kill('SIGKILL');
      await exited;
      for (let i = 0; i < FILES; i++) {
        const content = fs.readFileSync(join(target, `f${i}`), 'utf8');
        assert.ok(content === old || content === want(i), `f${i} is neither old nor new`);
      }
      // A temp file of the killed run is there whatever the moment of the kill: one it may have left, and one
      // planted with its pid; the re-apply (a new process on the same controller) removes both. The last
      // file is set back to its old content so the re-apply writes it (and so tidies its directory) even
      // when a slow poll let the killed run finish every file first.
      fs.writeFileSync(join(target, `f${FILES - 1}`), old);
      fs.writeFileSync(join(target, `.f${FILES - 1}.cairn@${CONTROLLER}-${child.pid}-kx2-99.tmp`), 'partial');
      const again = spawnSync(process.execPath, args, { cwd: dir, env, encoding: 'utf8' });
      assert.equal(again.status, 0, again.stdout + again.stderr);
      for (let i = 0; i < FILES; i++) assert.equal(fs.readFileSync(join(target, `f${i}`), 'utf8'), want(i), `f${i} converged`);
      assert.deepEqual(fs.readdirSync(target).filter((f) => !/^f\d+$/.test(f)), [], 'no temp file is left');
    });
  });
}
