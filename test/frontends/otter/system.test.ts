// Ensure-Package and Ensure-User: the check path (collect mode) against this machine's real dpkg database
// and /etc/passwd, read-only; configuring on a FakeHost that plays dpkg/apt and useradd; and, with
// CAIRN_INTEGRATION=1 as root, a real account created, checked and removed.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { checkScript, type ExecutionMode, parseScript, plainLines, RaftLoader, runOtter } from '../../../src/frontends/otter/index.js';
import { FakeHost } from '../../../src/host/fake.js';
import { LocalHost } from '../../../src/host/local.js';
import type { Host } from '../../../src/host/types.js';
import { tempDir } from '../../cli/cli-helpers.js';

async function runOn(host: Host, source: string, mode: ExecutionMode) {
  const root = tempDir('cairn-otter-sys-');
  const script = parseScript('sys.otter', source);
  assert.deepEqual(await checkScript(script, new RaftLoader(root, host), new Set()), []);
  const result = await runOtter(script, { mode, simulation: false, host, root, raftDir: root, variables: new Map(), serverName: 'here', roles: [], environmentName: '' });
  return { result, log: plainLines(result.log) };
}

const hasDpkg = (() => {
  try {
    execFileSync('dpkg-query', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** An installed package of this machine and its version, from dpkg itself. */
function installed(): { name: string; version: string } {
  const out = execFileSync('dpkg-query', ['-W', '-f=${Package}\t${Version}\n', 'dpkg'], { encoding: 'utf8' }).trim();
  const [name, version] = out.split('\t') as [string, string];
  return { name, version };
}

const ROOT_ENTRY = readFileSync('/etc/passwd', 'utf8')
  .split('\n')
  .map((l) => l.split(':'))
  .find((f) => f[0] === 'root');
const NO_USER = `cairn-otter-nouser-${process.pid}`;
const NO_PACKAGE = `cairn-otter-no-such-package-${process.pid}`;

describe('Ensure-Package: collect against the real dpkg database', { skip: !hasDpkg && 'dpkg-query is not installed' }, () => {
  test('an installed package at its version does not drift; a wrong version drifts on Version; an unknown one on Exists', async () => {
    const pkg = installed();
    const { result, log } = await runOn(
      new LocalHost(),
      `Ensure-Package ${pkg.name};\nEnsure-Package ${pkg.name} (Version: ${pkg.version});\nEnsure-Package ${pkg.name} (Version: 0.0-cairn);\nEnsure-Package ${NO_PACKAGE};\nEnsure-Package ${NO_PACKAGE} (Exists: false);\n`,
      'collect',
    );
    assert.equal(result.status, 'normal', log.join('\n'));
    assert.deepEqual(result.drift, [
      { operation: 'Ensure-Package', key: pkg.name, properties: ['Version'], details: [{ property: 'Version', expected: '0.0-cairn', actual: pkg.version }] },
      { operation: 'Ensure-Package', key: NO_PACKAGE, properties: ['Exists'], details: [{ property: 'Exists', expected: 'true', actual: 'false' }] },
    ]);
    assert.equal(result.changed, false);
    assert.equal(installed().version, pkg.version, 'collect changed nothing');
  });
});

describe('Ensure-User: collect against the real /etc/passwd', { skip: !ROOT_ENTRY && 'no root entry in /etc/passwd' }, () => {
  test('root as it is does not drift; a wrong home or shell drifts on those properties; a missing user on Exists', async () => {
    const [, , uid, , , home, shell] = ROOT_ENTRY as string[];
    const { result, log } = await runOn(
      new LocalHost(),
      `Ensure-User root (UserId: ${uid}, HomeDirectory: ${home}, Shell: ${shell});\nEnsure-User root (HomeDirectory: /cairn/elsewhere, Shell: /bin/cairn-sh);\nEnsure-User ${NO_USER} (Shell: /bin/sh);\nEnsure-User ${NO_USER} (Exists: false);\n`,
      'collect',
    );
    assert.equal(result.status, 'normal', log.join('\n'));
    assert.deepEqual(result.drift, [
      {
        operation: 'Ensure-User',
        key: 'root',
        properties: ['HomeDirectory', 'Shell'],
        details: [
          { property: 'HomeDirectory', expected: '/cairn/elsewhere', actual: home },
          { property: 'Shell', expected: '/bin/cairn-sh', actual: shell },
        ],
      },
      { operation: 'Ensure-User', key: NO_USER, properties: ['Exists'], details: [{ property: 'Exists', expected: 'true', actual: 'false' }] },
    ]);
  });
});

/** dpkg-query, apt-cache and apt-get over an in-memory table of installed versions. */
function fakeApt(installedVersions: Record<string, string>, candidates: Record<string, string>): { host: FakeHost; ran: string[] } {
  const ran: string[] = [];
  const host = new FakeHost({
    files: { '/w/.keep': '' },
    exec: (command) => {
      const argv = command as readonly string[];
      const names = argv.slice(1).filter((a, i, all) => !a.startsWith('-') && all[i - 1] !== '-o');
      if (argv[0] === 'dpkg-query') {
        const known = names.filter((n) => installedVersions[n] !== undefined);
        return { code: known.length === names.length ? 0 : 1, stdout: known.map((n) => `${n}\tinstall ok installed\t${installedVersions[n]}\n`).join('') };
      }
      if (argv[0] === 'apt-cache') return { stdout: names.slice(1).map((n) => `${n}:\n  Installed: ${installedVersions[n] ?? '(none)'}\n  Candidate: ${candidates[n] ?? '(none)'}\n`).join('') };
      if (argv[0] === 'apt-get') {
        ran.push(argv.join(' '));
        const [action, ...targets] = names;
        for (const t of targets) {
          const [n, v] = t.split('=') as [string, string | undefined];
          if (action === 'install') installedVersions[n] = v ?? (candidates[n] as string);
          else delete installedVersions[n];
        }
        return { code: 0 };
      }
      return { code: 127 };
    },
  });
  return { host, ran };
}

describe('Ensure-Package: configure on a FakeHost', () => {
  test('collect-execute installs exactly the drifted package; a second collect finds nothing', async () => {
    const { host, ran } = fakeApt({ base: '1.0' }, { base: '1.0', tool: '2.0' });
    const plan = 'Ensure-Package base;\nEnsure-Package tool;\n';
    const fix = await runOn(host, plan, 'collect-execute');
    assert.deepEqual(fix.result.drift, [{ operation: 'Ensure-Package', key: 'tool', properties: ['Exists'], details: [{ property: 'Exists', expected: 'true', actual: 'false' }] }]);
    assert.equal(ran.length, 1);
    assert.match(ran[0] as string, /^apt-get install .*tool$/);
    assert.deepEqual(fix.log.filter((l) => l.startsWith('INFO')), ['INFO: Package tool configured.']);
    assert.deepEqual((await runOn(host, plan, 'collect')).result.drift, []);
  });

  test('Exists: false removes an installed package', async () => {
    const { host, ran } = fakeApt({ old: '3' }, {});
    const r = await runOn(host, 'Ensure-Package old (Exists: false);', 'execute');
    assert.equal(r.result.status, 'normal', r.log.join('\n'));
    assert.match(ran[0] as string, /^apt-get (remove|purge) .*old$/);
    assert.deepEqual(r.log.filter((l) => l.startsWith('INFO')), ['INFO: Package old removed.']);
  });
});

describe('Ensure-User: configure on a FakeHost', () => {
  test('a missing user is created with useradd and the given properties; then it does not drift', async () => {
    const passwd = 'root:x:0:0:root:/root:/bin/bash\n';
    const ran: string[] = [];
    const host = new FakeHost({ files: { '/w/.keep': '', '/etc/passwd': passwd, '/etc/group': 'root:x:0:\nweb:x:900:\n' } });
    host.execHandler = (command) => {
      const argv = command as readonly string[];
      ran.push(argv.join(' '));
      if (argv[0] === 'useradd') host.addFile('/etc/passwd', `${passwd}deploy:x:1500:900::/srv/deploy:/bin/sh\n`);
      return { code: 0 };
    };
    const plan = 'Ensure-User deploy (UserId: 1500, Group: web, HomeDirectory: /srv/deploy, Shell: /bin/sh);';
    const r = await runOn(host, plan, 'collect-execute');
    assert.equal(r.result.status, 'normal', r.log.join('\n'));
    assert.deepEqual(r.result.drift, [{ operation: 'Ensure-User', key: 'deploy', properties: ['Exists'], details: [{ property: 'Exists', expected: 'true', actual: 'false' }] }]);
    assert.equal(ran.length, 1);
    assert.match(ran[0] as string, /^useradd /);
    for (const part of ['-u 1500', '-d /srv/deploy', '-s /bin/sh', 'deploy']) assert.ok((ran[0] as string).includes(part), `${ran[0]} has ${part}`);
    assert.deepEqual(r.log.filter((l) => l.startsWith('INFO')), ['INFO: User deploy configured.']);
    assert.deepEqual((await runOn(host, plan, 'collect')).result.drift, []);
  });
});

const integration = process.env.CAIRN_INTEGRATION === '1' && process.getuid?.() === 0;

describe('Ensure-User on this machine (CAIRN_INTEGRATION=1, root)', { skip: !integration && 'set CAIRN_INTEGRATION=1 and run as root' }, () => {
  test('creates a real account, finds no drift, then removes it', async () => {
    const name = `cairnotter${process.pid}`;
    const host = new LocalHost();
    try {
      const made = await runOn(host, `Ensure-User ${name} (Shell: /bin/sh);`, 'execute');
      assert.equal(made.result.status, 'normal', made.log.join('\n'));
      assert.match(readFileSync('/etc/passwd', 'utf8'), new RegExp(`^${name}:`, 'm'));
      assert.deepEqual((await runOn(host, `Ensure-User ${name} (Shell: /bin/sh);`, 'collect')).result.drift, []);
      const gone = await runOn(host, `Ensure-User ${name} (Exists: false);`, 'execute');
      assert.equal(gone.result.status, 'normal', gone.log.join('\n'));
      assert.doesNotMatch(readFileSync('/etc/passwd', 'utf8'), new RegExp(`^${name}:`, 'm'));
    } finally {
      try {
        execFileSync('userdel', [name], { stdio: 'ignore' });
      } catch {
        // already removed
      }
    }
  });
});

describe('Collect-DebianPackages: a collecting-only operation', () => {
  const dpkg = (command: string | readonly string[]) =>
    Array.isArray(command) && command[0] === '/usr/bin/dpkg'
      ? { stdout: 'Desired=Unknown/Install\n||/ Name Version Architecture Description\n+++-====\nii  bash  5.2-1  amd64  shell\nrc  gone  1.0  amd64  removed\nii  curl  8.0  amd64  tool\n' }
      : {};
  const source = 'Collect-DebianPackages;\nLog-Information after;\n';

  test('runs in a collection pass and reads installed (ii) packages only', async () => {
    const host = new FakeHost({ exec: dpkg });
    const { result, log } = await runOn(host, source, 'collect');
    assert.deepEqual(log, ['DEBUG: Collected 2 Debian packages.', 'INFO: after']);
    assert.deepEqual(host.execLog.map((c) => c.command), [['/usr/bin/dpkg', '--list']]);
    assert.deepEqual(result.results.map((r) => [r.type, r.status]), [['Collect-DebianPackages', 'ok']]);
  });

  test('is skipped in an execution pass (it is not an executing operation)', async () => {
    const host = new FakeHost({ exec: dpkg });
    const { log } = await runOn(host, source, 'execute');
    assert.deepEqual(log, ['INFO: after']);
    assert.deepEqual(host.execLog, []);
  });

  test('a failing dpkg is an error that stops the run', async () => {
    const host = new FakeHost({ exec: () => ({ code: 2, stderr: 'dpkg: broken\n' }) });
    const { result, log } = await runOn(host, source, 'collect');
    assert.deepEqual(log, ['WARN: dpkg: broken', 'ERROR: "dpkg --list" exited with code 2']);
    assert.equal(result.status, 'error');
  });
});
