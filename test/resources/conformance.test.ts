/**
 * The conformance suite of every resource kind, driven by the kind registry (src/resources/index.ts): a
 * kind without a sample here fails the suite, so a new kind is covered from its first commit. For each
 * kind, on a fake machine (src/host/fake.ts) whose commands a small model answers:
 *
 * - check never changes the machine (its snapshot is the same, and every command it runs is marked
 *   read-only, which is what lets a simulation run it for real);
 * - apply, then check again, reports nothing left to change (unless the kind cannot tell by design, said
 *   with its reason in `alwaysActs`);
 * - a simulated apply (src/host/simulated.ts over the fake) leaves the machine exactly as it was.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { GraphNode } from '../../src/core/model.js';
import { type ExecHandler, FakeHost } from '../../src/host/fake.js';
import { sysvModel } from './sysv-model.js';
import { SimulatedHost } from '../../src/host/simulated.js';
import type { ExecOptions, ResourceContext } from '../../src/host/types.js';
import { kinds } from '../../src/resources/index.js';

const W = '/srv/work';
const PASSWD = 'root:x:0:0:root:/root:/bin/bash\n';
const GROUP = 'root:x:0:\nusers:x:100:\n';

interface Sample {
  readonly params: Record<string, unknown>;
  /** Files (and with them their folders) on the machine before the run. */
  readonly files?: Record<string, string>;
  readonly dirs?: readonly string[];
  /** The machine's answer to commands; may change the fake (an install, a useradd). */
  readonly exec?: (host: FakeHost) => ExecHandler;
  /** Why a second check still proposes a change after an apply (the kind cannot tell by design). */
  readonly alwaysActs?: string;
  /** Why the sample is in sync before anything runs (the kind only asserts, it never changes anything). */
  readonly assertsOnly?: string;
}

const argvOf = (c: string | readonly string[]): string[] => (typeof c === 'string' ? ['sh', '-c', c] : [...c]);

/** `sh -c 'touch P'` / `touch P` creates P; `test -f P` / `test -e P` asks for it. */
function shellModel(host: FakeHost): ExecHandler {
  return (command, options: ExecOptions) => {
    const argv = argvOf(command);
    // `sh -c SCRIPT`, or an interpreter fed the script on stdin.
    const text = (argv[1] === '-c' ? String(argv[2]) : argv.length === 1 ? (options.stdin ?? '') : argv.join(' ')).trim();
    const test = /^test -[ef] (\S+)$/.exec(text);
    if (test) return { code: host.snapshot()[test[1] as string] ? 0 : 1 };
    const touch = /^touch (\S+)$/.exec(text);
    if (touch) {
      host.addFile(touch[1] as string, '');
      return { code: 0 };
    }
    if (text === 'true') return { code: 0 };
    return { code: 127, stderr: `unknown command: ${text}\n` };
  };
}

/** mktemp -d, tar -xf (one file), cp -a, mv -T, ln and stat -c '%i %h' over the fake's files (inodes kept here). */
function coreutilsModel(host: FakeHost): ExecHandler {
  const inodes = new Map<string, number>();
  let next = 100;
  const ino = (p: string): number => {
    if (!inodes.has(p)) inodes.set(p, next++);
    return inodes.get(p) as number;
  };
  return async (command) => {
    const argv = argvOf(command).filter((a) => a !== '--');
    const [cmd] = argv;
    if (cmd === 'mktemp') {
      host.addDir('/tmp/cairn-unarchive.1');
      return { stdout: '/tmp/cairn-unarchive.1\n' };
    }
    if (cmd === 'tar') {
      host.addFile(`${argv[argv.length - 1]}/one.txt`, 'one\n');
      return {};
    }
    if (cmd === 'cp') {
      const [from, to] = argv.slice(-2) as [string, string];
      const dir = from.replace(/\/\.$/, '');
      for (const name of await host.readdir(dir)) host.addFile(`${to.replace(/\/$/, '')}/${name}`, await host.readFile(`${dir}/${name}`));
      return {};
    }
    if (cmd === 'mv') {
      const [from, to] = argv.slice(-2) as [string, string];
      await host.rename(from, to);
      return {};
    }
    if (cmd === 'ln') {
      const [target, path] = argv.slice(-2) as [string, string];
      host.addFile(path, await host.readFile(target));
      inodes.set(path, ino(target));
      return {};
    }
    if (cmd === 'stat') {
      const path = argv[argv.length - 1] as string;
      if (!(await host.lstat(path))) return { code: 1, stderr: `stat: cannot statx '${path}': No such file or directory\n` };
      const i = ino(path);
      return { stdout: `${i} ${[...inodes.values()].filter((v) => v === i).length}\n` };
    }
    return { code: 127, stderr: `unknown command: ${argv.join(' ')}\n` };
  };
}

