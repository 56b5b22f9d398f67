// What a [file] flag held is kept between runs with the stamp its file had just before the read; a flag
// is not read again only while its stamp (device, inode, size, modification and inode change times) is the
// one kept, and only stamps of files that last changed well before the read are kept at all.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FlagCache } from '../../../src/frontends/zapusk/flag-cache.js';
import { Machine } from '../../../src/frontends/zapusk/machine.js';
import { LocalHost } from '../../../src/host/local.js';
import type { ChangeStamp, Host, ImmediateReads } from '../../../src/host/types.js';
import { tempDir } from '../../cli/cli-helpers.js';
import { caseEnv, FIXTURES, runZapusk } from './zapusk-helpers.js';

const OLD: ChangeStamp = { dev: 1, ino: 2, size: 6, mtimeMs: 1_000_000, ctimeMs: 1_000_000 };

/** A local host whose stamps are `stamp.now` and whose reads are counted. */
function countingHost(stamp: { now: ChangeStamp | undefined }): { host: Host; reads: () => number } {
  const local = new LocalHost();
  let reads = 0;
  const immediate: ImmediateReads = {
    lstat: (p) => local.immediate.lstat(p),
    readText: (p, e) => {
      reads++;
      return local.immediate.readText(p, e);
    },
    changeStamp: () => stamp.now,
  };
  const host = Object.create(local, { immediate: { value: immediate } }) as Host;
  return { host, reads: () => reads };
}

