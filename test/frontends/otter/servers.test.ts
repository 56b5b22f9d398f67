// Server facts come from the server in context, and over an inventory `for server` switches the target
// while `for role` runs only on servers with that role: fake hosts, so each server's changes can be seen.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseScript, plainLines, runOtter, type ServerContext, type ServerDirectory } from '../../../src/frontends/otter/index.js';
import { FAKE_FACTS, FakeHost } from '../../../src/host/fake.js';

function fake(name: string, env: Record<string, string> = {}): FakeHost {
  return new FakeHost({ name, files: { '/w/.keep': '' }, facts: { env: { ...FAKE_FACTS.env, ...env } } });
}

/** web1 and web2 in role web, db1 in roles db and backup. */
function inventory(): { hosts: Map<string, FakeHost>; servers: ServerDirectory } {
  const roles: Record<string, string[]> = { web1: ['web'], web2: ['web'], db1: ['db', 'backup'] };
  const hosts = new Map(Object.keys(roles).map((n) => [n, fake(n, { WHO: `env of ${n}` })]));
  const servers: ServerDirectory = {
    names: Object.keys(roles),
    rolesOf: (n) => roles[n.toLowerCase()] ?? [],
    server: (n): ServerContext | undefined => {
      const host = hosts.get(n.toLowerCase());
      return host ? { name: n.toLowerCase(), host, roles: roles[n.toLowerCase()] ?? [] } : undefined;
    },
  };
  return { hosts, servers };
}

async function runOn(source: string, server: string, inv: ReturnType<typeof inventory> | undefined, host?: FakeHost) {
  const own = host ?? (inv?.hosts.get(server) as FakeHost);
  const result = await runOtter(parseScript('test.otter', source), {
    mode: 'execute',
    simulation: false,
    host: own,
    root: '/w',
    raftDir: '/w/raft',
    variables: new Map(),
    serverName: server,
    roles: inv?.servers.rolesOf(server) ?? [],
    environmentName: '',
    ...(inv ? { servers: inv.servers } : {}),
  });
  return { result, log: plainLines(result.log).filter((l) => !l.startsWith('DEBUG')) };
}

test('$EnvironmentVariable is the environment of the server in context, not of the process running cairn', async () => {
  process.env.CAIRN_OTTER_ONLY_HERE = 'the controller';
  process.env.WHO = 'the controller';
  try {
    const host = fake('solo', { APP_PORT: '8081' });
    const r = await runOn('Log-Information $EnvironmentVariable(APP_PORT) [$EnvironmentVariable(CAIRN_OTTER_ONLY_HERE)];', 'solo', undefined, host);
    assert.deepEqual(r.log, ['INFO: 8081 []']);
    const inv = inventory();
    const switched = await runOn('Log-Information $EnvironmentVariable(WHO); for server db1 { Log-Information $EnvironmentVariable(WHO) on $ServerName; }', 'web1', inv);
    assert.deepEqual(switched.log, ['INFO: env of web1', 'INFO: env of db1 on db1']);
  } finally {
    delete process.env.CAIRN_OTTER_ONLY_HERE;
    delete process.env.WHO;
  }
});

test('over an inventory, for server switches the target: operations act on that server and their results name it', async () => {
  const inv = inventory();
  const r = await runOn('Create-File /w/own.txt (Text: $ServerName);\nfor server DB1 { Create-File /w/from-web1.txt (Text: written by a run on web1 for $ServerName); }', 'web1', inv);
  assert.equal(r.result.status, 'normal', r.log.join('\n'));
  assert.equal((await inv.hosts.get('web1')?.readFile('/w/own.txt'))?.toString(), 'web1');
  assert.equal(await inv.hosts.get('web1')?.stat('/w/from-web1.txt'), null);
  assert.equal((await inv.hosts.get('db1')?.readFile('/w/from-web1.txt'))?.toString(), 'written by a run on web1 for db1');
  assert.deepEqual(
    r.result.results.map((x) => `${(x as { host?: string }).host} ${x.type} ${x.name} ${x.status}`),
    ['web1 Create-File /w/own.txt changed', 'db1 Create-File /w/from-web1.txt changed'],
  );
});

test('for role runs only on the servers with that role (the role of the server in context); roles list servers', async () => {
  const script = `
    for role web { Create-File /w/web.txt (Text: web); }
    for role backup { Log-Information backup on $ServerName as $RoleName; }
    Log-Information all: $Join(",", @AllServers) db: $Join(",", @ServersInRole(db));
    for server db1 { for role backup { Log-Information backup on $ServerName from the run of web2; } }
  `;
  const inv = inventory();
  const web2 = await runOn(script, 'web2', inv);
  const db1 = await runOn(script, 'db1', inv);
  assert.deepEqual(web2.log, ['INFO: Creating file...', 'INFO: /w/web.txt file created.', 'INFO: all: web1,web2,db1 db: db1', 'INFO: backup on db1 from the run of web2']);
  assert.deepEqual(db1.log, ['INFO: backup on db1 as backup', 'INFO: all: web1,web2,db1 db: db1', 'INFO: backup on db1 from the run of web2']);
  assert.equal((await inv.hosts.get('web2')?.readFile('/w/web.txt'))?.toString(), 'web');
  assert.equal(await inv.hosts.get('db1')?.stat('/w/web.txt'), null);
});

test('a server that is not in the inventory is a positioned error; without an inventory only the own server is allowed', async () => {
  const inv = inventory();
  const r = await runOn('Log-Information first;\nfor server mail9 { Create-File /w/never.txt; }\nLog-Information never;', 'web1', inv);
  assert.equal(r.result.status, 'error');
  assert.deepEqual(r.log, ['INFO: first', 'ERROR: test.otter:2:1: cannot switch to server mail9: it is not in the inventory (it has web1, web2, db1)']);
  const alone = await runOn('for server web2 { Log-Information never; }', 'web1', undefined, fake('web1'));
  assert.equal(alone.result.status, 'error');
  assert.match(alone.log[0] ?? '', /cannot switch to server web2: this execution runs on its own server only/);
  const roles = await runOn('Log-Information [$Join(",", @ServersInRole(web))] [$Join(",", @AllServers)];', 'web1', undefined, fake('web1'));
  assert.deepEqual(roles.log, ['INFO: [] [web1]']);
});

test('a server whose facts cannot be read makes $EnvironmentVariable a positioned error, not a crash', async () => {
  class NoFacts extends FakeHost {
    override async facts(): Promise<never> {
      throw new Error('the facts script exited 127');
    }
  }
  const r = await runOn('Log-Information before;\nLog-Information $EnvironmentVariable(HOME);\nLog-Information never;', 'web1', undefined, new NoFacts({ name: 'web1' }));
  assert.equal(r.result.status, 'error');
  assert.deepEqual(r.log, ['INFO: before', 'ERROR: test.otter:2:17: cannot read the environment of server web1: the facts script exited 127']);
});
