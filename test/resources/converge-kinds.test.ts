/** The kinds behind Converge's file.fetch, unarchive, wait.*, file.owner, file.mode and systemd.unit.state. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { kind as chmod, permString } from '../../src/resources/chmod/index.js';
import { kind as chown } from '../../src/resources/chown/index.js';
import { kind as fetch } from '../../src/resources/fetch/index.js';
import { kind as unarchive } from '../../src/resources/unarchive/index.js';
import { kind as unit } from '../../src/resources/unit/index.js';
import { kind as wait } from '../../src/resources/wait/index.js';
import { cleanupTemps, converge, convergeIdempotent, fakeEnv, localEnv, node } from './fs-helpers.js';

after(cleanupTemps);

describe('fetch', () => {
  test('copies a local file, then is in sync; a file:// URL works the same', async () => {
    const env = localEnv();
    fs.writeFileSync(join(env.root, 'src'), 'hello\n');
    const destination = join(env.root, 'out');
    const { check, applied, recheck } = await convergeIdempotent(fetch, env, { source: join(env.root, 'src'), destination });
    assert.deepEqual(check.changes, { destination: { old: '<absent>', new: destination } });
    assert.equal(applied.comment, 'fetched successfully');
    assert.equal(recheck.comment, 'file exists');
    assert.equal(fs.readFileSync(destination, 'utf8'), 'hello\n');
    await convergeIdempotent(fetch, env, { source: `file://${join(env.root, 'src')}`, destination: join(env.root, 'out2') });
  });
  test('a checksum mismatch is an error unless force, which replaces the file', async () => {
    const env = localEnv();
    fs.writeFileSync(join(env.root, 'src'), 'hello\n');
    const destination = join(env.root, 'out');
    fs.writeFileSync(destination, 'other\n');
    const params = { source: join(env.root, 'src'), destination, hash_type: 'md5', hash: 'b1946ac92492d2347c6235b4d2611184' };
    await assert.rejects(fetch.check(env.ctx, params, node('fetch', params)), /will not attempt fetch: checksum mismatch/);
    assert.equal(fs.readFileSync(destination, 'utf8'), 'other\n');
    const { check } = await convergeIdempotent(fetch, env, { ...params, force: true });
    assert.equal(check.comment, 'checksum mismatch');
    assert.equal(fs.readFileSync(destination, 'utf8'), 'hello\n');
  });
  test('bad params are diagnostics', () => {
    assert.match(fetch.validate({ destination: '/x' }, node('fetch', {}))[0]?.message ?? '', /missing required param "source"/);
    assert.match(fetch.validate({ source: 's', destination: '/x', hash_type: 'md5' }, node('fetch', {}))[0]?.message ?? '', /hash and hash_type together/);
    assert.match(fetch.validate({ source: 's', destination: '/x', force: 'yes' }, node('fetch', {}))[0]?.message ?? '', /param "force"/);
  });
});

describe('unarchive', () => {
  test('unpacks a tar and a zip into an existing directory; a different file there is kept without force', async () => {
    const env = localEnv();
    fs.mkdirSync(join(env.root, 'arc'));
    fs.writeFileSync(join(env.root, 'arc', 'one.txt'), 'hi\n');
    spawnSync('tar', ['-C', join(env.root, 'arc'), '-czf', join(env.root, 'a.tar.gz'), 'one.txt']);
    spawnSync('zip', ['-q', join(env.root, 'a.zip'), 'one.txt'], { cwd: join(env.root, 'arc') });
    for (const archive of ['a.tar.gz', 'a.zip']) {
      const destination = join(env.root, `dest-${archive}`);
      fs.mkdirSync(destination);
      const { check, applied } = await converge(unarchive, env, { source: join(env.root, archive), destination });
      assert.equal(check.comment, `fetch and unarchive ${JSON.stringify(join(env.root, archive))}`);
      assert.equal(applied.ok, true, applied.comment);
      assert.equal(fs.readFileSync(join(destination, 'one.txt'), 'utf8'), 'hi\n');
    }
    const destination = join(env.root, 'dest-a.zip');
    fs.writeFileSync(join(destination, 'one.txt'), 'changed\n');
    const { applied } = await converge(unarchive, env, { source: join(env.root, 'a.zip'), destination });
    assert.equal(applied.ok, false);
    assert.match(applied.comment ?? '', /will not replace, "one.txt" exists at .*: checksum mismatch/);
    assert.equal(fs.readFileSync(join(destination, 'one.txt'), 'utf8'), 'changed\n');
  });
  test('a missing destination fails the check', async () => {
    const env = localEnv();
    const params = { source: join(env.root, 'a.tar'), destination: join(env.root, 'none') };
    await assert.rejects(unarchive.check(env.ctx, params, node('unarchive', params)), /destination ".*none" does not exist/);
  });
});

describe('wait', () => {
  test('a query that passes is in sync; one that never passes fails after max_retry tries', async () => {
    const env = localEnv();
    const ok = await wait.check(env.ctx, { check: 'true' }, node('wait', {}));
    assert.equal(ok.inSync, true);
    const { check, applied } = await converge(wait, env, { check: 'echo no; exit 3', interval: 0, max_retry: 2 });
    assert.equal(check.inSync, false);
    assert.equal(applied.ok, false);
    assert.equal((applied.outputs?.attempts as unknown[]).length, 2);
  });
  test('a closed port fails with the reason', async () => {
    const env = localEnv();
    const c = await wait.check(env.ctx, { host: '127.0.0.1', port: 1 }, node('wait', {}));
    assert.equal(c.inSync, false);
    assert.equal(c.outputs?.['check.error'], 'dial tcp 127.0.0.1:1: connect: connection refused');
  });
  test('bad params are diagnostics', () => {
    assert.match(wait.validate({ port: 0 }, node('wait', {}))[0]?.message ?? '', /port from 1 to 65535/);
    assert.match(wait.validate({}, node('wait', {}))[0]?.message ?? '', /either a check script or a port/);
  });
});

describe('chmod and chown', () => {
  test('chmod sets a mode and is then in sync; a missing file is a change and an apply failure', async () => {
    const env = localEnv();
    const path = join(env.root, 'f');
    fs.writeFileSync(path, '');
    fs.chmodSync(path, 0o644);
    await convergeIdempotent(chmod, env, { path, mode: '0600' });
    assert.equal(fs.statSync(path).mode & 0o777, 0o600);
    const { check, applied } = await converge(chmod, env, { path: join(env.root, 'none'), mode: '0644' });
    assert.equal(check.inSync, false);
    assert.equal(applied.ok, false);
    assert.equal(fs.existsSync(join(env.root, 'none')), false);
    assert.equal(permString(0o644), '-rw-r--r--');
  });
  test('chown on a fake host: recursive changes every path below', async () => {
    const env = fakeEnv();
    await env.ctx.host.mkdir(join(env.root, 't', 'sub'), { recursive: true });
    await env.ctx.host.writeFileAtomic(join(env.root, 't', 'sub', 'f'), 'x');
    const { check, recheck } = await convergeIdempotent(chown, env, { path: join(env.root, 't'), owner: 'deploy', recursive: true });
    assert.deepEqual(Object.keys(check.changes ?? {}).sort(), [join(env.root, 't'), join(env.root, 't', 'sub'), join(env.root, 't', 'sub', 'f')]);
    assert.equal(recheck.inSync, true);
    assert.equal((await env.ctx.host.stat(join(env.root, 't', 'sub', 'f')))?.uid, 1001);
  });
  test('chown of a missing path fails at apply', async () => {
    const env = fakeEnv();
    const { applied } = await converge(chown, env, { path: join(env.root, 'none'), owner: 0 });
    assert.equal(applied.comment, `cannot change ownership of non-existent file: ${join(env.root, 'none')}`);
  });
});

test('unit: preflight says where systemd is not running', async () => {
  const env = fakeEnv();
  const d = await unit.preflight?.(env.ctx, { unit: 'x.service' }, node('unit', {}));
  assert.match(d?.[0]?.message ?? '', /systemd is not running on this machine/);
});