/** dpkg-query, apt-cache and apt-get over a table of installed versions. */
function aptModel(installed: Record<string, string>, candidates: Record<string, string>): (host: FakeHost) => ExecHandler {
  return () => (command) => {
    const argv = argvOf(command);
    const names = argv.slice(1).filter((a, i, all) => !a.startsWith('-') && all[i - 1] !== '-o');
    if (argv[0] === 'dpkg-query') {
      const known = names.filter((n) => installed[n] !== undefined);
      return { code: known.length === names.length ? 0 : 1, stdout: known.map((n) => `${n}\tinstall ok installed\t${installed[n]}\n`).join('') };
    }
    if (argv[0] === 'apt-cache') return { stdout: names.slice(1).map((n) => `${n}:\n  Installed: ${installed[n] ?? '(none)'}\n  Candidate: ${candidates[n] ?? '(none)'}\n`).join('') };
    if (argv[0] === 'apt-get') {
      const [action, ...targets] = names;
      for (const t of targets) {
        const [n, v] = t.split('=') as [string, string | undefined];
        if (action === 'install') installed[n] = v ?? (candidates[n] as string);
        else delete installed[n];
      }
      return { code: 0 };
    }
    return { code: 127 };
  };
}

/** systemctl over a set of active units. */
function systemdModel(): ExecHandler {
  const active = new Set<string>();
  return (command) => {
    const argv = argvOf(command);
    if (argv[0] !== 'systemctl') return { code: 127 };
    const verb = argv.find((a, i) => i > 0 && !a.startsWith('-')) as string;
    const unit = argv[argv.length - 1] as string;
    if (verb === 'is-active') return active.has(unit) ? { code: 0, stdout: 'active\n' } : { code: 3, stdout: 'inactive\n' };
    if (verb === 'show') return { code: 0, stdout: `ActiveState=${active.has(unit) ? 'active' : 'inactive'}\nLoadState=loaded\n` };
    if (verb === 'start' || verb === 'restart') active.add(unit);
    if (verb === 'stop') active.delete(unit);
    return { code: 0 };
  };
}

/** crontab -u USER -l / - over one table. */
function cronModel(): ExecHandler {
  let tab = '';
  return (command, options) => {
    const line = argvOf(command).join(' ');
    if (line === 'crontab -u nobody -l') return tab ? { code: 0, stdout: tab } : { code: 1, stderr: 'no crontab for nobody\n' };
    if (line === 'crontab -u nobody -') {
      tab = options.stdin ?? '';
      return { code: 0 };
    }
    return { code: 127 };
  };
}

/** useradd/groupadd append to the fake's account files. */
function accountsModel(host: FakeHost): ExecHandler {
  return (command) => {
    const argv = argvOf(command);
    const name = argv[argv.length - 1] as string;
    const file = (p: string) => host.snapshot()[p]?.replace(/^file \d+ \d+:\d+ /, '') ?? '';
    if (argv[0] === 'useradd') host.addFile('/etc/passwd', `${file('/etc/passwd')}${name}:x:900:100::/home/${name}:/bin/sh\n`);
    else if (argv[0] === 'groupadd') host.addFile('/etc/group', `${file('/etc/group')}${name}:x:901:\n`);
    else return { code: 127 };
    return { code: 0 };
  };
}

