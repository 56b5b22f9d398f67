/** The host conformance suite against the local host (temp dir), the fake (memory) and simulated over local. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { FakeHost } from '../../src/host/fake.js';
import { LocalHost } from '../../src/host/local.js';
import { SimulatedHost } from '../../src/host/simulated.js';
import { type Capabilities, diskRoot, diskSnapshot, type Harness, hostConformance } from './suite.js';

const harnesses: ReadonlyArray<{ name: string; make(): Harness; caps: Capabilities }> = [
  {
    name: 'LocalHost',
    make: () => ({ host: new LocalHost(), root: diskRoot(), done() {} }),
    caps: { runsCommands: true, realNetwork: true },
  },
  {
    name: 'FakeHost',
    make: () => {
      const host = new FakeHost({ uid: 1000, gid: 1000 });
      host.addFile('/srv/t/seed.txt', 'seed\n').addFile('/srv/t/seeddir/inner.txt', 'inner\n');
      return { host, root: '/srv/t', done() {} };
    },
    caps: { runsCommands: false, realNetwork: false },
  },
  {
    name: 'SimulatedHost(LocalHost)',
    make: () => {
      const root = diskRoot();
      const before = diskSnapshot(root);
      return {
        host: new SimulatedHost(new LocalHost()),
        root,
        done: () => assert.deepEqual(diskSnapshot(root), before, 'the simulated host changed the real disk'),
      };
    },
    caps: { runsCommands: false, realNetwork: true },
  },
];

for (const { name, make, caps } of harnesses) hostConformance(name, make, caps);

describe('FakeHost exec', () => {
  test('answers with the test handler and logs every call', async () => {
    const host = new FakeHost({ exec: (cmd) => (cmd === 'fail' ? { code: 2, stderr: 'no\n' } : { stdout: 'ok\n' }) });
    assert.deepEqual(await host.exec(['ls', '-l'], { cwd: '/tmp' }), { code: 0, signal: null, stdout: 'ok\n', stderr: '', timedOut: false });
    assert.equal((await host.exec('fail')).code, 2);
    assert.deepEqual(host.execLog, [
      { command: ['ls', '-l'], options: { cwd: '/tmp' } },
      { command: 'fail', options: {} },
    ]);
  });
  test('onOutput receives the canned output once per stream', async () => {
    const host = new FakeHost({ exec: () => ({ stdout: 'out\n', stderr: 'err\n' }) });
    const chunks: string[] = [];
    const r = await host.exec('x', { onOutput: (stream, chunk) => chunks.push(`${stream}:${chunk}`) });
    assert.deepEqual(chunks, ['stdout:out\n', 'stderr:err\n']);
    assert.equal(r.stdout, 'out\n');
    const quiet: string[] = [];
    await new FakeHost().exec('y', { onOutput: (stream, chunk) => quiet.push(`${stream}:${chunk}`) });
    assert.deepEqual(quiet, []);
  });
  test('defaults to success with empty output', async () => {
    assert.deepEqual(await new FakeHost().exec('anything'), { code: 0, signal: null, stdout: '', stderr: '', timedOut: false });
  });
});

describe('SimulatedHost', () => {
  test('records commands without running them', async () => {
    const root = diskRoot();
    const sim = new SimulatedHost(new LocalHost());
    const marker = join(root, 'ran');
    const r = await sim.exec(`touch ${marker}`);
    assert.deepEqual(r, { code: 0, signal: null, stdout: '', stderr: '', timedOut: false });
    assert.equal(fs.existsSync(marker), false);
    assert.deepEqual(sim.execLog, [`touch ${marker}`]);
    assert.equal(sim.simulated, true);
  });

  test('runs commands marked read-only, since they only look', async () => {
    const sim = new SimulatedHost(new LocalHost());
    const options = { readOnly: true } as const;
    const r = await sim.exec(['echo', 'looked'], options);
    assert.equal(r.stdout, 'looked\n');
    assert.deepEqual(sim.execLog, []);
  });

  test('reads pass through until changed; changes are recorded and shadow the disk', async () => {
    const root = diskRoot();
    const before = diskSnapshot(root);
    fs.writeFileSync(join(root, 'seeddir', 'changed-outside'), 'x');
    const sim = new SimulatedHost(new LocalHost());
    assert.deepEqual(await sim.readdir(join(root, 'seeddir')), ['changed-outside', 'inner.txt']);
    fs.rmSync(join(root, 'seeddir', 'changed-outside'));
    // Untouched paths are read live from the wrapped host.
    assert.deepEqual(await sim.readdir(join(root, 'seeddir')), ['inner.txt']);
    await sim.chmod(join(root, 'seed.txt'), 0o600);
    assert.equal((await sim.readFile(join(root, 'seed.txt'))).toString(), 'seed\n');
    assert.equal((await sim.stat(join(root, 'seed.txt')))?.mode, 0o600);
    await sim.writeFileAtomic(join(root, 'seeddir', 'new.txt'), 'new');
    await sim.remove(join(root, 'seeddir', 'inner.txt'));
    assert.deepEqual(await sim.readdir(join(root, 'seeddir')), ['new.txt']);
    await sim.symlink('seeddir', join(root, 'alias'));
    assert.equal((await sim.readFile(join(root, 'alias', 'new.txt'))).toString(), 'new');
    assert.deepEqual(
      sim.actions.map((a) => a.op),
      ['chmod', 'write', 'remove', 'symlink'],
    );
    assert.deepEqual(diskSnapshot(root), before);
  });
});
