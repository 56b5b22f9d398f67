/**
 * `cairn salt state.apply --inventory F --hosts P` against real sshd on loopback: two reachable minions
 * (one logging in as a non-root user with become) and one that is down. Every test server serves this
 * machine, so each sets CAIRN_TEST_ROOT for its sessions (the SLS asks the minion for it at render time);
 * beta's commands run through the become user's sudo, whose secure_path gives beta a `path` grain of its
 * own (the top file matches it).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cairn } from '../cli/cli-helpers.js';
import { BECOME_USER, ensureBecomeUser, sshdMissing, startSshd, startTestFleet, type TestSshd, testClientKey, writeFleetInventory } from './sshd.js';

const missing = sshdMissing() ?? ensureBecomeUser();

const ROOT_OF_MINION = `{% set root = salt['cmd.run']('printf %s "$CAIRN_TEST_ROOT"', python_shell=True) %}`;

const TREE: Record<string, string> = {
  'salt/top.sls': [
    'base:',
    "  '*':",
    '    - common',
    "  'alpha':",
    '    - web',
    "  'beta':",
    '    - db',
    "  'G@path:*cairn-become*':",
    '    - match: compound',
    '    - tools',
    '',
  ].join('\n'),
  'salt/common.sls': `${ROOT_OF_MINION}\nmotd:\n  file.managed:\n    - name: {{ root }}/motd\n    - source: salt://files/motd\n    - mode: '0644'\n`,
  'salt/web.sls': `${ROOT_OF_MINION}\nweb-conf:\n  file.managed:\n    - name: {{ root }}/web.conf\n    - contents: port={{ pillar['port'] }} minion={{ grains['id'] }}\n`,
  'salt/db.sls': `${ROOT_OF_MINION}\ndb-conf:\n  file.managed:\n    - name: {{ root }}/db.conf\n    - contents: role={{ pillar['role'] }} user={{ grains['username'] }} port={{ pillar.get('port', 'none') }}\n`,
  'salt/tools.sls': `${ROOT_OF_MINION}\ntools:\n  file.managed:\n    - name: {{ root }}/tools\n    - contents: from the grain match\n`,
  'salt/broken.sls': `${ROOT_OF_MINION}\nfails-on-beta:\n  cmd.run:\n    - name: test "$CAIRN_TEST_ROOT" != '{{ root }}' || {{ 'false' if grains['id'] == 'beta' else 'true' }}\n`,
  'salt/files/motd': 'from the controller\n',
  'salt/probe.sls': `${ROOT_OF_MINION}\nprobe:\n  test.nop:\n    - root: {{ root }}\n`,
  'salt/script.sls': 'run-script:\n  cmd.script:\n    - source: salt://files/hello.sh\n    - args: from-controller\n',
  'salt/files/hello.sh': 'printf "%s %s %s\\n" "$1" "$(id -un)" "$0" > "$CAIRN_TEST_ROOT/script-out"\n',
  'pillar/top.sls': "base:\n  'alpha':\n    - web\n  'beta':\n    - db\n",
  'pillar/web.sls': 'port: 8080\n',
  'pillar/db.sls': 'role: primary\n',
};

if (missing) {
  test('Salt on many hosts over SSH', { skip: missing }, () => {});
} else {
  const servers: TestSshd[] = [];
  const roots: Record<string, string> = {};
  let dir: string;
  let home: string;
  let inventory: string;
  let downPort: number;

  before(async () => {
    const fleet = await startTestFleet('cairn-salt-fleet-', ['alpha', 'beta']);
    ({ dir, home, downPort } = fleet);
    Object.assign(roots, fleet.roots);
    servers.push(...fleet.servers);
    inventory = writeFleetInventory(fleet, 'beta');
    for (const [p, text] of Object.entries(TREE)) {
      fs.mkdirSync(join(dir, p, '..'), { recursive: true });
      fs.writeFileSync(join(dir, p), text);
    }
  });
  after(() => {
    for (const s of servers) s.stop();
  });

  const salt = (args: string[]) =>
    cairn(['salt', ...args, '--file-root', join(dir, 'salt'), '--pillar-root', join(dir, 'pillar'), '--inventory', inventory, '--state-dir', join(dir, 'state')], {
      cwd: dir,
      env: { HOME: home, SSH_AUTH_SOCK: '' },
    });

  describe('Salt highstate on three minions', () => {
    test('each minion gets what the top file gives it, with its own grains and pillar; the dead one is listed apart', () => {
      const r = salt(['state.apply', '--hosts', 'all', '--accept-new-host-keys']);
      assert.equal(r.code, 4, r.stdout + r.stderr);
      const alpha = roots.alpha as string;
      const beta = roots.beta as string;
      // salt:// read on the controller, written on each minion; the minion's own root came from a render-time command there.
      for (const root of [alpha, beta]) assert.equal(fs.readFileSync(join(root, 'motd'), 'utf8'), 'from the controller\n');
      assert.equal(fs.readFileSync(join(alpha, 'web.conf'), 'utf8'), 'port=8080 minion=alpha\n');
      assert.equal(fs.readFileSync(join(beta, 'tools'), 'utf8'), 'from the grain match\n');
      // beta logs in as another user and becomes root: its grains say root, its files are root's; no web pillar there.
      assert.equal(fs.readFileSync(join(beta, 'db.conf'), 'utf8'), 'role=primary user=root port=none\n');
      assert.equal(fs.statSync(join(beta, 'db.conf')).uid, 0);
      assert.deepEqual(fs.readdirSync(alpha).sort(), ['motd', 'web.conf']);
      assert.deepEqual(fs.readdirSync(beta).sort(), ['db.conf', 'motd', 'tools']);
      // Salt's multi-minion text: each minion under its id, with its own summary; then the fleet's lines.
      assert.match(r.stdout, /^alpha:\n----------\n {10}ID: motd\n {4}Function: file\.managed\n/);
      assert.match(r.stdout, /\nSummary for alpha\n-+\nSucceeded: 2 \(changed=2\)\nFailed: +0\n/);
      assert.match(r.stdout, /\nbeta:\n----------\n {10}ID: motd\n/);
      assert.match(r.stdout, /\nSummary for beta\n-+\nSucceeded: 3 \(changed=3\)\nFailed: +0\n/);
      assert.match(r.stdout, new RegExp(`\\nunreachable:\\n  delta: connection refused by 127\\.0\\.0\\.1:${downPort}\\n3 hosts: 2 changed, 0 ok, 0 failed, 1 unreachable \\(run 1\\)\\n$`));
      assert.doesNotMatch(r.stdout, /delta:\n/);

      const history = cairn(['history', '1', '--state-dir', join(dir, 'state'), '--out', 'json'], { env: { HOME: home } });
      const record = JSON.parse(history.stdout) as { results: Array<{ id: string; host: string; status: string }> };
      assert.deepEqual(
        record.results.map((x) => `${x.host} ${x.id} ${x.status}`).sort(),
        [
          'alpha file_|-motd_|-' + join(alpha, 'motd') + '_|-managed changed',
          'beta file_|-tools_|-' + join(beta, 'tools') + '_|-managed changed',
          'alpha file_|-web-conf_|-' + join(alpha, 'web.conf') + '_|-managed changed',
          'beta file_|-db-conf_|-' + join(beta, 'db.conf') + '_|-managed changed',
          'beta file_|-motd_|-' + join(beta, 'motd') + '_|-managed changed',
        ].sort(),
      );
      const runsOfBeta = cairn(['history', '--host', 'beta', '--state-dir', join(dir, 'state'), '--out', 'json'], { env: { HOME: home } });
      assert.deepEqual((JSON.parse(runsOfBeta.stdout) as Array<{ id: number }>).map((x) => x.id), [1]);
      const runsOfDelta = cairn(['history', '--host', 'delta', '--state-dir', join(dir, 'state'), '--out', 'json'], { env: { HOME: home } });
      assert.deepEqual(JSON.parse(runsOfDelta.stdout), []);
    });

    test('state.show_top shows what the top file gives each minion, keyed by minion id; nothing runs', () => {
      const r = salt(['state.show_top', '--hosts', 'all', '--out', 'json']);
      assert.equal(r.code, 4, r.stdout + r.stderr);
      assert.deepEqual(JSON.parse(r.stdout), {
        alpha: { base: ['common', 'web'] },
        beta: { base: ['common', 'db', 'tools'] },
        delta: 'Minion did not return. [Not connected]',
      });
      assert.match(r.stderr, new RegExp(`^unreachable: delta: connection refused by 127\\.0\\.0\\.1:${downPort}\\n3 hosts: 0 changed, 2 ok, 0 failed, 1 unreachable\\n$`));
      const text = salt(['state.show_lowstate', '--hosts', 'beta']);
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /^beta:\n {4}\|_\n/);
      assert.match(text.stdout, new RegExp(`name:\\n? +${join(roots.beta as string, 'tools').replace(/[/.]/g, '\\$&')}`));
      const runs = cairn(['history', '--state-dir', join(dir, 'state'), '--out', 'json'], { env: { HOME: home } });
      assert.equal((JSON.parse(runs.stdout) as unknown[]).length, 1, 'show functions record no run');
    });

    test('a salt-ssh roster works as the inventory: minion ids are its entries, sudo is become', () => {
      const [a, b] = servers as [TestSshd, TestSshd];
      const roster = join(dir, 'roster');
      fs.writeFileSync(roster, `alpha:\n  host: 127.0.0.1\n  port: ${a.port}\n  priv: ${testClientKey()}\nbeta:\n  host: 127.0.0.1\n  port: ${b.port}\n  user: ${BECOME_USER}\n  sudo: True\n  priv: ${testClientKey()}\n`);
      const r = cairn(['salt', 'state.show_top', '--file-root', join(dir, 'salt'), '--inventory', roster, '--state-dir', join(dir, 'state'), '--out', 'json'], { cwd: dir, env: { HOME: home, SSH_AUTH_SOCK: '' } });
      assert.equal(r.code, 0, r.stderr);
      // beta's grains are root's, through sudo: its path grain is the become user's sudo secure_path.
      assert.deepEqual(JSON.parse(r.stdout), { alpha: { base: ['common', 'web'] }, beta: { base: ['common', 'db', 'tools'] } });
      assert.match(r.stderr, /^2 hosts: 0 changed, 2 ok, 0 failed, 0 unreachable\n$/);
    });

    test('a re-run changes nothing: exit 0 even with --detailed-exitcode; JSON is keyed by minion id', () => {
      const r = salt(['state.apply', '--hosts', 'all,!delta', '--detailed-exitcode', '--out', 'json']);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      const byMinion = JSON.parse(r.stdout) as Record<string, Record<string, { result: boolean; changes: object; comment: string }>>;
      assert.deepEqual(Object.keys(byMinion), ['alpha', 'beta']);
      assert.equal(Object.keys(byMinion.alpha ?? {}).length, 2);
      assert.equal(Object.keys(byMinion.beta ?? {}).length, 3);
      for (const ret of Object.values(byMinion).flatMap((m) => Object.values(m))) {
        assert.equal(ret.result, true);
        assert.deepEqual(ret.changes, {});
        assert.match(ret.comment, /is in the correct state/);
      }
      assert.match(r.stderr, /2 hosts: 0 changed, 2 ok, 0 failed, 0 unreachable \(run 2\)\n$/);
    });

    test('test=True shows pending changes on the minion that drifted: exit 2 with --detailed-exitcode, nothing written', () => {
      fs.writeFileSync(join(roots.beta as string, 'db.conf'), 'drifted\n');
      const r = salt(['state.apply', 'test=True', '--hosts', 'alpha,beta', '--detailed-exitcode']);
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.match(r.stdout, /2 hosts: 1 changed, 1 ok, 0 failed, 0 unreachable/);
      assert.match(r.stdout, /Summary for beta\n-+\nSucceeded: 3 \(unchanged=1, changed=1\)/);
      assert.equal(fs.readFileSync(join(roots.beta as string, 'db.conf'), 'utf8'), 'drifted\n');
      // The diff shows beta's pillar value as salt prints it; the run store keeps it masked.
      assert.match(r.stdout, /\+role=primary user=root port=none/);
      const stored = fs.readdirSync(join(dir, 'state'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
      for (const e of stored) assert.doesNotMatch(fs.readFileSync(join(e.parentPath, e.name), 'utf8'), /primary/, `${e.name} keeps a pillar value`);
      const fix = salt(['state.apply', '--hosts', 'beta']);
      assert.equal(fix.code, 0, fix.stdout);
      assert.equal(fs.readFileSync(join(roots.beta as string, 'db.conf'), 'utf8'), 'role=primary user=root port=none\n');
    });

    test('state.sls on many minions: a state failing on one minion fails the run (exit 1); the other succeeds', () => {
      const r = salt(['state.sls', 'broken', '--hosts', 'alpha,beta']);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stdout, /Summary for alpha\n-+\nSucceeded: 1 \(changed=1\)\nFailed: +0/);
      assert.match(r.stdout, /Summary for beta\n-+\nSucceeded: 0 \(changed=1\)\nFailed: +1/);
      assert.match(r.stdout, /2 hosts: 1 changed, 0 ok, 1 failed, 0 unreachable/);
    });

    test('cmd.script with a salt:// source runs the controller\'s script on each minion', () => {
      const r = salt(['state.sls', 'script', '--hosts', 'alpha,beta']);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      for (const name of ['alpha', 'beta']) {
        const out = fs.readFileSync(join(roots[name] as string, 'script-out'), 'utf8');
        assert.match(out, /^from-controller root \/\S+\n$/, name);
        // It ran from a temporary copy on the minion, which is gone.
        assert.equal(fs.existsSync(out.trim().split(' ')[2] as string), false);
        fs.rmSync(join(roots[name] as string, 'script-out'));
      }
    });

    test('render-time commands reach a minion behind a jump host', async () => {
      const innerRoot = join(dir, 'inner');
      const inner = await startSshd({ allowForwarding: false, setEnv: { CAIRN_TEST_ROOT: innerRoot } });
      try {
        const [a] = servers as [TestSshd];
        const inv = join(dir, 'jump.yaml');
        fs.writeFileSync(inv, `defaults: {user: root, key: ${testClientKey()}}\nhosts:\n  bastion: {address: 127.0.0.1, port: ${a.port}}\n  inner: {address: 127.0.0.1, port: ${inner.port}, jump: bastion}\n`);
        const args = ['salt', 'state.show_sls', 'probe', '--file-root', join(dir, 'salt'), '--inventory', inv, '--hosts', 'inner', '--state-dir', join(dir, 'state'), '--out', 'json', '--accept-new-host-keys'];
        const r = cairn(args, { cwd: dir, env: { HOME: home, SSH_AUTH_SOCK: '' } });
        assert.equal(r.code, 0, r.stdout + r.stderr);
        const shown = JSON.parse(r.stdout) as { inner: { probe: { test: unknown[] } } };
        assert.deepEqual(shown.inner.probe.test[0], { root: innerRoot });
      } finally {
        inner.stop();
      }
    });

    test('a minion whose render fails shows its errors under its id; no host is touched for a missing SLS argument', () => {
      const r = salt(['state.sls', 'nosuch', '--hosts', 'alpha']);
      assert.equal(r.code, 1);
      assert.match(r.stdout, /^alpha:\n {4}Data failed to compile:\n----------\n {4}No matching sls found for 'nosuch' in env 'base'\n/);
      const none = salt(['state.sls', '--hosts', 'alpha']);
      assert.equal(none.code, 1);
      assert.match(none.stderr, /state\.sls needs the SLS to apply/);
    });
  });
}