test('a flag whose stamp is the one kept is not read again; any other stamp has it read', async () => {
  const dir = tempDir('cairn-zapusk-flags-');
  try {
    writeFileSync(join(dir, 'created-file-a'), '/x/a\n');
    const stamp: { now: ChangeStamp | undefined } = { now: OLD };
    const { host, reads } = countingHost(stamp);
    const machine = new Machine(host, FlagCache.load(undefined, dir));
    assert.equal(await machine.readMarkIfExists(dir, 'created-file-a'), '/x/a\n');
    assert.equal(reads(), 1);
    writeFileSync(join(dir, 'created-file-a'), '/x/b\n');
    // The same stamp: the text kept (the host's stamps stand for the file here).
    assert.equal(machine.readMarkNow(dir, 'created-file-a'), '/x/a\n');
    assert.equal(reads(), 1);
    for (const changed of [{ ctimeMs: OLD.ctimeMs + 0.001 }, { ino: 3 }, { dev: 4 }, { size: 7 }, { mtimeMs: 5 }]) {
      stamp.now = { ...OLD, ...changed };
      assert.equal(machine.readMarkNow(dir, 'created-file-a'), '/x/b\n', JSON.stringify(changed));
    }
    assert.equal(reads(), 6);
    // No stamp (not a regular file, a file system without fresh stats): read every time.
    stamp.now = undefined;
    machine.readMarkNow(dir, 'created-file-a');
    machine.readMarkNow(dir, 'created-file-a');
    assert.equal(reads(), 8);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a flag that changed less than a second before its read is read again the next time', async () => {
  const dir = tempDir('cairn-zapusk-flags-');
  try {
    writeFileSync(join(dir, 'created-file-a'), '/x/a\n');
    const recent = { ...OLD, mtimeMs: Date.now() - 10_000, ctimeMs: Date.now() - 100 };
    const { host, reads } = countingHost({ now: recent });
    const machine = new Machine(host, FlagCache.load(undefined, dir));
    await machine.readMarkIfExists(dir, 'created-file-a');
    machine.readMarkNow(dir, 'created-file-a');
    assert.equal(reads(), 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the kept texts are written to the cache dir and read back; an unreadable cache is left aside', () => {
  const dir = tempDir('cairn-zapusk-flags-');
  try {
    const cacheDir = join(dir, 'cache');
    const first = FlagCache.load(cacheDir, '/state');
    first.remember('/state/created-file-a', OLD, '/x/a\n', Date.now());
    first.save();
    const file = readdirSync(cacheDir)[0] ?? '';
    assert.ok(file.endsWith('.json'));
    assert.equal(statSync(join(cacheDir, file)).mode & 0o777, 0o600);
    assert.equal(FlagCache.load(cacheDir, '/state').textIf('/state/created-file-a', OLD), '/x/a\n');
    // Another program state dir has a cache of its own.
    assert.equal(FlagCache.load(cacheDir, '/other').textIf('/state/created-file-a', OLD), undefined);
    for (const bad of ['{', '{"version":1,"flags":[["/state/created-file-a",1,2,"6",4,5,"t"]]}', '{"version":2,"flags":[]}']) {
      writeFileSync(join(cacheDir, file), bad);
      assert.equal(FlagCache.load(cacheDir, '/state').textIf('/state/created-file-a', OLD), undefined, bad);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a flag changed in place between runs, keeping its size and modification time, is read again', () => {
  const env = caseEnv(FIXTURES);
  try {
    const [t1, t2] = [join(env.tmp, 'f1'), join(env.tmp, 'f2')];
    const prog = join(env.tmp, 'prog.zdb');
    mkdirSync(prog);
    writeFileSync(join(prog, 'main.ini'), `######## a\n[file]\npath=${t1}\ncontent=one\n`);
    writeFileSync(t2, 'written by an earlier run\n');
    const args = [prog, 'apply', '--state_dir', env.state];
    assert.equal(runZapusk(args, env).code, 0);
    const flag = join(env.state, 'created-file-a');
    // A modification time of whole seconds, which can be set again exactly.
    const mtime = Math.floor(Date.now() / 1000) - 60;
    utimesSync(flag, mtime, mtime);
    // Only a flag that last changed a second or more before a read is kept.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1100);
    assert.equal(runZapusk(args, env).code, 0);
    const stamps = new LocalHost().immediate.changeStamp?.(flag) !== undefined;
    const cacheDir = join(env.cairnState, 'zapusk-flags');
    if (stamps) assert.match(readdirSync(cacheDir).map((f) => readFileSync(join(cacheDir, f), 'utf8')).join(''), /created-file-a/);
    else console.log('# this file system gives no stamps: the flag cache is not used here');
    // Another path of the same length, written into the same file, its modification time set back.
    const before = statSync(flag);
    writeFileSync(flag, `${t2}\n`);
    utimesSync(flag, mtime, mtime);
    const after = statSync(flag);
    assert.deepEqual([after.size, after.ino, after.mtimeMs], [before.size, before.ino, before.mtimeMs]);
    const r = runZapusk(args, env);
    assert.equal(r.code, 0, r.stderr);
    // The flag named f2: this step had written it, so it is removed, and f1 is this step's file again.
    assert.ok(!existsSync(t2), 'the file the changed flag names is removed');
    assert.equal(readFileSync(flag, 'utf8'), `${t1}\n`);
  } finally {
    rmSync(env.tmp, { recursive: true, force: true });
  }
});

test('kept texts are found back in any order, other paths and inode change times apart from modification times too', () => {
  const dir = tempDir('cairn-zapusk-flags-');
  try {
    const cacheDir = join(dir, 'cache');
    const first = FlagCache.load(cacheDir, '/state');
    const later = { ...OLD, ctimeMs: OLD.ctimeMs + 0.5 };
    first.remember('/state/created-file-a', OLD, '/x/a\n', Date.now());
    first.remember('/state/created-file-b', later, '/x/b\n', Date.now());
    first.remember('/state/sub/created-file-c', OLD, '/x/c\n', Date.now());
    first.save();
    const ask = (order: string[]): (string | undefined)[] => {
      const c = FlagCache.load(cacheDir, '/state');
      return order.map((p) => c.textIf(p, p.endsWith('b') ? later : OLD));
    };
    assert.deepEqual(ask(['/state/created-file-a', '/state/created-file-b', '/state/sub/created-file-c']), ['/x/a\n', '/x/b\n', '/x/c\n']);
    assert.deepEqual(ask(['/state/sub/created-file-c', '/state/created-file-b', '/state/created-file-a']), ['/x/c\n', '/x/b\n', '/x/a\n']);
    assert.deepEqual(ask(['/state/created-file-b', '/state/created-file-b', '/other/created-file-a', '/state/created-file-a']), ['/x/b\n', '/x/b\n', undefined, '/x/a\n']);
    // The stamp must still match: the inode change time kept is not taken to be the modification time.
    assert.equal(FlagCache.load(cacheDir, '/state').textIf('/state/created-file-b', OLD), undefined);
    assert.equal(FlagCache.load(cacheDir, '/state').textIf('/state/created-file-a', later), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a save removes the caches no run used for 90 days; a run reading an old cache marks it used', () => {
  const dir = tempDir('cairn-zapusk-flags-age-');
  try {
    const cacheDir = join(dir, 'cache');
    mkdirSync(cacheDir);
    const daysAgo = (days: number): number => (Date.now() - days * 24 * 60 * 60 * 1000) / 1000;
    const other = (name: string, days: number): string => {
      const path = join(cacheDir, name);
      writeFileSync(path, '{"version":2,"flags":[]}');
      utimesSync(path, daysAgo(days), daysAgo(days));
      return path;
    };
    const unused = other(`${'a'.repeat(32)}.json`, 100);
    const recent = other(`${'b'.repeat(32)}.json`, 10);
    const leftover = other(`${'c'.repeat(32)}.json.4242.tmp`, 100);
    const foreign = other('notes.txt', 100);
    // A cache last marked 30 days ago is read by a run: it is marked used now.
    const used = FlagCache.load(cacheDir, '/state');
    used.remember('/state/created-file-a', OLD, '/x/a\n', Date.now());
    used.save();
    const own = readdirSync(cacheDir).find((n) => ![unused, recent, leftover, foreign].includes(join(cacheDir, n))) ?? '';
    utimesSync(join(cacheDir, own), daysAgo(30), daysAgo(30));
    assert.equal(FlagCache.load(cacheDir, '/state').textIf('/state/created-file-a', OLD), '/x/a\n');
    assert.ok(Date.now() - statSync(join(cacheDir, own)).mtimeMs < 60_000, 'an old cache read is marked used');
    assert.equal(existsSync(unused), false, 'unused for 100 days: removed');
    assert.equal(existsSync(leftover), false, 'a temporary file left 100 days ago: removed');
    assert.equal(existsSync(recent), true, 'used 10 days ago: kept');
    assert.equal(existsSync(foreign), true, 'not a cache: kept');
    // A cache marked recently is not marked again by a read.
    utimesSync(join(cacheDir, own), daysAgo(2), daysAgo(2));
    FlagCache.load(cacheDir, '/state');
    assert.ok(Date.now() - statSync(join(cacheDir, own)).mtimeMs > 24 * 60 * 60 * 1000);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
