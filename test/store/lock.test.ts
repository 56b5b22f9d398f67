import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  acquireLock,
  type LockInfo,
  lockPath,
  readLock,
  releaseLockOnExit,
  StoreError,
  tryAcquireLock,
} from '../../src/store/index.js';
import { deadPid, startHolder, tempDir } from './helpers.js';

function writeLock(dir: string, fields: Partial<LockInfo> & Record<string, unknown>): string {
  const content = `${JSON.stringify({
    pid: process.pid,
    host: hostname(),
    started: '2026-01-01T00:00:00.000Z',
    command: 'cairn apply old.json',
    token: 'feedfacefeedface',
    ...fields,
  })}\n`;
  writeFileSync(lockPath(dir), content);
  return content;
}

function leftovers(dir: string): string[] {
  return readdirSync(dir).filter((n) => n !== 'lock');
}

test('a second run waits for the timeout, then fails with a message naming the holder', async (t) => {
  const dir = tempDir(t);
  const holder = startHolder(dir, '--stdin');
  t.after(() => holder.child.kill('SIGKILL'));
  await holder.line('locked');

  const holderPids: Array<number | undefined> = [];
  const t0 = Date.now();
  await assert.rejects(
    acquireLock(dir, { timeoutMs: 400, onWait: (h) => holderPids.push(h?.pid) }),
    (e: unknown) => {
      assert.ok(StoreError.is(e));
      assert.equal(e.code, 'locked');
      assert.match(
        e.message,
        new RegExp(
          `^state directory ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is locked by another cairn run ` +
            `\\(pid ${holder.child.pid}, started \\d{4}-\\d\\d-\\d\\dT[^,]+, command "lock-holder"\\); ` +
            'waited 0\\.4s\\. Use --lock-timeout to wait longer\\.$',
        ),
      );
      return true;
    },
  );
  assert.ok(Date.now() - t0 >= 390, 'gave up before the timeout');
  assert.deepEqual(holderPids, [holder.child.pid], 'onWait is called once, with the holder');
  assert.equal(readLock(dir)?.pid, holder.child.pid, 'the holder keeps its lock');
  assert.deepEqual(leftovers(dir), [], 'the waiter leaves no temp files');

  holder.child.stdin.write('release\n');
  assert.equal(await holder.line('released'), 'released true');
  assert.equal((await holder.exited).code, 0);
  assert.equal(existsSync(lockPath(dir)), false);
});

test('a waiting run gets the lock as soon as the holder releases it', async (t) => {
  const dir = tempDir(t);
  const holder = startHolder(dir, '--stdin');
  t.after(() => holder.child.kill('SIGKILL'));
  await holder.line('locked');

  const t0 = Date.now();
  const pending = acquireLock(dir, { timeoutMs: 20_000, command: 'cairn apply g.json' });
  setTimeout(() => holder.child.stdin.write('release\n'), 300);
  const lock = await pending;
  const waited = Date.now() - t0;
  assert.ok(waited >= 300, `acquired after ${waited} ms, while the holder still held the lock`);
  assert.ok(waited < 5_000, `took ${waited} ms to notice the release`);
  assert.equal(lock.info.pid, process.pid);
  assert.deepEqual(
    { pid: readLock(dir)?.pid, command: readLock(dir)?.command },
    { pid: process.pid, command: 'cairn apply g.json' },
  );
  assert.equal((await holder.exited).code, 0);
  assert.equal(lock.release(), true);
  assert.equal(existsSync(lockPath(dir)), false);
  assert.deepEqual(leftovers(dir), []);
});

test('the lock creates a missing state directory', async (t) => {
  const dir = join(tempDir(t), 'new', 'state');
  const lock = await acquireLock(dir, { timeoutMs: 0 });
  assert.equal(lock.path, join(dir, 'lock'));
  assert.equal(readLock(dir)?.pid, process.pid);
  lock.release();
});

test('with timeout 0 a busy lock fails at once', async (t) => {
  const dir = tempDir(t);
  const first = await acquireLock(dir, { timeoutMs: 0 });
  t.after(() => first.release());
  await assert.rejects(acquireLock(dir, { timeoutMs: 0 }), /locked by another cairn run .*waited 0s\./);
  assert.equal(tryAcquireLock(dir), undefined);
});

test('a stale lock left by a dead process is taken over', async (t) => {
  const dir = tempDir(t);
  writeLock(dir, { pid: deadPid() });
  const lock = await acquireLock(dir, { timeoutMs: 0 });
  assert.equal(readLock(dir)?.token, lock.info.token);
  assert.equal(lock.release(), true);
  assert.deepEqual(readdirSync(dir), []);
});

test('the lock of a SIGKILLed run is taken over', async (t) => {
  const dir = tempDir(t);
  const holder = startHolder(dir, '--forever');
  await holder.line('locked');
  holder.child.kill('SIGKILL');
  assert.equal((await holder.exited).signal, 'SIGKILL');
  assert.equal(readLock(dir)?.pid, holder.child.pid, 'the killed run left its lock behind');
  const lock = await acquireLock(dir, { timeoutMs: 0 });
  assert.equal(readLock(dir)?.pid, process.pid);
  lock.release();
});