const SAMPLES: Record<string, Sample> = {
  file: { params: { path: `${W}/f.txt`, content: 'hello\n', mode: '0644' } },
  directory: { params: { path: `${W}/d/e`, makedirs: true } },
  symlink: { params: { path: `${W}/link`, target: 'f.txt' } },
  absent: { params: { path: `${W}/old` }, files: { [`${W}/old`]: 'x' } },
  command: { params: { cmd: `touch ${W}/made`, creates: `${W}/made` }, exec: shellModel },
  package: { params: { name: 'nginx' }, exec: aptModel({ dpkg: '1.21' }, { nginx: '1.22-1' }) },
  user: { params: { name: 'web' }, files: { '/etc/passwd': PASSWD, '/etc/group': GROUP }, exec: accountsModel },
  group: { params: { name: 'web' }, files: { '/etc/passwd': PASSWD, '/etc/group': GROUP }, exec: accountsModel },
  test: { params: { action: 'succeed' }, assertsOnly: 'the test kind reports its action; succeed changes nothing' },
  task: { params: { check: `test -f ${W}/flag`, apply: `touch ${W}/flag` }, exec: shellModel },
  touch: { params: { path: `${W}/flag` } },
  append: { params: { path: `${W}/a.conf`, text: ['one = 1'] }, files: { [`${W}/a.conf`]: 'zero = 0\n' } },
  replace: { params: { path: `${W}/r.conf`, pattern: 'port = \\d+', repl: 'port = 81' }, files: { [`${W}/r.conf`]: 'port = 80\n' } },
  line: { params: { path: `${W}/l.conf`, mode: 'ensure', content: 'b = 2', after: 'a = 1' }, files: { [`${W}/l.conf`]: 'a = 1\n' } },
  cleandir: { params: { path: `${W}/clean` }, files: { [`${W}/clean/stale`]: 'x' } },
  fetch: { params: { source: `${W}/src.txt`, destination: `${W}/dst.txt` }, files: { [`${W}/src.txt`]: 'payload\n' } },
  unarchive: {
    params: { source: `${W}/a.tar`, destination: `${W}/out` },
    files: { [`${W}/a.tar`]: 'tar' },
    dirs: [`${W}/out`],
    exec: coreutilsModel,
    alwaysActs: 'as in Converge, whether an archive was unpacked cannot be told from outside, so a check always proposes unpacking',
  },
  wait: { params: { check: 'true', interval: 0 }, exec: shellModel, assertsOnly: 'a wait whose condition holds has nothing to wait for' },
  chown: { params: { path: `${W}/o.txt`, owner: 1000, group: 1000 }, files: { [`${W}/o.txt`]: 'x' } },
  chmod: { params: { path: `${W}/m.txt`, mode: '0600' }, files: { [`${W}/m.txt`]: 'x' } },
  unit: { params: { unit: 'web.service', state: 'running' }, exec: () => systemdModel() },
  exists: { params: { path: `${W}/here` }, files: { [`${W}/here`]: 'x' }, assertsOnly: 'exists only asserts that a path is there' },
  copy: { params: { path: `${W}/copy.txt`, source: `${W}/orig.txt` }, files: { [`${W}/orig.txt`]: 'orig\n' } },
  rename: { params: { path: `${W}/new.txt`, source: `${W}/before.txt` }, files: { [`${W}/before.txt`]: 'moved\n' }, exec: coreutilsModel },
  hardlink: { params: { path: `${W}/hard`, target: `${W}/orig.txt` }, files: { [`${W}/orig.txt`]: 'orig\n' }, exec: coreutilsModel },
  comment: { params: { path: `${W}/c.conf`, regex: '^port' }, files: { [`${W}/c.conf`]: 'port = 80\n' } },
  service: { params: { name: 'web', state: 'running' }, files: { '/etc/init.d/web': '#!/bin/sh\n' }, dirs: ['/etc/rc2.d'], exec: sysvModel },
  hosts: { params: { path: `${W}/hosts`, name: 'db.example.test', ip: ['192.0.2.7'] }, files: { [`${W}/hosts`]: '127.0.0.1 localhost\n' } },
  cron: { params: { user: 'nobody', state: 'present', name: '/usr/bin/backup', minute: '5' }, exec: () => cronModel() },
  blockreplace: { params: { path: `${W}/b.conf`, content: 'managed = yes', append_if_not_found: true }, files: { [`${W}/b.conf`]: 'other = 1\n' } },
  keyvalue: { params: { path: `${W}/kv.conf`, entries: [{ key: 'port', value: '81' }] }, files: { [`${W}/kv.conf`]: 'port=80\n' } },
};

