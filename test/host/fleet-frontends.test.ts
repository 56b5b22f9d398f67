/**
 * Converge and Zapusk on many hosts against real sshd on loopback: the program runs once per selected host,
 * acting on that host. Three hosts: alpha logs in as root, gamma as a non-root user with become, delta is
 * down. Every test server serves this machine, so each sets CAIRN_TEST_ROOT (and XDG_STATE_HOME) for its
 * sessions and the programs act under it.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cairn } from '../cli/cli-helpers.js';
import { BECOME_USER, ensureBecomeUser, sshdMissing, startTestFleet, type TestSshd, testClientKey, writeFleetInventory } from './sshd.js';

const missing = sshdMissing() ?? ensureBecomeUser();

// Reads the target: its platform (facts), its environment, and a task that runs there.
const HCL = `file.content "motd" {
  destination = "{{env \`CAIRN_TEST_ROOT\`}}/motd"
  content     = "{{with platform}}{{.OS}}{{end}} at {{env \`CAIRN_TEST_ROOT\`}}"
}

task "marker" {
  check = "test -f \\"$CAIRN_TEST_ROOT/marker\\""
  apply = "id -u > \\"$CAIRN_TEST_ROOT/marker\\""
}
`;

const ZAPUSK = `#### site ####
[file]
path={\`printf %s "$CAIRN_TEST_ROOT"\`}/zapusk.txt
content=written by zapusk
`;

if (missing) {
  test('Converge and Zapusk over SSH', { skip: missing }, () => {});
} else {
  const servers: TestSshd[] = [];
  const roots: Record<string, string> = {};
  let dir: string;
  let home: string;
  let inventory: string;
  let downPort: number;

  before(async () => {
    const fleet = await startTestFleet('cairn-fleet-fe-', ['alpha', 'gamma'], (root) => ({ XDG_STATE_HOME: join(root, 'state') }));
    ({ dir, home, downPort } = fleet);
    Object.assign(roots, fleet.roots);
    servers.push(...fleet.servers);
    inventory = writeFleetInventory(fleet, 'gamma');
    fs.writeFileSync(join(dir, 'main.hcl'), HCL);
    fs.mkdirSync(join(dir, 'site.zdb'));
    fs.writeFileSync(join(dir, 'site.zdb', '10-site.ini'), ZAPUSK);
  });
  after(() => {
    for (const s of servers) s.stop();
  });

  const state = () => join(dir, 'state');
  const run = (args: string[]) =>
    cairn([...args, '--inventory', inventory, '--state-dir', state(), '--accept-new-host-keys'], { cwd: dir, env: { HOME: home, SSH_AUTH_SOCK: '', CAIRN_STORE: '' } });
  const history = (...args: string[]) => cairn(['history', ...args, '--state-dir', state(), '--out', 'json'], { env: { HOME: home, CAIRN_STORE: '' } });

  describe('Converge on three hosts', () => {
    test('apply acts on each live host (one through become), lists the dead one apart, exits 4; a re-run is a no-op', () => {
      const r = run(['converge', 'apply', join(dir, 'main.hcl'), '--hosts', 'all']);
      assert.equal(r.code, 4, r.stdout + r.stderr);
      // Each host in Converge's own format, then the unreachable one, then the totals.
      assert.match(r.stdout, /^== alpha\n\nroot\/file\.content\.motd:\n/);
      assert.match(r.stdout, /\n== gamma\n\nroot\/file\.content\.motd:\n/);
      assert.equal(r.stdout.match(/Summary: 0 errors, 2 changes/g)?.length, 2, r.stdout);
      assert.match(r.stdout, new RegExp(`unreachable:\\n  delta: connection refused by 127\\.0\\.0\\.1:${downPort}\\n`));
      assert.match(r.stdout, /3 hosts: 2 changed, 0 ok, 0 failed, 1 unreachable \(run (\d+)\)\n$/);
      for (const name of ['alpha', 'gamma']) {
        const root = roots[name] as string;
        // platform and env came from the target (the second server's env, kept through sudo).
        assert.equal(fs.readFileSync(join(root, 'motd'), 'utf8'), `linux at ${root}`);
        assert.equal(fs.statSync(join(root, 'motd')).uid, 0, `${name}: written as root`);
        assert.equal(fs.readFileSync(join(root, 'marker'), 'utf8'), '0\n', `${name}: the task ran as root`);
      }
      const runId = Number(/\(run (\d+)\)\n$/.exec(r.stdout)?.[1]);
      const record = JSON.parse(history(String(runId)).stdout) as { frontEnd: string; mode: string; results: Array<{ id: string; host: string; status: string }> };
      assert.equal(record.frontEnd, 'converge');
      assert.equal(record.mode, 'apply');
      assert.deepEqual(
        record.results.map((x) => `${x.host} ${x.id} ${x.status}`).sort(),
        ['alpha', 'gamma'].flatMap((h) => [`${h} root/file.content.motd changed`, `${h} root/task.marker changed`]).sort(),
      );
      const again = run(['converge', 'apply', join(dir, 'main.hcl'), '--hosts', 'all,!delta', '--detailed-exitcode']);
      assert.equal(again.code, 0, again.stdout + again.stderr);
      assert.equal(again.stdout.match(/Summary: 0 errors, 0 changes/g)?.length, 2, again.stdout);
      assert.match(again.stdout, /2 hosts: 0 changed, 2 ok, 0 failed, 0 unreachable/);
    });

    test('plan changes nothing and exits 2 with --detailed-exitcode when a host has changes pending', () => {
      fs.rmSync(join(roots.gamma as string, 'marker'));
      const r = run(['converge', 'plan', join(dir, 'main.hcl'), '--hosts', 'alpha,gamma', '--detailed-exitcode', '--out', 'json']);
      assert.equal(r.code, 2, r.stdout + r.stderr);
      const out = JSON.parse(r.stdout) as { mode: string; totals: Record<string, number>; hosts: Record<string, { status: string }> };
      assert.equal(out.mode, 'check');
      assert.deepEqual(out.totals, { hosts: 2, changed: 1, ok: 1, failed: 0, unreachable: 0 });
      assert.equal(out.hosts.gamma?.status, 'changed');
      assert.ok(!fs.existsSync(join(roots.gamma as string, 'marker')), 'a plan changes nothing');
      assert.equal(run(['converge', 'apply', join(dir, 'main.hcl'), '--hosts', 'gamma']).code, 0);
    });

    test('a check script that is bad input stops the command before any host is touched', () => {
      fs.writeFileSync(join(dir, 'bad.hcl'), 'task "t" {\n  check = "echo a(b"\n  apply = "true"\n}\n');
      const r = run(['converge', 'apply', join(dir, 'bad.hcl'), '--hosts', 'all']);
      assert.equal(r.code, 1);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /bad\.hcl:2:\d+: CV041 syntax error/);
    });
  });

  describe('Zapusk on three hosts', () => {
    test('apply acts on each live host, keeps each host its own program state there, exits 4; a re-run is a no-op', () => {
      const r = run(['zapusk', join(dir, 'site.zdb'), 'apply', '--hosts', 'all']);
      assert.equal(r.code, 4, r.stdout + r.stderr);
      assert.match(r.stdout, /^== alpha\n\*\*\* zapusk: started\. /);
      for (const name of ['alpha', 'gamma']) {
        const root = roots[name] as string;
        assert.match(r.stdout, new RegExp(`\\*\\*\\* wrote ${root}/zapusk\\.txt \\(site \\[file\\] in site\\)`));
        assert.equal(fs.readFileSync(join(root, 'zapusk.txt'), 'utf8'), 'written by zapusk');
        assert.equal(fs.statSync(join(root, 'zapusk.txt')).uid, 0, `${name}: written as root`);
        // The program's state is on the target, under its own state dir.
        assert.ok(fs.existsSync(join(root, 'state', 'cairn', 'zapusk', 'site', 'params.txt')), `${name}: program state on the target`);
      }
      assert.match(r.stdout, new RegExp(`unreachable:\\n  delta: connection refused by 127\\.0\\.0\\.1:${downPort}\\n`));
      assert.match(r.stdout, /3 hosts: 2 changed, 0 ok, 0 failed, 1 unreachable \(run \d+\)\n$/);
      const again = run(['zapusk', join(dir, 'site.zdb'), 'apply', '--hosts', 'alpha,gamma', '--detailed-exitcode']);
      assert.equal(again.code, 0, again.stdout + again.stderr);
      assert.match(again.stdout, /2 hosts: 0 changed, 2 ok, 0 failed, 0 unreachable/);
    });

    test('destroy on the hosts is recorded as one destroy run with results marked by host; a failing host exits 1', () => {
      const r = run(['zapusk', join(dir, 'site.zdb'), 'destroy', '--hosts', 'alpha,gamma']);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      for (const name of ['alpha', 'gamma']) assert.ok(!fs.existsSync(join(roots[name] as string, 'zapusk.txt')), `${name}: destroyed`);
      const runs = JSON.parse(history('--front-end', 'zapusk').stdout) as Array<{ id: number; mode: string }>;
      assert.equal(runs[0]?.mode, 'destroy');
      const record = JSON.parse(history(String(runs[0]?.id)).stdout) as { results: Array<{ host: string }> };
      assert.deepEqual([...new Set(record.results.map((x) => x.host))].sort(), ['alpha', 'gamma']);
    });

    test('a step that fails on one host only: that host is failed with its zapusk-tool output, the other done, exit 1', () => {
      fs.mkdirSync(join(dir, 'fail.zdb'));
      // Only on gamma's machine (its root holds the file): the step exits 3.
      fs.writeFileSync(join(roots.gamma as string, 'broken'), '');
      fs.writeFileSync(join(dir, 'fail.zdb', '10-x.ini'), '#### x ####\n[os]\napply=test ! -e "$CAIRN_TEST_ROOT/broken" || exit 3\n');
      const f = run(['zapusk', join(dir, 'fail.zdb'), 'apply', '--hosts', 'alpha,gamma']);
      assert.equal(f.code, 1, f.stdout + f.stderr);
      assert.match(f.stdout, /== gamma\n[^]*\*\*\* ERROR: unsupported non-zero exit code \[3\][^]*10-x\.ini:2:1: Z030 /);
      assert.match(f.stdout, /== alpha\n[^]*result=done\n== gamma/);
      assert.match(f.stdout, /2 hosts: 1 changed, 0 ok, 1 failed, 0 unreachable/);
    });
  });

  describe('OpenSSH client config', () => {
    test('hosts given only by name connect with HostName, Port, User, IdentityFile and ProxyJump from ~/.ssh/config', () => {
      const [a, g] = servers as [TestSshd, TestSshd];
      const sshHome = join(dir, 'cfg-home');
      fs.mkdirSync(join(sshHome, '.ssh'), { recursive: true });
      fs.writeFileSync(
        join(sshHome, '.ssh', 'config'),
        `Host cfg-alpha\n  HostName 127.0.0.1\n  Port ${a.port}\n  User root\n\nHost cfg-gamma\n  HostName 127.0.0.1\n  Port ${g.port}\n  User ${BECOME_USER}\n  ProxyJump cfg-alpha\n\nHost *\n  IdentityFile ${testClientKey()}\n`,
      );
      const inv = join(dir, 'by-name.yaml');
      // Nothing but names (and become, which ssh has no word for).
      fs.writeFileSync(inv, 'hosts:\n  cfg-alpha: {}\n  cfg-gamma: {become: true}\n');
      const r = cairn(['converge', 'apply', join(dir, 'main.hcl'), '--inventory', inv, '--hosts', 'all', '--state-dir', state(), '--accept-new-host-keys', '--detailed-exitcode'], {
        cwd: dir,
        env: { HOME: sshHome, SSH_AUTH_SOCK: '', CAIRN_STORE: '' },
      });
      // Both reached (gamma through alpha as its jump host, as the become user); the earlier runs converged them.
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.match(r.stdout, /2 hosts: 0 changed, 2 ok, 0 failed, 0 unreachable/);
      // An inventory value wins over the config: a wrong port given in the inventory is used, and refused.
      fs.writeFileSync(inv, `hosts:\n  cfg-alpha: {port: ${downPort}}\n`);
      const wins = cairn(['converge', 'plan', join(dir, 'main.hcl'), '--inventory', inv, '--hosts', 'all', '--state-dir', state()], { cwd: dir, env: { HOME: sshHome, SSH_AUTH_SOCK: '', CAIRN_STORE: '' } });
      assert.equal(wins.code, 4, wins.stdout + wins.stderr);
      assert.match(wins.stdout, new RegExp(`cfg-alpha: connection refused by 127\\.0\\.0\\.1:${downPort}`));
      // --ssh-config none: nothing comes from the config (no key, no address), so the host is unreachable.
      fs.writeFileSync(join(dir, 'by-name-2.yaml'), 'hosts:\n  cfg-alpha: {}\n');
      const none = cairn(['ping', 'all', '--inventory', join(dir, 'by-name-2.yaml'), '--state-dir', state(), '--ssh-config', 'none', '--connect-timeout', '3'], { cwd: dir, env: { HOME: sshHome, SSH_AUTH_SOCK: '' } });
      assert.equal(none.code, 4, none.stdout + none.stderr);
      assert.match(none.stdout, /cfg-alpha: unreachable: /);
    });
  });
}
