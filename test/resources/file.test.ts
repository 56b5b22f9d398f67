import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { LocalHost } from '../../src/host/local.js';
import { SimulatedHost } from '../../src/host/simulated.js';
import { unifiedDiff } from '../../src/resources/file/diff.js';
import { kind } from '../../src/resources/file/index.js';
import { cleanupTemps, converge, convergeIdempotent, envs, fakeEnv, localEnv, node } from './fs-helpers.js';

after(cleanupTemps);

for (const makeEnv of envs) {
  describe(`file on ${makeEnv().name} host`, () => {
    test('a missing file: check reports it, apply creates it with 0644, then it is in sync', async () => {
      const env = makeEnv();
      const path = join(env.root, 'motd');
      const { check, applied, recheck } = await convergeIdempotent(kind, env, { path, content: 'hello\n' });
      assert.equal(check.inSync, false);
      assert.deepEqual(check.changes, { newfile: path });
      assert.equal(check.comment, `The file ${path} is set to be changed`);
      assert.deepEqual(applied.changes, { diff: 'New file' });
      assert.equal(applied.comment, `File ${path} updated`);
      assert.deepEqual(applied.outputs, { path, content: 'hello\n', mode: '0644' });
      assert.equal(recheck.comment, `File ${path} is in the correct state`);
      assert.equal((await env.ctx.host.readFile(path)).toString(), 'hello\n');
      assert.equal((await env.ctx.host.stat(path))?.mode, 0o644);
    });

    test('a new file with a mode records the mode as Salt does', async () => {
      const env = makeEnv();
      const path = join(env.root, 'secret');
      const { applied } = await convergeIdempotent(kind, env, { path, content: 's', mode: '0640' });
      assert.deepEqual(applied.changes, { diff: 'New file', mode: '0640' });
      assert.equal((await env.ctx.host.stat(path))?.mode, 0o640);
    });

    test('drifted content: check shows a unified diff and changes nothing; apply keeps the mode', async () => {
      const env = makeEnv();
      const path = join(env.root, 'conf');
      await env.ctx.host.writeFileAtomic(path, 'a\nb\nc\n', { mode: 0o600 });
      const { check, applied } = await convergeIdempotent(kind, env, { path, content: 'a\nB\nc\n' });
      const diff = '--- \n+++ \n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n';
      assert.deepEqual(check.changes, { diff });
      assert.deepEqual(applied.changes, { diff });
      assert.equal((await env.ctx.host.readFile(path)).toString(), 'a\nB\nc\n');
      assert.equal((await env.ctx.host.stat(path))?.mode, 0o600);
    });

    test('content is compared byte for byte: bytes that are not UTF-8 never pass for the text they decode to', async () => {
      const env = makeEnv();
      const cases: [string, Buffer, string, boolean][] = [
        ['replaced', Buffer.from([0xff, 0x0a]), '\uFFFD\n', false],
        ['bom', Buffer.from('\uFEFFx', 'utf8'), 'x', false],
        ['accented', Buffer.from('café\n', 'utf8'), 'café\n', true],
        ['literal', Buffer.from('a\uFFFDb', 'utf8'), 'a\uFFFDb', true],
        ['drifted', Buffer.from('caf\xe9', 'latin1'), 'café', false],
      ];
      for (const [name, bytes, content, same] of cases) {
        const path = join(env.root, name);
        await env.ctx.host.writeFileAtomic(path, bytes, { mode: 0o644 });
        const { check, recheck } = await convergeIdempotent(kind, env, { path, content });
        assert.equal(check.inSync, same, name);
        assert.equal(recheck.inSync, true, name);
        assert.deepEqual(await env.ctx.host.readFile(path), Buffer.from(content, 'utf8'), name);
      }
    });

    test('only the mode drifted', async () => {
      const env = makeEnv();
      const path = join(env.root, 'm');
      await env.ctx.host.writeFileAtomic(path, 'same', { mode: 0o644 });
      const { check, applied } = await convergeIdempotent(kind, env, { path, content: 'same', mode: 0o600 });
      assert.deepEqual(check.changes, { mode: '0600' });
      assert.deepEqual(applied.changes, { mode: '0600' });
      assert.equal(applied.comment, `File ${path} updated`);
      assert.equal((await env.ctx.host.stat(path))?.mode, 0o600);
    });

    test('without content or source only existence and attributes are managed', async () => {
      const env = makeEnv();
      const empty = join(env.root, 'empty');
      const { applied } = await convergeIdempotent(kind, env, { path: empty });
      assert.deepEqual(applied.changes, { diff: 'New file' });
      assert.equal((await env.ctx.host.readFile(empty)).length, 0);
      const kept = join(env.root, 'kept');
      await env.ctx.host.writeFileAtomic(kept, 'keep me');
      const check = await kind.check(env.ctx, { path: kept }, node('file', { path: kept }));
      assert.equal(check.inSync, true);
      assert.equal((await env.ctx.host.readFile(kept)).toString(), 'keep me');
    });

    test('source: a relative path is read from the base directory', async () => {
      const env = makeEnv();
      await env.ctx.host.writeFileAtomic(join(env.ctx.baseDir, 'template.txt'), 'from source\n');
      const path = join(env.root, 'copy.txt');
      const { applied } = await convergeIdempotent(kind, env, { path, source: 'template.txt' });
      assert.equal(applied.outputs?.content, 'from source\n');
      assert.equal((await env.ctx.host.readFile(path)).toString(), 'from source\n');
    });

    test('a missing source is a preflight diagnostic at the param', async () => {
      const env = makeEnv();
      const params = { path: join(env.root, 'x'), source: 'missing.txt' };
      const span = { file: 'graph.json', line: 7, col: 19 };
      const diags = await kind.preflight!(env.ctx, params, node('file', params, { source: span }));
      assert.equal(diags.length, 1);
      assert.equal(diags[0]?.code, 'R002');
      assert.deepEqual(diags[0]?.span, span);
      assert.equal(diags[0]?.message, `file "file-1": source file ${join(env.ctx.baseDir, 'missing.txt')} does not exist`);
      await assert.rejects(kind.check(env.ctx, params, node('file', params)), { message: `Source file ${join(env.ctx.baseDir, 'missing.txt')} not found` });
    });

    test('a missing parent fails the apply unless makedirs', async () => {
      const env = makeEnv();
      const path = join(env.root, 'a', 'b', 'f');
      const { check, applied } = await converge(kind, env, { path, content: 'x' });
      assert.equal(check.inSync, false);
      assert.equal(applied.ok, false);
      assert.equal(applied.comment, `Parent directory ${join(env.root, 'a', 'b')} of ${path} is not present (set makedirs to create it)`);
      assert.equal(await env.ctx.host.lstat(join(env.root, 'a')), null);
      await convergeIdempotent(kind, env, { path, content: 'x', makedirs: true });
      assert.equal((await env.ctx.host.readFile(path)).toString(), 'x');
    });

    test('a directory in the way is a failure, even in check', async () => {
      const env = makeEnv();
      await env.ctx.host.mkdir(join(env.root, 'd'));
      const params = { path: join(env.root, 'd'), content: 'x' };
      await assert.rejects(kind.check(env.ctx, params, node('file', params)), { message: `Specified target ${join(env.root, 'd')} is a directory` });
    });

    test('a symlink at the path is followed and kept', async () => {
      const env = makeEnv();
      const real = join(env.root, 'real.conf');
      const link = join(env.root, 'link.conf');
      await env.ctx.host.writeFileAtomic(real, 'old\n');
      await env.ctx.host.symlink('real.conf', link);
      await convergeIdempotent(kind, env, { path: link, content: 'new\n' });
      assert.equal(await env.ctx.host.readlink(link), 'real.conf');
      assert.equal((await env.ctx.host.readFile(real)).toString(), 'new\n');
    });

    test('params are validated: unknown, relative path, content with source, bad mode', () => {
      const bad = (params: Record<string, unknown>) => kind.validate(params, node('file', params)).map((d) => d.message);
      assert.deepEqual(bad({ path: '/x', bogus: 1 }), ['file "file-1": unknown param "bogus"']);
      assert.deepEqual(bad({ path: 'rel/x' }), ['file "file-1": param "path": expected an absolute path']);
      assert.deepEqual(bad({ path: '/x', content: 'a', source: 'b' }), ['file "file-1": params: give either content or source, not both']);
      assert.equal(bad({ path: '/x', mode: '999' }).length, 1);
      assert.deepEqual(bad({ content: 'a' }), ['file "file-1": missing required param "path"']);
    });
  });
}

