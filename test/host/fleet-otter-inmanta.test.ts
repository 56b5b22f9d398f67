/**
 * `cairn otter run SCRIPT --hosts P` and `cairn inmanta deploy PROJECT --inventory F` against real sshd on
 * loopback: three reachable hosts (one logging in as a non-root user with become) and one that is down.
 * Every test server serves this machine, so each sets CAIRN_TEST_ROOT for its sessions: what a script or
 * a model writes there shows which server it acted on.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { before, after, describe, test } from 'node:test';
import { cairn, tempDir } from '../cli/cli-helpers.js';
import { ensureBecomeUser, sshdMissing, startTestFleet, type TestSshd, writeFleetInventory } from './sshd.js';

/** A model whose agents are `agents`, each writing a file and running a command under `roots[agent]`. */
function inmantaModel(agents: readonly string[], roots: Readonly<Record<string, string>>): string {
  const lines = ['import fs', 'import exec', ''];
  for (const a of agents) {
    lines.push(`${a} = std::Host(name="${a}", os=std::linux)`);
    lines.push(`fs::File(host=${a}, path="${roots[a] ?? `/nonexistent/${a}`}/inmanta.conf", content="agent {{${a}.name}}\\n", mode=600)`);
    lines.push(`exec::Run(host=${a}, command="printenv CAIRN_TEST_ROOT > ${roots[a] ?? '/nonexistent'}/inmanta-where", creates="${roots[a] ?? '/nonexistent'}/inmanta-where")`);
  }
  return `${lines.join('\n')}\n`;
}

test('inmanta: a std::Host that is not in the inventory is a positioned error, before any host is contacted', () => {
  const dir = tempDir('cairn-fleet-oi-');
  const project = join(dir, 'project');
  fs.mkdirSync(project);
  fs.writeFileSync(join(project, 'main.cf'), inmantaModel(['web1', 'mail9'], { web1: join(dir, 'web1'), mail9: join(dir, 'mail9') }));
  const inv = join(dir, 'inventory.yaml');
  // web1 is down: the error comes before anything connects.
  fs.writeFileSync(inv, 'hosts:\n  web1: {address: 127.0.0.1, port: 9}\n  web2: {address: 127.0.0.1, port: 9}\n');
  const r = cairn(['inmanta', 'deploy', project, '--inventory', inv, '--state-dir', join(dir, 'state')], { cwd: dir });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.equal(
    r.stderr,
    `${join(project, 'main.cf')}:7:9: INV009 std::Host "mail9" is not a host of the inventory ${inv} (it has web1, web2)\n 7 | mail9 = std::Host(name="mail9", os=std::linux)\n   |         ^\n`,
  );
  assert.equal(r.stdout, '');
  assert.equal(fs.existsSync(join(dir, 'state', 'runs')), false);
  const exp = cairn(['inmanta', 'export', project, '--inventory', inv], { cwd: dir });
  assert.equal(exp.code, 1);
  assert.equal(exp.stderr, 'cairn: --inventory and --hosts are options of deploy; export does not act on hosts\n');
});

const missing = sshdMissing() ?? ensureBecomeUser();

const OTTER = `
set $root = $EnvironmentVariable(CAIRN_TEST_ROOT);
Ensure-File $root/motd (Text: hello from $ServerName);
for role web { Ensure-File $root/web.conf (Text: web on $ServerName); }
for role db
{
    Ensure-File $root/db.conf (Text: db on $ServerName);
    for server beta { Ensure-File $EnvironmentVariable(CAIRN_TEST_ROOT)/from-db.txt (Text: written for $ServerName by a db server); }
}
`;

