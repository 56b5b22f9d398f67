/** The fan-out over hosts: forks, unreachable and slow hosts, totals and exit codes. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hostProgress } from '../../src/cli/hosts-report.js';
import { fleetExitCode, runOnHosts, totalsLine } from '../../src/engine/fanout.js';

interface TestHost {
  readonly name: string;
  open(): Promise<void>;
  close(): Promise<void>;
  closed: number;
}

function host(name: string, open: () => Promise<void> = async () => {}): TestHost {
  return {
    name,
    open,
    closed: 0,
    async close() {
      this.closed += 1;
    },
  };
}

const never = (): Promise<void> => new Promise(() => {});

describe('runOnHosts', () => {
  test('at most `forks` hosts are worked on at once; outcomes keep the order of the hosts', async () => {
    let running = 0;
    let most = 0;
    const hosts = Array.from({ length: 7 }, (_, i) => host(`h${i}`));
    const outcomes = await runOnHosts(hosts, { forks: 3, connectTimeoutMs: 1000 }, async (h) => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((r) => setImmediate(r));
      running -= 1;
      return h.name.toUpperCase();
    });
    assert.equal(most, 3);
    assert.deepEqual(
      outcomes.map((o) => (o.status === 'done' ? o.value : o.status)),
      ['H0', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6'],
    );
    assert.deepEqual(
      hosts.map((h) => h.closed),
      [1, 1, 1, 1, 1, 1, 1],
    );
  });

  test('a host that cannot connect, or never answers, is unreachable with why; the rest finish', async () => {
    const hosts = [
      host('ok'),
      host('refused', async () => {
        throw new Error('refused: connection refused by 10.0.0.1:22');
      }),
      host('silent', never),
    ];
    const outcomes = await runOnHosts(hosts, { forks: 1, connectTimeoutMs: 50 }, async () => 'ran');
    assert.deepEqual(
      outcomes.map((o) => [o.host, o.status, o.status === 'done' ? o.value : o.reason]),
      [
        ['ok', 'done', 'ran'],
        ['refused', 'unreachable', 'connection refused by 10.0.0.1:22'],
        ['silent', 'unreachable', 'timed out connecting after 0.05 s'],
      ],
    );
  });

  test('work that throws or passes the command timeout fails that host only', async () => {
    const outcomes = await runOnHosts([host('a'), host('b'), host('c')], { forks: 3, connectTimeoutMs: 1000, commandTimeoutMs: 50 }, async (h) => {
      if (h.name === 'a') throw new Error('a: the connection was lost');
      if (h.name === 'b') await never();
      return 1;
    });
    assert.deepEqual(
      outcomes.map((o) => [o.host, o.status, o.status === 'done' ? o.value : o.reason]),
      [
        ['a', 'failed', 'the connection was lost'],
        ['b', 'failed', 'timed out after 0.05 s'],
        ['c', 'done', 1],
      ],
    );
  });
});

describe('fleet totals and exit codes', () => {
  test('the totals line', () => {
    assert.equal(totalsLine({ hosts: 4, changed: 1, ok: 1, failed: 1, unreachable: 1 }), '4 hosts: 1 changed, 1 ok, 1 failed, 1 unreachable');
    assert.equal(totalsLine({ hosts: 1, changed: 0, ok: 1, failed: 0, unreachable: 0 }), '1 host: 0 changed, 1 ok, 0 failed, 0 unreachable');
  });
  test('1 for a failure, then 4 for unreachable hosts, then 2 for changes with --detailed-exitcode', () => {
    const t = { hosts: 3, changed: 1, ok: 0, failed: 1, unreachable: 1 };
    assert.equal(fleetExitCode(t, true), 1);
    assert.equal(fleetExitCode({ ...t, failed: 0 }, true), 4);
    assert.equal(fleetExitCode({ ...t, failed: 0, unreachable: 0 }, true), 2);
    assert.equal(fleetExitCode({ ...t, failed: 0, unreachable: 0 }, false), 0);
  });
});

describe('progress', () => {
  test('a line per host on a terminal, nothing when piped', () => {
    const lines: string[] = [];
    const tty = { isTTY: true, write: (s: string) => lines.push(s) } as unknown as NodeJS.WriteStream;
    const saved = process.env.CI;
    delete process.env.CI;
    try {
      const show = hostProgress(tty);
      assert.ok(show);
      show({ host: 'web1', status: 'unreachable', reason: 'connection refused by 10.0.0.1:22', durationMs: 1234 });
      assert.deepEqual(lines, ['[1] web1: unreachable: connection refused by 10.0.0.1:22 (1.2 s)\n']);
      assert.equal(hostProgress({ isTTY: false } as unknown as NodeJS.WriteStream), undefined);
    } finally {
      if (saved !== undefined) process.env.CI = saved;
    }
  });
});