test('a lock whose pid now belongs to another process (reused after a reboot or restart) is stale', async (t) => {
  if (!existsSync('/proc/self/stat')) {
    t.skip('needs /proc to tell a reused pid');
    return;
  }
  const dir = tempDir(t);
  const self = readFileSync('/proc/self/stat', 'utf8');
  const pstart = Number(self.slice(self.lastIndexOf(')') + 2).split(' ')[19]);
  writeLock(dir, { pid: process.pid, pstart: pstart + 1 });
  const a = tryAcquireLock(dir);
  assert.ok(a, 'a different start time means a different process');
  a.release();

  writeLock(dir, { pid: process.pid, boot: '00000000-0000-0000-0000-000000000000' });
  const b = tryAcquireLock(dir);
  assert.ok(b, 'a lock from before a reboot is stale');
  b.release();

  writeLock(dir, { pid: process.pid, pstart });
  assert.equal(tryAcquireLock(dir), undefined, 'the same pid and start time is a live holder');
});

test('a lock held on another host is never judged stale', async (t) => {
  const dir = tempDir(t);
  writeLock(dir, { pid: deadPid(), host: 'elsewhere.example' });
  await assert.rejects(acquireLock(dir, { timeoutMs: 100 }), /\(pid \d+ on host elsewhere\.example, started 2026-01-01/);
});

test('an unreadable lock file is respected while fresh and taken over when old', async (t) => {
  const dir = tempDir(t);
  writeFileSync(lockPath(dir), '');
  await assert.rejects(acquireLock(dir, { timeoutMs: 100 }), /holder unknown: .*lock is unreadable; remove it/);
  const old = new Date(Date.now() - 60_000);
  utimesSync(lockPath(dir), old, old);
  const lock = tryAcquireLock(dir);
  assert.ok(lock);
  lock.release();
});

test('release removes the lock only while it is still ours', async (t) => {
  const dir = tempDir(t);
  const lock = await acquireLock(dir, { timeoutMs: 0 });
  assert.equal(lock.held, true);
  const other = writeLock(dir, { pid: deadPid(), token: '0123456789abcdef' });
  assert.equal(lock.release(), false);
  assert.equal(lock.held, false);
  assert.equal(readFileSync(lockPath(dir), 'utf8'), other, "another run's lock is left alone");

  const again = tryAcquireLock(dir);
  assert.ok(again);
  assert.equal(again.release(), true);
  assert.equal(again.release(), false, 'a second release is a no-op');
});

test('many waiters racing for stale locks take turns, never together', async (t) => {
  // Each holder exits without releasing, so every acquisition is a takeover of a dead run's lock, with
  // the other waiters polling fast enough to race for the same stale file.
  const dir = tempDir(t);
  const aside = tempDir(t);
  const log = join(aside, 'log');
  const go = join(aside, 'go');
  writeLock(dir, { pid: deadPid() });
  const args = ['--timeout', '30000', '--hold', '20', '--poll', '2', '--abandon', '--log', log, '--go', go];
  const holders = Array.from({ length: 6 }, () => startHolder(dir, ...args));
  t.after(() => {
    for (const h of holders) h.child.kill('SIGKILL');
  });
  await Promise.all(holders.map((h) => h.line('ready')));
  writeFileSync(go, '');
  const exits = await Promise.all(holders.map((h) => h.exited));
  assert.deepEqual(
    exits.map((e) => e.code),
    holders.map(() => 0),
    holders.map((h) => h.stderr()).join(''),
  );
  const lines = readFileSync(log, 'utf8').trim().split('\n');
  assert.equal(lines.length, 12);
  for (let i = 0; i < lines.length; i += 2) {
    const [start, end] = [lines[i], lines[i + 1]];
    assert.match(start ?? '', /^start \d+$/);
    assert.equal(end, `end ${start?.slice(6)}`, `two holders overlapped:\n${lines.join('\n')}`);
  }
  assert.deepEqual(readdirSync(dir), ['lock'], 'only the last abandoned lock is left');
  assert.ok(tryAcquireLock(dir)?.release());
});

test('releaseLockOnExit releases the lock when the run is stopped by SIGTERM or SIGINT', async (t) => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    const dir = tempDir(t);
    const holder = startHolder(dir, '--forever', '--hook');
    await holder.line('locked');
    assert.ok(existsSync(lockPath(dir)));
    holder.child.kill(signal);
    assert.equal((await holder.exited).signal, signal, 'the process still dies of the signal');
    assert.equal(existsSync(lockPath(dir)), false, `lock left behind after ${signal}`);
  }
});

test('releaseLockOnExit hooks are removed by release', async (t) => {
  const dir = tempDir(t);
  const before = ['exit', 'SIGINT', 'SIGTERM'].map((e) => process.listenerCount(e));
  const lock = await acquireLock(dir, { timeoutMs: 0 });
  releaseLockOnExit(lock);
  assert.equal(process.listenerCount('SIGTERM'), (before[2] ?? 0) + 1);
  assert.equal(lock.release(), true);
  assert.deepEqual(
    ['exit', 'SIGINT', 'SIGTERM'].map((e) => process.listenerCount(e)),
    before,
  );
});

test('releaseLockOnExit releases the lock when the process exits', async (t) => {
  const dir = tempDir(t);
  const holder = startHolder(dir, '--exit', '--hook');
  assert.match(await holder.line('locked'), /^locked \d+$/);
  assert.equal((await holder.exited).code, 0);
  assert.equal(existsSync(lockPath(dir)), false);
  assert.equal(existsSync(join(dir, 'lock.takeover')), false);
});