describe('file owners', () => {
  test('names resolve through the host account files (fake)', async () => {
    const env = fakeEnv();
    const path = '/srv/work/owned';
    env.host.addFile(path, 'x', { uid: 0, gid: 0 });
    const { check, applied } = await convergeIdempotent(kind, env, { path, content: 'x', owner: 'deploy', group: 'web' });
    assert.deepEqual(check.changes, { user: 'deploy', group: 'web' });
    assert.deepEqual(applied.changes, { user: 'deploy', group: 'web' });
    const st = await env.host.lstat(path);
    assert.deepEqual([st?.uid, st?.gid], [1001, 2000]);
    const unknown = { path, owner: 'ghost' };
    await assert.rejects(kind.check(env.ctx, unknown, node('file', unknown)), { message: 'User ghost is not available (not in /etc/passwd)' });
  });

  test('a new file gets the owner and content in one write (fake)', async () => {
    const env = fakeEnv();
    await convergeIdempotent(kind, env, { path: '/srv/work/n', content: 'n', owner: 1001, group: '2000' });
    const st = await env.host.lstat('/srv/work/n');
    assert.deepEqual([st?.uid, st?.gid], [1001, 2000]);
  });

  test('changes the owner on the local host', { skip: process.getuid?.() === 0 ? false : 'needs root' }, async () => {
    const env = localEnv();
    const path = join(env.root, 'owned');
    fs.writeFileSync(path, 'x');
    const { applied } = await convergeIdempotent(kind, env, { path, content: 'y', owner: 'nobody', group: 65534 });
    assert.equal(applied.changes?.user, 'nobody');
    assert.equal(fs.statSync(path).uid, 65534);
    assert.equal(fs.readFileSync(path, 'utf8'), 'y');
  });
});

