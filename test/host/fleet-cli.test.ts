/**
 * `cairn plan|apply GRAPH --inventory F --hosts P` against real sshd on loopback: three reachable hosts
 * (one logging in as a non-root user with become) and one that is down. Every test server serves this
 * machine, so each sets CAIRN_TEST_ROOT for its sessions and the graph writes under it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CAIRN, cairn, ROOT } from '../cli/cli-helpers.js';
import { BECOME_USER, ensureBecomeUser, sshdMissing, startSshd, startTestFleet, type TestSshd, testClientKey, writeFleetInventory } from './sshd.js';

const missing = sshdMissing() ?? ensureBecomeUser();

const GRAPH = {
  version: 1,
  nodes: [
    // Reads the server's CAIRN_TEST_ROOT on the target: which test machine this is.
    { id: 'where', type: 'wait', params: { check: 'printf %s "$CAIRN_TEST_ROOT"', max_retry: 1 } },
    { id: 'motd', type: 'file', params: { path: { $concat: [{ $ref: 'where', field: 'stdout' }, '/motd'] }, source: 'motd.txt', mode: '0644' } },
    { id: 'conf', type: 'file', params: { path: { $concat: [{ $ref: 'where', field: 'stdout' }, '/app.conf'] }, content: 'port = 8080\n', mode: '0600' } },
    {
      id: 'slow',
      type: 'command',
      // Only where the test put a `killme` file: it waits there, so the test can kill that connection mid-run.
      params: { cmd: 'touch "$CAIRN_TEST_ROOT/started"; sleep 30', unless: 'test ! -e "$CAIRN_TEST_ROOT/killme"' },
      require: ['conf'],
    },
  ],
};

if (missing) {
  test('fleet runs over SSH', { skip: missing }, () => {});
} else {
  const servers: TestSshd[] = [];
  const roots: Record<string, string> = {};
  let dir: string;
  let home: string;
  let inventory: string;
  let graph: string;
  let downPort: number;

  before(async () => {
    const fleet = await startTestFleet('cairn-fleet-', ['alpha', 'beta', 'gamma']);
    ({ dir, home, downPort } = fleet);
    Object.assign(roots, fleet.roots);
    servers.push(...fleet.servers);
    inventory = writeFleetInventory(fleet, 'gamma', `groups:\n  web: {hosts: [alpha, beta]}\n  db: {hosts: [gamma, delta]}\n`);
    fs.writeFileSync(join(dir, 'motd.txt'), 'from the controller\n');
    graph = join(dir, 'graph.json');
    fs.writeFileSync(graph, JSON.stringify(GRAPH));
  });
  after(() => {
    for (const s of servers) s.stop();
  });

  const run = (args: string[], stateDir = join(dir, 'state')) => cairn([...args, '--inventory', inventory, '--state-dir', stateDir], { cwd: dir, env: { HOME: home, SSH_AUTH_SOCK: '' } });

  describe('graph front end on four hosts', () => {
    test('an unknown host key is refused without --accept-new-host-keys, and nothing is changed', () => {
      const r = run(['apply', graph, '--hosts', 'all'], join(dir, 'refusing-state'));
      assert.equal(r.code, 4, r.stderr);
      for (const name of ['alpha', 'beta', 'gamma']) {
        assert.match(r.stdout, new RegExp(`  ${name}: host key of \\[127\\.0\\.0\\.1\\]:\\d+ is not known \\(ssh-ed25519 SHA256:[^)]+\\); check it, then run again with --accept-new-host-keys`));
        assert.deepEqual(fs.readdirSync(roots[name] as string), []);
      }
      assert.match(r.stdout, /4 hosts: 0 changed, 0 ok, 0 failed, 4 unreachable/);
    });

    test('apply reaches every live host (one through become), lists the dead one apart, exits 4; then converges', () => {
      const r = run(['apply', graph, '--hosts', 'all', '--accept-new-host-keys']);
      assert.equal(r.code, 4, r.stdout + r.stderr);
      assert.match(r.stdout, new RegExp(`unreachable:\\n  delta: connection refused by 127\\.0\\.0\\.1:${downPort}\\n`));
      assert.match(r.stdout, /4 hosts: 3 changed, 0 ok, 0 failed, 1 unreachable \(run \d+\)\n$/);
      for (const name of ['alpha', 'beta', 'gamma']) {
        const root = roots[name] as string;
        assert.equal(fs.readFileSync(join(root, 'motd'), 'utf8'), 'from the controller\n');
        const conf = fs.statSync(join(root, 'app.conf'));
        assert.equal(conf.mode & 0o7777, 0o600);
        assert.equal(conf.uid, 0, `${name}: written as root`);
      }
      const again = run(['plan', graph, '--hosts', 'all,!delta', '--detailed-exitcode']);
      assert.equal(again.code, 0, again.stdout);
      assert.match(again.stdout, /3 hosts: 0 changed, 3 ok, 0 failed, 0 unreachable/);
      const history = cairn(['history', '--state-dir', join(dir, 'state'), '--out', 'json', '1'], { env: { HOME: home } });
      const record = JSON.parse(history.stdout) as { results: Array<{ id: string; host: string; status: string }> };
      assert.deepEqual(
        record.results.map((x) => `${x.host} ${x.id} ${x.status}`).sort(),
        ['alpha', 'beta', 'gamma'].flatMap((h) => [`${h} conf changed`, `${h} motd changed`, `${h} slow ok`, `${h} where ok`]).sort(),
      );
      const forBeta = cairn(['history', '1', '--host', 'beta', '--state-dir', join(dir, 'state'), '--out', 'json'], { env: { HOME: home } });
      const betaRecord = JSON.parse(forBeta.stdout) as { results: Array<{ host: string }>; counts: { changed: number } };
      assert.deepEqual([...new Set(betaRecord.results.map((x) => x.host))], ['beta']);
      assert.equal(betaRecord.counts.changed, 2);
      const runsOfDelta = cairn(['history', '--host', 'delta', '--state-dir', join(dir, 'state'), '--out', 'json'], { env: { HOME: home } });
      assert.deepEqual(JSON.parse(runsOfDelta.stdout), [], 'an unreachable host has no results');
      // No key material anywhere in the run store.
      const keyBody = fs.readFileSync(testClientKey(), 'utf8').split('\n').slice(1, -2).join('');
      const walk = (d: string): string[] => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)]));
      for (const f of walk(join(dir, 'state'))) {
        const text = fs.readFileSync(f, 'utf8');
        assert.ok(!text.includes('PRIVATE KEY') && !text.replace(/\s/g, '').includes(keyBody.slice(0, 40)), `${f} holds no key material`);
      }
      const runsOfBeta = cairn(['history', '--host', 'beta', '--state-dir', join(dir, 'state'), '--out', 'json'], { env: { HOME: home } });
      assert.deepEqual((JSON.parse(runsOfBeta.stdout) as Array<{ id: number }>).map((x) => x.id), [2, 1]);
    });

    test('patterns: groups, exclusions, intersections; an unknown name is an error', () => {
      const r = cairn(['hosts', 'web,db,!delta', '--inventory', inventory], { cwd: dir });
      assert.equal(r.code, 0);
      assert.deepEqual(
        r.stdout.split('\n').map((l) => l.split(/\s+/)[0]),
        ['HOST', 'alpha', 'beta', 'gamma', '3', ''],
      );
      assert.match(r.stdout, new RegExp(`gamma\\s+127\\.0\\.0\\.1:\\d+\\s+${BECOME_USER}\\s+sudo\\s+-\\s+db`));
      const bad = run(['plan', graph, '--limit', 'web,nosuch']);
      assert.equal(bad.code, 1);
      assert.equal(bad.stderr, `cairn: unknown host or group "nosuch" in ${inventory} (it has alpha, beta, gamma, delta, web, db)\n`);
    });

    test('ping reports facts of each host and why the dead one is unreachable', () => {
      const r = run(['ping', 'all', '--accept-new-host-keys']);
      assert.equal(r.code, 4);
      const hostname = fs.readFileSync('/proc/sys/kernel/hostname', 'utf8').trim();
      for (const name of ['alpha', 'beta', 'gamma']) assert.match(r.stdout, new RegExp(`^${name}: ok: ${hostname} .*, Linux `, 'm'));
      assert.match(r.stdout, new RegExp(`^delta: unreachable: connection refused by 127\\.0\\.0\\.1:${downPort}$`, 'm'));
      assert.match(r.stdout, /4 hosts: 0 changed, 3 ok, 0 failed, 1 unreachable/);
    });

    test('--forks 1 and --forks 20 give the same results', () => {
      const strip = (out: string): unknown => {
        const j = JSON.parse(out) as { totals: unknown; hosts: Record<string, { status: string; results?: Array<Record<string, unknown>>; reason?: string }> };
        const hosts = Object.fromEntries(
          Object.entries(j.hosts).map(([h, v]) => [h, { status: v.status, reason: v.reason, results: v.results?.map((x) => ({ id: x.id, status: x.status, changes: x.changes, comment: x.comment })) }]),
        );
        return { totals: j.totals, hosts };
      };
      fs.writeFileSync(join(dir, 'motd.txt'), 'changed on the controller\n');
      const one = run(['plan', graph, '--hosts', 'all', '--forks', '1', '--out', 'json']);
      const many = run(['plan', graph, '--hosts', 'all', '--forks', '20', '--out', 'json']);
      assert.equal(one.code, 4);
      assert.equal(many.code, 4);
      assert.deepEqual(strip(one.stdout), strip(many.stdout));
      assert.deepEqual((strip(one.stdout) as { totals: unknown }).totals, { hosts: 4, changed: 3, ok: 0, failed: 0, unreachable: 1 });
      // What reaching each host cost: the same requests on every host, in a few sequential round trips.
      const transport = Object.entries((JSON.parse(many.stdout) as { hosts: Record<string, { transport?: { requests: number; roundTrips: number } }> }).hosts);
      for (const [name, h] of transport.filter(([n]) => n !== 'delta')) {
        assert.ok(h.transport && h.transport.roundTrips >= 3 && h.transport.roundTrips <= 8, `${name}: ${JSON.stringify(h.transport)}`);
      }
      assert.equal(new Set(transport.filter(([n]) => n !== 'delta').map(([, h]) => h.transport?.requests)).size, 1);
      fs.writeFileSync(join(dir, 'motd.txt'), 'from the controller\n');
    });

    test('a connection killed mid-run fails that host only; the others finish; a re-run converges', async () => {
      const alpha = roots.alpha as string;
      fs.writeFileSync(join(alpha, 'app.conf'), 'drifted\n');
      fs.writeFileSync(join(alpha, 'killme'), '');
      const child = spawn(process.execPath, [CAIRN, 'apply', graph, '--hosts', 'all,!delta', '--inventory', inventory, '--state-dir', join(dir, 'state')], {
        cwd: dir,
        env: { ...process.env, HOME: home, SSH_AUTH_SOCK: '', NO_COLOR: '1' },
      });
      let stdout = '';
      child.stdout.on('data', (b: Buffer) => {
        stdout += b.toString();
      });
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      // Wait until alpha's slow command is running, then kill the connection processes of alpha's server.
      for (let i = 0; i < 400 && !fs.existsSync(join(alpha, 'started')); i++) await new Promise((r) => setTimeout(r, 50));
      assert.ok(fs.existsSync(join(alpha, 'started')), 'the slow command started on alpha');
      (servers[0] as TestSshd).killSessions();
      const code = await exited;
      assert.equal(code, 1, stdout);
      assert.match(stdout, /failed\s+command slow .*connection/);
      assert.match(stdout, /3 hosts: 0 changed, 2 ok, 1 failed, 0 unreachable/);
      fs.rmSync(join(alpha, 'killme'));
      fs.rmSync(join(alpha, 'started'));
      const rerun = run(['apply', graph, '--hosts', 'all,!delta']);
      assert.equal(rerun.code, 0, rerun.stdout);
      assert.match(rerun.stdout, /3 hosts: 0 changed, 3 ok, 0 failed, 0 unreachable/);
      assert.equal(fs.readFileSync(join(alpha, 'app.conf'), 'utf8'), 'port = 8080\n');
    });
  });

  test('a missing source file stops the run before any host is contacted', () => {
    const g = join(dir, 'missing-source.json');
    fs.writeFileSync(g, JSON.stringify({ version: 1, nodes: [{ id: 'f', type: 'file', params: { path: '/tmp/never-written-by-cairn', source: 'nope.txt' } }] }));
    const r = run(['apply', g, '--hosts', 'all']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /R002 file "f": source file .*nope\.txt does not exist/);
    assert.equal(r.stdout, '');
  });

  test('an inventory host reached through a jump host named in the inventory', async () => {
    const inner = await startSshd({ allowForwarding: false, setEnv: { CAIRN_TEST_ROOT: '/nonexistent' } });
    try {
      const inv = join(dir, 'jump.yaml');
      const [a] = servers as [TestSshd];
      fs.writeFileSync(inv, `defaults: {user: root, key: ${testClientKey()}}\nhosts:\n  bastion: {address: 127.0.0.1, port: ${a.port}}\n  inner: {address: 127.0.0.1, port: ${inner.port}, jump: bastion}\n`);
      const r = cairn(['ping', 'inner', '--inventory', inv, '--state-dir', join(dir, 'state'), '--accept-new-host-keys'], { cwd: dir, env: { HOME: home, SSH_AUTH_SOCK: '' } });
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.match(r.stdout, /^inner: ok: /m);
      assert.match(r.stdout, /1 host: 0 changed, 1 ok, 0 failed, 0 unreachable/);
    } finally {
      inner.stop();
    }
  });

  test('--become makes a non-root login act as root for the run', () => {
    const [a] = servers as [TestSshd];
    const inv = join(dir, 'plain-user.yaml');
    fs.writeFileSync(inv, `hosts:\n  alpha: {address: 127.0.0.1, port: ${a.port}, user: ${BECOME_USER}, key: ${testClientKey()}}\n`);
    const g = join(dir, 'root-only.json');
    fs.writeFileSync(g, JSON.stringify({ version: 1, nodes: [{ id: 'f', type: 'file', params: { path: join(roots.alpha as string, 'root-only'), content: 'x\n' } }] }));
    const args = ['apply', g, '--inventory', inv, '--hosts', 'alpha', '--state-dir', join(dir, 'state'), '--accept-new-host-keys'];
    const plain = cairn(args, { cwd: dir, env: { HOME: home, SSH_AUTH_SOCK: '' } });
    assert.equal(plain.code, 1, plain.stdout);
    assert.match(plain.stdout, /permission denied/);
    const become = cairn([...args, '--become'], { cwd: dir, env: { HOME: home, SSH_AUTH_SOCK: '' } });
    assert.equal(become.code, 0, become.stdout + become.stderr);
    assert.equal(fs.statSync(join(roots.alpha as string, 'root-only')).uid, 0);
    fs.rmSync(join(roots.alpha as string, 'root-only'));
  });

  test('a malformed inventory is a positioned diagnostic and nothing runs', () => {
    const bad = join(dir, 'bad.yaml');
    fs.writeFileSync(bad, 'hosts:\n  web1: {port: http}\n');
    const r = cairn(['apply', graph, '--inventory', bad, '--hosts', 'all'], { cwd: ROOT });
    assert.equal(r.code, 1);
    assert.equal(r.stderr, `${bad}:2:16: INV002 port: expected a port number from 1 to 65535, found string "http"\n 2 |   web1: {port: http}\n   |                ^\n`);
  });
}