function machine(sample: Sample): { host: FakeHost; ctx: ResourceContext } {
  const host = new FakeHost({ files: sample.files ?? {} });
  host.addDir(W);
  for (const d of sample.dirs ?? []) host.addDir(d);
  if (sample.exec) host.execHandler = sample.exec(host);
  return { host, ctx: { host, baseDir: W } };
}

function nodeOf(type: string, params: Record<string, unknown>): GraphNode {
  return { id: `${type}-sample`, type, name: type, params };
}

test('every resource kind has a conformance sample, and every sample a kind', () => {
  assert.deepEqual(Object.keys(SAMPLES).sort(), [...kinds.keys()].sort());
});

for (const [type, kind] of kinds) {
  const sample = SAMPLES[type];
  describe(`resource kind ${type}: conformance`, { skip: sample ? false : `no conformance sample for ${type}` }, () => {
    if (!sample) return;
    const n = nodeOf(type, sample.params);

    test('its sample is valid', () => assert.deepEqual(kind.validate(sample.params, n), []));

    test('check changes nothing; its commands are read-only', async () => {
      const { host, ctx } = machine(sample);
      const before = host.snapshot();
      const check = await kind.check(ctx, sample.params, n);
      assert.deepEqual(host.snapshot(), before, 'check changed the machine');
      const writers = host.execLog.filter((c) => (c.options as { readOnly?: boolean }).readOnly !== true).map((c) => argvOf(c.command).join(' '));
      assert.deepEqual(writers, [], 'check ran commands not marked read-only');
      if (sample.assertsOnly) assert.equal(check.inSync, true, sample.assertsOnly);
      else assert.equal(check.inSync, false, 'the sample must need a change, or the suite proves nothing');
    });

    test('apply, then check: nothing left to change', async () => {
      const { ctx } = machine(sample);
      const check = await kind.check(ctx, sample.params, n);
      const applied = await kind.apply(ctx, sample.params, check, n);
      assert.equal(applied.ok, true, applied.comment);
      const again = await kind.check(ctx, sample.params, n);
      if (sample.alwaysActs) assert.equal(again.inSync, false, sample.alwaysActs);
      else assert.equal(again.inSync, true, `still to change after apply: ${JSON.stringify(again.changes)} ${again.comment ?? ''}`);
    });

    test('a simulated apply leaves the machine as it was', async () => {
      const { host } = machine(sample);
      const before = host.snapshot();
      const sim = new SimulatedHost(host, { uid: 0, gid: 0 });
      const ctx = { host: sim, baseDir: W };
      const check = await kind.check(ctx, sample.params, n);
      const applied = await kind.apply(ctx, sample.params, check, n);
      assert.equal(applied.ok, true, applied.comment);
      assert.deepEqual(host.snapshot(), before, 'the simulation changed the machine');
      const ran = host.execLog.filter((c) => (c.options as { readOnly?: boolean }).readOnly !== true).map((c) => argvOf(c.command).join(' '));
      assert.deepEqual(ran, [], 'the simulation ran commands that change things');
    });
  });
}