describe('file diffs', () => {
  test('binary content is not diffed', async () => {
    assert.equal(await unifiedDiff(Buffer.from([0, 1]), Buffer.from('text')), 'Replace binary file');
  });

  const python = spawnSync('python3', ['-c', 'import difflib'], { encoding: 'utf8' });
  test('matches Python difflib (what Salt prints)', { skip: python.status === 0 ? false : 'python3 not available' }, async () => {
    const cases: Array<[string, string]> = [
      ['', 'x\n'],
      ['a\n', ''],
      ['a\nb\n', 'a\nb\nc\n'],
      [Array.from({ length: 30 }, (_, i) => `line ${i}\n`).join(''), Array.from({ length: 30 }, (_, i) => (i % 10 === 3 ? `changed ${i}\n` : `line ${i}\n`)).join('')],
    ];
    for (const [a, b] of cases) {
      const script = 'import difflib,sys,json; a,b=json.load(sys.stdin); sys.stdout.write("".join(difflib.unified_diff(a.splitlines(True), b.splitlines(True))))';
      const want = spawnSync('python3', ['-c', script], { input: JSON.stringify([a, b]), encoding: 'utf8' }).stdout;
      assert.equal(await unifiedDiff(Buffer.from(a), Buffer.from(b)), want);
    }
  });
});

describe('file in simulation', () => {
  test('an apply through SimulatedHost reports changes, sees them, and leaves the disk alone', async () => {
    const env = localEnv();
    const path = join(env.root, 'sim.txt');
    fs.writeFileSync(path, 'disk\n');
    const sim = new SimulatedHost(new LocalHost());
    const ctx = { host: sim, baseDir: env.root };
    const params = { path, content: 'simulated\n', mode: '0600' };
    const check = await kind.check(ctx, params, node('file', params));
    const applied = await kind.apply(ctx, params, check, node('file', params));
    assert.deepEqual(applied.changes, { diff: '--- \n+++ \n@@ -1 +1 @@\n-disk\n+simulated\n', mode: '0600' });
    assert.equal((await kind.check(ctx, params, node('file', params))).inSync, true);
    assert.equal(fs.readFileSync(path, 'utf8'), 'disk\n');
    assert.equal(fs.statSync(path).mode & 0o777, 0o644);
  });
});
