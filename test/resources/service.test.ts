/** The service kind against a fake machine: SysV init scripts (`service`, rc links, update-rc.d) and systemctl. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeHost } from '../../src/host/fake.js';
import { kind, serviceWatch } from '../../src/resources/service/index.js';
import { node } from './fs-helpers.js';
import { sysvModel } from './sysv-model.js';

/** A SysV machine without systemctl: `service NAME ACTION` tracks what runs, update-rc.d adds rc2.d links. */
function sysvHost(running: Set<string>, log: string[]): FakeHost {
  const host = new FakeHost();
  host.execHandler = sysvModel(host, running, log);
  host.addFile('/etc/init.d/web', '#!/bin/sh\n', { mode: 0o755 });
  host.addDir('/etc/rc2.d');
  return host;
}

test('sysv: running starts a stopped service and enables it; then it is in the desired state', async () => {
  const running = new Set<string>();
  const log: string[] = [];
  const ctx = { host: sysvHost(running, log), baseDir: '/' };
  const params = { name: 'web', state: 'running', enable: true };
  const n = node('service', params);
  assert.deepEqual(kind.validate(params, n), []);
  const check = await kind.check(ctx, params, n);
  assert.deepEqual([check.inSync, check.comment], [false, 'Service web is set to start']);
  const applied = await kind.apply(ctx, params, check, n);
  assert.deepEqual([applied.ok, applied.comment, applied.changes], [true, 'Service web has been enabled, and is running', { web: true }]);
  assert.ok(log.includes('service web start'));
  const again = await kind.check(ctx, params, n);
  assert.deepEqual([again.inSync, again.comment], [true, 'The service web is already running']);
});

test('sysv: dead stops it; a missing service is "not available"', async () => {
  const running = new Set(['web']);
  const ctx = { host: sysvHost(running, []), baseDir: '/' };
  const params = { name: 'web', state: 'dead' };
  const check = await kind.check(ctx, params, node('service', params));
  assert.equal(check.comment, 'Service web is set to be killed');
  const applied = await kind.apply(ctx, params, check, node('service', params));
  assert.deepEqual([applied.ok, applied.comment, applied.changes], [true, 'Service web was killed', { web: false }]);
  const missing = { name: 'nope', state: 'running' };
  const c = await kind.check(ctx, missing, node('service', missing));
  assert.equal(c.comment, 'Service nope not present; if created in this state run, it would have been started');
  const a = await kind.apply(ctx, missing, c, node('service', missing));
  assert.deepEqual([a.ok, a.comment], [false, 'The named service nope is not available']);
});

test('sysv: a watch restarts a running service, reloads with reload, starts a stopped one', async () => {
  const running = new Set(['web']);
  const log: string[] = [];
  const ctx = { host: sysvHost(running, log), baseDir: '/' };
  assert.deepEqual(await serviceWatch(ctx, { name: 'web', state: 'running' }, true), { ok: true, result: null, comment: 'Service is set to be restarted', changes: {} });
  assert.deepEqual(await serviceWatch(ctx, { name: 'web', state: 'running', reload: true }, false), { ok: true, result: true, comment: 'Service reloaded', changes: { web: true } });
  running.clear();
  const started = await serviceWatch(ctx, { name: 'web', state: 'running' }, false);
  assert.equal(started.comment, 'Service started');
  assert.ok(log.includes('service web reload') && log.includes('service web start'));
});

test('systemd installed but not running: running and dead do nothing (offline mode)', async () => {
  const host = new FakeHost({ exec: (c) => (Array.isArray(c) && c[2] === 'command -v systemctl' ? { code: 0, stdout: '/usr/bin/systemctl\n' } : { code: 1 }) });
  const params = { name: 'web', state: 'running' };
  const check = await kind.check({ host, baseDir: '/' }, params, node('service', params));
  assert.deepEqual([check.inSync, check.comment], [true, 'Running in OFFLINE mode. Nothing to do']);
});

test('systemd booted: status and start through systemctl', async () => {
  const calls: string[] = [];
  let active = false;
  const host = new FakeHost({
    exec: (c) => {
      const argv = [...(c as readonly string[])];
      calls.push(argv.join(' '));
      if (argv[1] === 'list-unit-files') return { code: 0, stdout: 'web.service enabled enabled\n' };
      if (argv[1] === 'is-active') return { code: active ? 0 : 3 };
      if (argv[1] === 'is-enabled') return { code: 0 };
      if (argv[1] === 'start') active = true;
      return { code: 0 };
    },
  });
  host.addDir('/run/systemd/system');
  const params = { name: 'web', state: 'running' };
  const n = node('service', params);
  const applied = await kind.apply({ host, baseDir: '/' }, params, await kind.check({ host, baseDir: '/' }, params, n), n);
  assert.deepEqual([applied.ok, applied.comment, applied.changes], [true, 'Started service web', { web: true }]);
  assert.ok(calls.includes('systemctl start web.service'));
});
