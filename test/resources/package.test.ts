import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, test } from 'node:test';
import type { GraphNode } from '../../src/core/model.js';
import { FakeHost } from '../../src/host/fake.js';
import { LocalHost } from '../../src/host/local.js';
import type { ExecOptions, ResourceContext } from '../../src/host/types.js';
import { parseAptPolicy, parseDpkgQuery } from '../../src/resources/package/dpkg.js';
import { kind } from '../../src/resources/package/index.js';

type P = Record<string, unknown>;
const node = (params: P): GraphNode => ({ id: 'pkg', type: 'package', name: 'pkg', params });
const local: ResourceContext = { host: new LocalHost(), baseDir: '/' };
const ABSENT = 'cairn-surely-absent-package-7f3a';

function dpkgVersion(name: string): string | undefined {
  try {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's field syntax
    const out = execFileSync('dpkg-query', ['-W', '-f=${Status}\\t${Version}', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const [status, version] = out.split('\t');
    return status?.endsWith(' installed') ? version : undefined;
  } catch {
    return undefined;
  }
}

const DPKG_VERSION = dpkgVersion('dpkg');
const noDpkg = DPKG_VERSION === undefined ? 'dpkg-query is not available on this machine' : false;

describe('package: validate', () => {
  const diags = (params: P) => kind.validate(params, node(params)).map((d) => d.message).join('\n');
  test('accepts name, names, state and version', () => {
    assert.equal(diags({ name: 'curl' }), '');
    assert.equal(diags({ names: ['curl', 'libc6:amd64'], state: 'purged' }), '');
    assert.equal(diags({ name: 'curl', version: '7.88.1-10+deb12u5' }), '');
  });
  test('rejects unknown params, no package, bad names and a version without a single installed name', () => {
    assert.match(diags({ name: 'curl', ensure: 'present' }), /unknown param "ensure"/);
    assert.match(diags({}), /give the package as `name` or `names`/);
    assert.match(diags({ name: 'Bad Name' }), /param "name"/);
    assert.match(diags({ name: 'curl', state: 'upgraded' }), /param "state"/);
    assert.match(diags({ names: ['a1', 'b1'], version: '1.0' }), /`version` needs a single `name`/);
    assert.match(diags({ name: 'curl', state: 'removed', version: '1.0' }), /`version` needs a single `name`/);
  });
});

describe('package: parsing', () => {
  test('dpkg-query lines: installed, config-files and unknown states; arch duplicates prefer installed', () => {
    const parsed = parseDpkgQuery(
      'coreutils\tinstall ok installed\t9.1-1\nold\tdeinstall ok config-files\t1.0\nnew\tunknown ok not-installed\t\nlibx\tunknown ok not-installed\t\nlibx\tinstall ok installed\t2.0\n',
    );
    assert.deepEqual(parsed.get('coreutils'), { state: 'installed', version: '9.1-1' });
    assert.deepEqual(parsed.get('old'), { state: 'config-files', version: '1.0' });
    assert.deepEqual(parsed.get('new'), { state: 'not-installed', version: '' });
    assert.deepEqual(parsed.get('libx'), { state: 'installed', version: '2.0' });
  });
  test('apt-cache policy: candidates, (none) left out', () => {
    const parsed = parseAptPolicy('curl:\n  Installed: (none)\n  Candidate: 7.88\n  Version table:\nghost:\n  Installed: (none)\n  Candidate: (none)\n');
    assert.deepEqual([...parsed], [['curl', '7.88']]);
  });
});

describe('package: check against the real dpkg database', { skip: noDpkg }, () => {
  test('an installed package is in sync, with its version as output', async () => {
    const check = await kind.check(local, { name: 'dpkg' }, node({}));
    assert.equal(check.inSync, true);
    assert.equal(check.comment, 'Package dpkg is already installed');
    assert.deepEqual(check.outputs, { dpkg: DPKG_VERSION });
  });

  test('several installed packages', async () => {
    const check = await kind.check(local, { names: ['dpkg', 'coreutils'] }, node({}));
    assert.deepEqual([check.inSync, check.comment], [true, 'All specified packages are already installed']);
  });

  test('the installed version asked for exactly is in sync; another version is drift', async () => {
    const same = await kind.check(local, { name: 'dpkg', version: DPKG_VERSION }, node({}));
    assert.deepEqual([same.inSync, same.comment], [true, `Version ${DPKG_VERSION} of package 'dpkg' is already installed`]);
    const other = await kind.check(local, { name: 'dpkg', version: '0.0.1-cairn' }, node({}));
    assert.equal(other.inSync, false);
    assert.deepEqual(other.changes, { dpkg: { old: DPKG_VERSION, new: '0.0.1-cairn' } });
  });

  test('a package unknown to dpkg would be installed', async () => {
    const check = await kind.check(local, { names: ['dpkg', ABSENT] }, node({}));
    assert.equal(check.inSync, false);
    assert.equal(check.comment, `The following packages would be installed/updated: ${ABSENT}`);
    assert.deepEqual(check.changes, { [ABSENT]: { old: '', new: 'latest' } });
  });

  test('removed and purged: an absent package is in sync, an installed one would go', async () => {
    const removed = await kind.check(local, { name: ABSENT, state: 'removed' }, node({}));
    assert.deepEqual([removed.inSync, removed.comment], [true, 'None of the targeted packages are installed']);
    const purged = await kind.check(local, { name: ABSENT, state: 'purged' }, node({}));
    assert.equal(purged.inSync, true);
    const wouldRemove = await kind.check(local, { name: 'dpkg', state: 'removed' }, node({}));
    assert.equal(wouldRemove.inSync, false);
    assert.equal(wouldRemove.comment, 'The following packages will be removed: dpkg');
    assert.deepEqual(wouldRemove.changes, { dpkg: { old: DPKG_VERSION, new: '' } });
    assert.equal(dpkgVersion('dpkg'), DPKG_VERSION, 'check changed nothing');
  });

  test('latest: a package apt knows nothing about is an error', async () => {
    await assert.rejects(kind.check(local, { name: ABSENT, state: 'latest' }, node({})), /No information found for/);
  });
});

/** A fake dpkg/apt: a table of installed versions that apt-get changes. */
function fakeApt(installed: Record<string, string>, candidates: Record<string, string>) {
  const calls: { argv: readonly string[]; env: ExecOptions['env'] }[] = [];
  const host = new FakeHost({
    exec: (command, options) => {
      const argv = command as readonly string[];
      calls.push({ argv, env: options.env });
      const names = argv.slice(1).filter((a, i, all) => !a.startsWith('-') && all[i - 1] !== '-o');
      if (argv[0] === 'dpkg-query') {
        const known = names.filter((n) => installed[n] !== undefined);
        return { code: known.length === names.length ? 0 : 1, stdout: known.map((n) => `${n}\tinstall ok installed\t${installed[n]}\n`).join('') };
      }
      if (argv[0] === 'apt-cache') {
        return { stdout: names.slice(1).map((n) => `${n}:\n  Installed: ${installed[n] ?? '(none)'}\n  Candidate: ${candidates[n] ?? '(none)'}\n`).join('') };
      }
      if (argv[0] === 'apt-get') {
        const [action, ...targets] = names;
        for (const t of targets) {
          const [n, v] = t.split('=') as [string, string | undefined];
          if (action === 'install') {
            if (candidates[n] === undefined) return { code: 100, stderr: `E: Unable to locate package ${n}\n` };
            installed[n] = v ?? (candidates[n] as string);
          } else delete installed[n];
        }
        return { code: 0 };
      }
      return { code: 127 };
    },
  });
  return { host, calls, ctx: { host, baseDir: '/' } as ResourceContext };
}

describe('package: apply (fake apt)', () => {
  test('installs noninteractively and reports {name: {old, new}}', async () => {
    const { ctx, calls } = fakeApt({ base: '1' }, { base: '1', tool: '2.0-1' });
    const params = { names: ['base', 'tool'] };
    const check = await kind.check(ctx, params, node(params));
    assert.deepEqual(check.changes, { tool: { old: '', new: '2.0-1' } });
    const applied = await kind.apply(ctx, params, check, node(params));
    assert.equal(applied.ok, true);
    assert.deepEqual(applied.changes, { tool: { old: '', new: '2.0-1' } });
    assert.equal(applied.comment, 'The following packages were installed/updated: tool');
    const apt = calls.find((c) => c.argv[0] === 'apt-get');
    assert.deepEqual(apt?.argv.slice(0, 4), ['apt-get', 'install', '-y', '-q']);
    assert.equal(apt?.argv.at(-1), 'tool');
    assert.equal(apt?.env?.DEBIAN_FRONTEND, 'noninteractive');
    const again = await kind.check(ctx, params, node(params));
    assert.equal(again.inSync, true);
  });

  test('a pinned version installs name=version', async () => {
    const { ctx, calls } = fakeApt({ tool: '1.0' }, { tool: '2.0' });
    const params = { name: 'tool', version: '1.5' };
    const applied = await kind.apply(ctx, params, await kind.check(ctx, params, node(params)), node(params));
    assert.equal(calls.find((c) => c.argv[0] === 'apt-get')?.argv.at(-1), 'tool=1.5');
    assert.deepEqual(applied.changes, { tool: { old: '1.0', new: '1.5' } });
  });

  test('latest upgrades when the candidate is newer', async () => {
    const { ctx } = fakeApt({ tool: '1.0' }, { tool: '2.0' });
    const params = { name: 'tool', state: 'latest' };
    const check = await kind.check(ctx, params, node(params));
    assert.equal(check.comment, 'The following packages would be installed/upgraded: tool');
    const applied = await kind.apply(ctx, params, check, node(params));
    assert.deepEqual([applied.ok, applied.changes], [true, { tool: { old: '1.0', new: '2.0' } }]);
    const again = await kind.check(ctx, params, node(params));
    assert.deepEqual([again.inSync, again.comment], [true, 'Package tool is already up-to-date']);
  });

  test('removed and purged call apt-get remove / purge', async () => {
    for (const state of ['removed', 'purged'] as const) {
      const { ctx, calls } = fakeApt({ tool: '1.0' }, {});
      const params = { name: 'tool', state };
      const applied = await kind.apply(ctx, params, await kind.check(ctx, params, node(params)), node(params));
      assert.equal(applied.ok, true);
      assert.deepEqual(applied.changes, { tool: { old: '1.0', new: '' } });
      assert.equal(calls.find((c) => c.argv[0] === 'apt-get')?.argv[1], state === 'removed' ? 'remove' : 'purge');
    }
  });

  test('an apt-get failure is a failed result naming the packages', async () => {
    const { ctx } = fakeApt({}, {});
    const params = { name: 'ghost' };
    const applied = await kind.apply(ctx, params, await kind.check(ctx, params, node(params)), node(params));
    assert.equal(applied.ok, false);
    assert.match(applied.comment ?? '', /^The following packages failed to install\/update: ghost\nE: Unable to locate package ghost/);
  });

  test('queries are marked read-only; on a simulating host apply reports the plan', async () => {
    const { host, ctx, calls } = fakeApt({}, { tool: '2.0' });
    const realHandler = host.execHandler;
    // Like SimulatedHost: apt-get is recorded and "succeeds" without changing anything.
    host.execHandler = (command, options) => ((command as readonly string[])[0] === 'apt-get' ? {} : realHandler(command, options));
    Object.assign(host, { simulated: true });
    const params = { name: 'tool' };
    const applied = await kind.apply(ctx, params, await kind.check(ctx, params, node(params)), node(params));
    assert.deepEqual([applied.ok, applied.changes], [true, { tool: { old: '', new: '2.0' } }]);
    const readOnly = host.execLog.filter((c) => c.options.readOnly === true).map((c) => (c.command as readonly string[])[0]);
    assert.deepEqual([...new Set(readOnly)].sort(), ['apt-cache', 'dpkg-query']);
    assert.equal(calls.length, host.execLog.length - 1);
  });

  test('apply when already in state runs no apt-get', async () => {
    const { ctx, calls } = fakeApt({ tool: '1.0' }, { tool: '1.0' });
    const applied = await kind.apply(ctx, { name: 'tool' }, { inSync: true }, node({}));
    assert.deepEqual([applied.ok, applied.comment], [true, 'Package tool is already installed']);
    assert.equal(calls.some((c) => c.argv[0] === 'apt-get'), false);
  });
});

const integrationSkip =
  process.env.CAIRN_INTEGRATION !== '1'
    ? 'changes the machine: set CAIRN_INTEGRATION=1 (as root) to run'
    : process.getuid?.() !== 0
      ? 'needs root'
      : noDpkg;

describe('package: install and remove a real package', () => {
  // A tiny package without dependencies; override where it is not available.
  const name = process.env.CAIRN_TEST_PACKAGE ?? 'libjs-microplugin.js';
  test(`installs, is idempotent, and purges ${name}`, { skip: integrationSkip }, async () => {
    const wasInstalled = dpkgVersion(name) !== undefined;
    try {
      if (wasInstalled) await kind.apply(local, { name, state: 'purged' }, { inSync: false }, node({}));
      const params = { name };
      const check = await kind.check(local, params, node(params));
      assert.equal(check.inSync, false);
      const applied = await kind.apply(local, params, check, node(params));
      assert.equal(applied.ok, true, applied.comment);
      const version = dpkgVersion(name);
      assert.ok(version !== undefined);
      assert.deepEqual(applied.changes, { [name]: { old: '', new: version } });
      assert.equal((await kind.check(local, params, node(params))).inSync, true);
      const second = await kind.apply(local, params, { inSync: true }, node(params));
      assert.deepEqual([second.ok, second.changes], [true, undefined]);

      const purge = { name, state: 'purged' };
      const removed = await kind.apply(local, purge, await kind.check(local, purge, node(purge)), node(purge));
      assert.equal(removed.ok, true, removed.comment);
      assert.deepEqual(removed.changes, { [name]: { old: version, new: '' } });
      assert.equal(dpkgVersion(name), undefined);
      assert.equal((await kind.check(local, purge, node(purge))).inSync, true);
    } finally {
      if (wasInstalled) await kind.apply(local, { name }, { inSync: false }, node({}));
    }
  });
});