if (missing) {
  test('OtterScript and Inmanta on many hosts over SSH', { skip: missing }, () => {});
} else {
  const servers: TestSshd[] = [];
  const roots: Record<string, string> = {};
  let dir: string;
  let home: string;
  let inventory: string;
  let script: string;
  let project: string;
  let downPort: number;

  before(async () => {
    const fleet = await startTestFleet('cairn-fleet-oi-', ['alpha', 'beta', 'gamma']);
    ({ dir, home, downPort } = fleet);
    Object.assign(roots, fleet.roots);
    servers.push(...fleet.servers);
    inventory = writeFleetInventory(fleet, 'gamma', `groups:\n  web: {hosts: [alpha, beta]}\n  db: {hosts: [gamma, delta]}\n`);
    script = join(dir, 'site.otter');
    fs.writeFileSync(script, OTTER);
    project = join(dir, 'project');
    fs.mkdirSync(project);
    fs.writeFileSync(join(project, 'main.cf'), inmantaModel(['alpha', 'beta', 'gamma', 'delta'], roots));
  });
  after(() => {
    for (const s of servers) s.stop();
  });

  const run = (args: string[], stateDir = join(dir, 'state')) =>
    cairn([...args, '--inventory', inventory, '--state-dir', stateDir, '--accept-new-host-keys'], { cwd: dir, env: { HOME: home, SSH_AUTH_SOCK: '' } });
  const history = (stateDir: string, ...args: string[]) => cairn(['history', ...args, '--state-dir', stateDir, '--out', 'json'], { env: { HOME: home } });

  describe('OtterScript: inventory hosts are servers, groups are roles', () => {
    const state = () => join(dir, 'otter-state');

    test('a run acts on every reachable server (one through become), for role picks servers, for server switches; exit 4 for the dead one', () => {
      const r = run(['otter', 'run', script, '--hosts', 'all'], state());
      assert.equal(r.code, 4, r.stdout + r.stderr);
      for (const name of ['alpha', 'beta', 'gamma']) {
        assert.equal(fs.readFileSync(join(roots[name] as string, 'motd'), 'utf8'), `hello from ${name}`);
      }
      assert.equal(fs.readFileSync(join(roots.alpha as string, 'web.conf'), 'utf8'), 'web on alpha');
      assert.equal(fs.readFileSync(join(roots.beta as string, 'web.conf'), 'utf8'), 'web on beta');
      assert.equal(fs.existsSync(join(roots.gamma as string, 'web.conf')), false);
      assert.equal(fs.readFileSync(join(roots.gamma as string, 'db.conf'), 'utf8'), 'db on gamma');
      assert.equal(fs.existsSync(join(roots.alpha as string, 'db.conf')), false);
      // gamma's execution switched to beta: the file is on beta, written over beta's connection.
      assert.equal(fs.readFileSync(join(roots.beta as string, 'from-db.txt'), 'utf8'), 'written for beta by a db server');
      assert.equal(fs.statSync(join(roots.gamma as string, 'db.conf')).uid, 0, 'gamma acts as root through sudo');
      // Otter's own log and summary under each server's name, then the dead server apart, then the totals.
      assert.match(r.stdout, /^== alpha\nINFO: File .*\/alpha\/motd configured\.\n/);
      for (const name of ['alpha', 'beta', 'gamma']) assert.match(r.stdout, new RegExp(`== ${name}\\n[^=]*Status: Normal \\(run 1\\)\\nSummary: `));
      assert.match(r.stdout, /== gamma\n[^=]*Summary: 3 operation runs: 3 changed, 0 unchanged, 0 drifted, 0 failed/);
      assert.match(r.stdout, new RegExp(`unreachable:\\n  delta: connection refused by 127\\.0\\.0\\.1:${downPort}\\n4 hosts: 3 changed, 0 ok, 0 failed, 1 unreachable \\(run 1\\)\\n$`));
      const record = JSON.parse(history(state(), '1').stdout) as { results: Array<{ host: string; name: string; status: string }> };
      assert.deepEqual(
        record.results.map((x) => `${x.host} ${x.name.replace(dir, '')} ${x.status}`).sort(),
        [
          'alpha /alpha/motd changed',
          'alpha /alpha/web.conf changed',
          'beta /beta/from-db.txt changed',
          'beta /beta/motd changed',
          'beta /beta/web.conf changed',
          'gamma /gamma/db.conf changed',
          'gamma /gamma/motd changed',
        ],
      );
    });

    test('a re-run is a no-op; collect reports drift on the drifted server only, with --detailed-exitcode 2', () => {
      const again = run(['otter', 'run', script, '--hosts', 'all,!delta', '--detailed-exitcode'], state());
      assert.equal(again.code, 0, again.stdout + again.stderr);
      assert.match(again.stdout, /3 hosts: 0 changed, 3 ok, 0 failed, 0 unreachable \(run 2\)\n$/);
      fs.writeFileSync(join(roots.beta as string, 'web.conf'), 'drifted');
      const collect = run(['otter', 'run', script, '--hosts', 'web', '--mode', 'collect', '--detailed-exitcode', '--out', 'json'], state());
      assert.equal(collect.code, 2, collect.stdout + collect.stderr);
      const j = JSON.parse(collect.stdout) as { mode: string; totals: unknown; hosts: Record<string, { status: string; execution_status: string; drift: Array<{ key: string }> }> };
      assert.equal(j.mode, 'collect');
      assert.deepEqual(j.totals, { hosts: 2, changed: 1, ok: 1, failed: 0, unreachable: 0 });
      assert.deepEqual(Object.keys(j.hosts), ['alpha', 'beta']);
      assert.deepEqual(j.hosts.alpha?.drift, []);
      assert.deepEqual([j.hosts.alpha?.status, j.hosts.alpha?.execution_status, j.hosts.beta?.status, j.hosts.beta?.execution_status], ['ok', 'Normal', 'changed', 'Normal']);
      assert.deepEqual(j.hosts.beta?.drift.map((d) => d.key), [`${roots.beta}/web.conf`]);
      assert.equal(fs.readFileSync(join(roots.beta as string, 'web.conf'), 'utf8'), 'drifted', 'collect changes nothing');
      const fix = run(['otter', 'run', script, '--hosts', 'beta', '--mode', 'collect-execute'], state());
      assert.equal(fix.code, 0, fix.stdout);
      assert.equal(fs.readFileSync(join(roots.beta as string, 'web.conf'), 'utf8'), 'web on beta');
    });

    test('a failing operation fails its server only (exit 1); a server missing from the inventory is an error', () => {
      const bad = join(dir, 'bad.otter');
      fs.writeFileSync(bad, 'for role web { Ensure-File $EnvironmentVariable(CAIRN_TEST_ROOT)/motd/under-a-file (Text: no); }\nfor role db { for server mail9 { Log-Information never; } }\n');
      const r = run(['otter', 'run', bad, '--hosts', 'alpha,gamma'], state());
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stdout, /== gamma\n(.*\n)*ERROR: .*bad\.otter:2:15: cannot switch to server mail9: it is not in the inventory \(it has alpha, beta, gamma, delta\)\n/);
      assert.match(r.stdout, /2 hosts: 0 changed, 0 ok, 2 failed, 0 unreachable/);
      // Switching to a server that cannot be reached fails that operation, in that execution only.
      const dead = join(dir, 'dead.otter');
      fs.writeFileSync(dead, 'for role web { for server delta { Ensure-File /tmp/never (Text: x); } }\n');
      const d = run(['otter', 'run', dead, '--hosts', 'alpha,gamma'], state());
      assert.equal(d.code, 1, d.stdout + d.stderr);
      assert.match(d.stdout, new RegExp(`== alpha\\n(.*\\n)*ERROR: .*connection refused by 127\\.0\\.0\\.1:${downPort}`));
      assert.match(d.stdout, /2 hosts: 0 changed, 1 ok, 1 failed, 0 unreachable/);
    });

    test('--simulation reports what would change on each server and changes nothing', () => {
      fs.writeFileSync(join(roots.alpha as string, 'motd'), 'drifted');
      const r = run(['otter', 'run', script, '--hosts', 'alpha,beta', '--simulation', '--detailed-exitcode'], state());
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.match(r.stdout, /== alpha\n(.*\n)*Simulation: nothing was changed\.\n/);
      assert.match(r.stdout, /2 hosts: 1 changed, 1 ok, 0 failed, 0 unreachable/);
      assert.equal(fs.readFileSync(join(roots.alpha as string, 'motd'), 'utf8'), 'drifted');
      fs.writeFileSync(join(roots.alpha as string, 'motd'), 'hello from alpha');
    });
  });

  describe('Inmanta: each resource goes to the host of its std::Host', () => {
    const state = () => join(dir, 'inmanta-state');

    test('dry-run changes nothing; deploy puts each agent on its host (one through become); the dead agent is apart; a re-deploy is a no-op', () => {
      const dry = run(['inmanta', 'deploy', project, '--dry-run', '--out', 'json'], state());
      assert.equal(dry.code, 4, dry.stdout + dry.stderr);
      const plan = JSON.parse(dry.stdout) as { mode: string; totals: unknown; hosts: Record<string, { status: string; results?: Array<{ id: string; status: string }>; reason?: string }> };
      assert.equal(plan.mode, 'check');
      assert.deepEqual(plan.totals, { hosts: 4, changed: 3, ok: 0, failed: 0, unreachable: 1 });
      assert.deepEqual(plan.hosts.beta?.results?.map((x) => `${x.id} ${x.status}`), [
        `exec::Run[beta,command=printenv CAIRN_TEST_ROOT > ${roots.beta}/inmanta-where] pending`,
        `fs::File[beta,path=${roots.beta}/inmanta.conf] pending`,
      ]);
      assert.match(plan.hosts.delta?.reason ?? '', /connection refused/);
      for (const name of ['alpha', 'beta', 'gamma']) assert.equal(fs.existsSync(join(roots[name] as string, 'inmanta.conf')), false);

      const r = run(['inmanta', 'deploy', project], state());
      assert.equal(r.code, 4, r.stdout + r.stderr);
      for (const name of ['alpha', 'beta', 'gamma']) {
        const root = roots[name] as string;
        assert.equal(fs.readFileSync(join(root, 'inmanta.conf'), 'utf8'), `agent ${name}\n`);
        assert.equal(fs.statSync(join(root, 'inmanta.conf')).mode & 0o777, 0o600);
        // The command ran in a session of that agent's own server.
        assert.equal(fs.readFileSync(join(root, 'inmanta-where'), 'utf8'), `${root}\n`);
      }
      assert.equal(fs.statSync(join(roots.gamma as string, 'inmanta.conf')).uid, 0);
      assert.match(r.stdout, /^== alpha\n/);
      assert.match(r.stdout, new RegExp(`unreachable:\\n  delta: connection refused by 127\\.0\\.0\\.1:${downPort}\\n4 hosts: 3 changed, 0 ok, 0 failed, 1 unreachable \\(run \\d+\\)\\n$`));
      const runId = /\(run (\d+)\)\n$/.exec(r.stdout)?.[1] as string;
      const record = JSON.parse(history(state(), runId).stdout) as { results: Array<{ host: string; id: string; status: string }> };
      assert.deepEqual(
        record.results.map((x) => `${x.host} ${x.id.split('[')[0]} ${x.status}`).sort(),
        ['alpha', 'beta', 'gamma'].flatMap((h) => [`${h} exec::Run changed`, `${h} fs::File changed`]).sort(),
      );

      const again = run(['inmanta', 'deploy', project, '--hosts', 'all,!delta', '--detailed-exitcode'], state());
      assert.equal(again.code, 0, again.stdout + again.stderr);
      assert.match(again.stdout, /3 hosts: 0 changed, 3 ok, 0 failed, 0 unreachable/);
    });

    test('--hosts deploys only the agents it selects; a failed resource fails its host (exit 1)', () => {
      fs.writeFileSync(join(roots.alpha as string, 'inmanta.conf'), 'drifted\n');
      fs.writeFileSync(join(roots.beta as string, 'inmanta.conf'), 'drifted\n');
      const r = run(['inmanta', 'deploy', project, '--hosts', 'web,&beta', '--detailed-exitcode'], state());
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.match(r.stdout, /^1 host: 1 changed, 0 ok, 0 failed, 0 unreachable/m);
      assert.equal(fs.readFileSync(join(roots.beta as string, 'inmanta.conf'), 'utf8'), 'agent beta\n');
      assert.equal(fs.readFileSync(join(roots.alpha as string, 'inmanta.conf'), 'utf8'), 'drifted\n');
      fs.rmSync(join(roots.alpha as string, 'inmanta.conf'));
      fs.mkdirSync(join(roots.alpha as string, 'inmanta.conf'));
      const failed = run(['inmanta', 'deploy', project, '--hosts', 'alpha,beta'], state());
      assert.equal(failed.code, 1, failed.stdout + failed.stderr);
      assert.match(failed.stdout, /2 hosts: 0 changed, 1 ok, 1 failed, 0 unreachable/);
      fs.rmdirSync(join(roots.alpha as string, 'inmanta.conf'));
    });

    test('a resource requiring one on another agent waits for it, and is skipped when it failed', () => {
      const cross = join(dir, 'cross');
      fs.mkdirSync(cross, { recursive: true });
      const [alpha, beta] = [roots.alpha as string, roots.beta as string];
      const model = (first: string) =>
        [
          'import exec',
          'alpha = std::Host(name="alpha", os=std::linux)',
          'beta = std::Host(name="beta", os=std::linux)',
          `first = exec::Run(host=alpha, command="${first}", creates="${alpha}/first")`,
          // Succeeds only once alpha's command has run: beta must wait for alpha.
          `exec::Run(host=beta, command="test -e ${alpha}/first && touch ${beta}/second", creates="${beta}/second", requires=first)`,
          '',
        ].join('\n');
      fs.writeFileSync(join(cross, 'main.cf'), model('exit 3'));
      const failed = run(['inmanta', 'deploy', cross, '--out', 'json'], state());
      assert.equal(failed.code, 1, failed.stdout + failed.stderr);
      const j = JSON.parse(failed.stdout) as { hosts: Record<string, { status: string; results: Array<{ id: string; status: string; comment: string }> }> };
      assert.deepEqual(Object.keys(j.hosts), ['alpha', 'beta']);
      assert.equal(j.hosts.alpha?.results[0]?.status, 'failed');
      assert.deepEqual(
        j.hosts.beta?.results.map((x) => `${x.status}: ${x.comment}`),
        [`skipped: Skipped: it requires exec::Run[alpha,command=exit 3], which failed on agent alpha`],
      );
      assert.equal(fs.existsSync(join(beta, 'second')), false);

      fs.writeFileSync(join(cross, 'main.cf'), model(`sleep 1; touch ${alpha}/first`));
      const ok = run(['inmanta', 'deploy', cross, '--forks', '2'], state());
      assert.equal(ok.code, 0, ok.stdout + ok.stderr);
      assert.match(ok.stdout, /2 hosts: 2 changed, 0 ok, 0 failed, 0 unreachable/);
      assert.ok(fs.existsSync(join(beta, 'second')));
    });
  });
}
