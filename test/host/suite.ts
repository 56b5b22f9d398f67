/** The behaviour every host shares, as one suite run against each (local, fake, simulated, SSH). */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import * as net from 'node:net';
import { join } from 'node:path';
import { after, afterEach, beforeEach, describe, test } from 'node:test';
import { HostError } from '../../src/host/errors.js';
import type { Host } from '../../src/host/types.js';

export interface Harness {
  readonly host: Host;
  /** A directory holding `seed.txt` ("seed\n", 0644) and `seeddir/inner.txt` ("inner\n"). */
  readonly root: string;
  done(): void;
}

export const tempRoots: string[] = [];
after(() => {
  for (const dir of tempRoots) fs.rmSync(dir, { recursive: true, force: true });
});

export function diskRoot(): string {
  const root = fs.mkdtempSync(join(tmpdir(), 'cairn-host-'));
  tempRoots.push(root);
  fs.writeFileSync(join(root, 'seed.txt'), 'seed\n', { mode: 0o644 });
  fs.chmodSync(join(root, 'seed.txt'), 0o644);
  fs.mkdirSync(join(root, 'seeddir'));
  fs.writeFileSync(join(root, 'seeddir', 'inner.txt'), 'inner\n');
  return root;
}

/** Every path under a directory with its type, mode and content: what "untouched" means. */
export function diskSnapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of fs.readdirSync(d).sort()) {
      const p = join(d, name);
      const st = fs.lstatSync(p);
      const body = st.isFile() ? fs.readFileSync(p, 'utf8') : st.isSymbolicLink() ? fs.readlinkSync(p) : '';
      out.push(`${p} ${(st.mode & 0o7777).toString(8)} ${body}`);
      if (st.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out;
}

export interface Capabilities {
  /** Whether exec really runs programs. */
  readonly runsCommands: boolean;
  /** Whether probeTcp really connects (a fake answers from its list of open ports). */
  readonly realNetwork: boolean;
}

export function isHostError(code: string, path?: string): (e: unknown) => boolean {
  return (e) => {
    assert.ok(e instanceof HostError, `expected a HostError, got ${String(e)}`);
    assert.equal(e.code, code);
    if (path !== undefined) assert.ok(e.message.includes(path), `message ${JSON.stringify(e.message)} names ${path}`);
    return true;
  };
}

/** A loopback port with nothing listening on it. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export function hostConformance(name: string, make: () => Harness | Promise<Harness>, caps: Capabilities): void {
  describe(`host conformance: ${name}`, () => {
    /** Runs a body against a fresh harness and checks the harness invariant afterwards. */
    const it = (title: string, body: (h: Harness) => Promise<void>): void => {
      test(title, async () => {
        const h = await make();
        try {
          await body(h);
        } finally {
          await h.host.close();
        }
        h.done();
      });
    };

    it('lstat and stat describe files, directories and symlinks', async ({ host, root }) => {
      const seed = await host.lstat(join(root, 'seed.txt'));
      assert.equal(seed?.type, 'file');
      assert.equal(seed?.mode, 0o644);
      assert.equal(seed?.size, 5);
      assert.equal((await host.stat(join(root, 'seeddir')))?.type, 'directory');
      await host.symlink('seed.txt', join(root, 'link'));
      assert.equal((await host.lstat(join(root, 'link')))?.type, 'symlink');
      const followed = await host.stat(join(root, 'link'));
      assert.equal(followed?.type, 'file');
      assert.equal(followed?.size, 5);
      await host.symlink('nowhere', join(root, 'dangling'));
      assert.equal(await host.stat(join(root, 'dangling')), null);
      assert.equal((await host.lstat(join(root, 'dangling')))?.type, 'symlink');
      assert.equal(await host.lstat(join(root, 'missing')), null);
      assert.equal(await host.stat(join(root, 'seed.txt', 'below-a-file')), null);
    });

    it('readFile, readlink and readdir read; errors name the path', async ({ host, root }) => {
      assert.equal((await host.readFile(join(root, 'seed.txt'))).toString(), 'seed\n');
      assert.deepEqual(await host.readdir(root), ['seed.txt', 'seeddir']);
      await host.symlink('/some/where', join(root, 'l'));
      assert.equal(await host.readlink(join(root, 'l')), '/some/where');
      const missing = join(root, 'nope.txt');
      await assert.rejects(host.readFile(missing), isHostError('ENOENT', missing));
      await assert.rejects(host.readFile(missing), { message: `cannot read ${missing}: no such file or directory (ENOENT)` });
      await assert.rejects(host.readFile(join(root, 'seeddir')), isHostError('EISDIR'));
      await assert.rejects(host.readdir(missing), isHostError('ENOENT', missing));
      await assert.rejects(host.readlink(join(root, 'seed.txt')), isHostError('EINVAL'));
    });

    it('writeFileAtomic creates a file with 0644, or the given mode', async ({ host, root }) => {
      await host.writeFileAtomic(join(root, 'a.txt'), 'hello\n');
      assert.equal((await host.readFile(join(root, 'a.txt'))).toString(), 'hello\n');
      assert.equal((await host.stat(join(root, 'a.txt')))?.mode, 0o644);
      await host.writeFileAtomic(join(root, 'b.bin'), new Uint8Array([0, 1, 255]), { mode: 0o600 });
      assert.deepEqual([...(await host.readFile(join(root, 'b.bin')))], [0, 1, 255]);
      // readText decodes as UTF-8: a byte that is not UTF-8 reads as U+FFFD, a byte-order mark is kept.
      assert.equal(await host.readText(join(root, 'b.bin')), '\u0000\u0001\uFFFD');
      await host.writeFileAtomic(join(root, 'c.txt'), '\uFEFFcafé\n');
      assert.equal(await host.readText(join(root, 'c.txt')), '\uFEFFcafé\n');
      await host.remove(join(root, 'c.txt'));
      await assert.rejects(host.readText(join(root, 'nope.txt')), isHostError('ENOENT', join(root, 'nope.txt')));
      assert.equal((await host.stat(join(root, 'b.bin')))?.mode, 0o600);
      // No temporary file is left next to the targets.
      assert.deepEqual(await host.readdir(root), ['a.txt', 'b.bin', 'seed.txt', 'seeddir']);
    });

    it('immediate readText with an expected size gives the same text whether the file is shorter, as long or longer', async ({ host, root }) => {
      const now = host.immediate;
      if (now === undefined) return;
      const text = `${'é'.repeat(40)}\n${'x'.repeat(70_000)}`;
      await host.writeFileAtomic(join(root, 'big.txt'), text);
      await host.writeFileAtomic(join(root, 'small.txt'), 'héllo\n');
      const small = join(root, 'small.txt');
      const big = join(root, 'big.txt');
      for (const expect of [undefined, 0, 1, 2, 3, 6, 7, 8, 100]) assert.equal(now.readText(small, expect), 'héllo\n', `small, expecting ${expect}`);
      // A guess that cuts a two-byte character, a large file expected small, and one too large to expect.
      for (const expect of [undefined, 1, 2, 79, 1000, 65_535, 80_000]) assert.equal(now.readText(big, expect), text, `big, expecting ${expect}`);
      assert.throws(() => now.readText(join(root, 'nope.txt'), 4), isHostError('ENOENT', join(root, 'nope.txt')));
      assert.throws(() => now.readText(join(root, 'seeddir'), 4), isHostError('EISDIR'));
    });

    it('immediate changeStamp describes a regular file only, and follows its content', async ({ host, root }) => {
      const stampOf = host.immediate?.changeStamp;
      if (stampOf === undefined) return;
      const file = join(root, 'seed.txt');
      const stamp = stampOf(file);
      // A file system whose stat answers may be stale gives no stamps at all.
      if (stamp === undefined) return void console.log(`# ${name}: no change stamps on the file system of ${root}`);
      const st = fs.lstatSync(file);
      assert.deepEqual(stamp, { dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs });
      await host.symlink('seed.txt', join(root, 'link'));
      for (const other of ['link', 'seeddir', 'nope.txt', 'seed.txt/x']) assert.equal(stampOf(join(root, other)), undefined, other);
      // Rewritten in place with another size: another stamp.
      fs.appendFileSync(file, 'more');
      assert.notDeepEqual(stampOf(file), stamp);
    });

    it('writeFileAtomic keeps the mode of a replaced file unless a mode is given', async ({ host, root }) => {
      const p = join(root, 'seed.txt');
      await host.chmod(p, 0o640);
      await host.writeFileAtomic(p, 'new content\n');
      assert.equal((await host.readFile(p)).toString(), 'new content\n');
      assert.equal((await host.stat(p))?.mode, 0o640);
      await host.writeFileAtomic(p, 'again\n', { mode: 0o755 });
      assert.equal((await host.stat(p))?.mode, 0o755);
      assert.equal((await host.stat(p))?.size, 6);
    });

    it('writeFileAtomic fails clearly on a missing parent or a directory, leaving no temp file', async ({ host, root }) => {
      const deep = join(root, 'no', 'such', 'x.txt');
      await assert.rejects(host.writeFileAtomic(deep, 'x'), { message: `cannot write ${deep}: no such file or directory (ENOENT)` });
      await assert.rejects(host.writeFileAtomic(join(root, 'seeddir'), 'x'), isHostError('EISDIR', join(root, 'seeddir')));
      assert.deepEqual(await host.readdir(root), ['seed.txt', 'seeddir']);
      assert.deepEqual(await host.readdir(join(root, 'seeddir')), ['inner.txt']);
    });

    it('mkdir creates one level, or a whole chain with recursive, with an exact mode', async ({ host, root }) => {
      await host.mkdir(join(root, 'd'));
      assert.equal((await host.stat(join(root, 'd')))?.type, 'directory');
      await host.mkdir(join(root, 'x', 'y', 'z'), { recursive: true, mode: 0o700 });
      assert.equal((await host.stat(join(root, 'x', 'y', 'z')))?.mode, 0o700);
      assert.equal((await host.stat(join(root, 'x', 'y')))?.type, 'directory');
      await host.mkdir(join(root, 'x', 'y'), { recursive: true });
      await assert.rejects(host.mkdir(join(root, 'd')), isHostError('EEXIST', join(root, 'd')));
      await assert.rejects(host.mkdir(join(root, 'p', 'q')), isHostError('ENOENT', join(root, 'p', 'q')));
      await host.mkdir(join(root, 'exact'), { mode: 0o751 });
      assert.equal((await host.stat(join(root, 'exact')))?.mode, 0o751);
    });

    it('chmod and chown change attributes; -1 keeps a value', async ({ host, root }) => {
      const p = join(root, 'seed.txt');
      await host.chmod(p, 0o600);
      assert.equal((await host.stat(p))?.mode, 0o600);
      const st = await host.lstat(p);
      assert.ok(st);
      await host.chown(p, st.uid, st.gid);
      await host.chown(p, -1, -1);
      const after = await host.lstat(p);
      assert.equal(after?.uid, st.uid);
      assert.equal(after?.gid, st.gid);
      await assert.rejects(host.chmod(join(root, 'gone'), 0o600), isHostError('ENOENT', join(root, 'gone')));
      await assert.rejects(host.chown(join(root, 'gone'), -1, -1), isHostError('ENOENT', join(root, 'gone')));
    });

    it('symlink creates and atomically replaces links and files, not directories', async ({ host, root }) => {
      const link = join(root, 'link');
      await host.symlink('seed.txt', link);
      await host.symlink('seeddir', link);
      assert.equal(await host.readlink(link), 'seeddir');
      assert.equal((await host.stat(link))?.type, 'directory');
      await host.writeFileAtomic(join(root, 'plain'), 'x');
      await host.symlink('/etc/hostname', join(root, 'plain'));
      assert.equal(await host.readlink(join(root, 'plain')), '/etc/hostname');
      await assert.rejects(host.symlink('x', join(root, 'seeddir')), (e: unknown) => e instanceof HostError && e.message.startsWith(`cannot create symlink ${join(root, 'seeddir')}:`));
      assert.deepEqual(await host.readdir(root), ['link', 'plain', 'seed.txt', 'seeddir']);
      assert.equal((await host.readFile(join(link, 'inner.txt'))).toString(), 'inner\n');
    });

    it('remove deletes files, links (not their targets), empty dirs and, recursively, trees', async ({ host, root }) => {
      await host.symlink('seed.txt', join(root, 'link'));
      await host.remove(join(root, 'link'));
      assert.equal(await host.lstat(join(root, 'link')), null);
      assert.equal((await host.readFile(join(root, 'seed.txt'))).toString(), 'seed\n');
      await host.remove(join(root, 'seed.txt'));
      assert.equal(await host.lstat(join(root, 'seed.txt')), null);
      await host.remove(join(root, 'seed.txt'));
      await host.remove(join(root, 'never', 'was'));
      await assert.rejects(host.remove(join(root, 'seeddir')), isHostError('ENOTEMPTY', join(root, 'seeddir')));
      await host.mkdir(join(root, 'seeddir', 'deeper'));
      await host.writeFileAtomic(join(root, 'seeddir', 'deeper', 'f'), 'f');
      await host.remove(join(root, 'seeddir'), { recursive: true });
      assert.equal(await host.lstat(join(root, 'seeddir', 'deeper', 'f')), null);
      assert.equal(await host.lstat(join(root, 'seeddir')), null);
      await host.mkdir(join(root, 'empty'));
      await host.remove(join(root, 'empty'));
      assert.deepEqual(await host.readdir(root), []);
      // A directory made again after removal starts empty.
      await host.mkdir(join(root, 'seeddir'));
      assert.deepEqual(await host.readdir(join(root, 'seeddir')), []);
    });

    it('rename moves a file or directory, replacing a file atomically; errors name the path', async ({ host, root }) => {
      await host.writeFileAtomic(join(root, 'next.txt'), 'next\n', { mode: 0o600 });
      await host.rename(join(root, 'next.txt'), join(root, 'seed.txt'));
      assert.equal((await host.readFile(join(root, 'seed.txt'))).toString(), 'next\n');
      assert.equal((await host.stat(join(root, 'seed.txt')))?.mode, 0o600);
      assert.equal(await host.lstat(join(root, 'next.txt')), null);
      await host.mkdir(join(root, 'newdir'));
      await host.writeFileAtomic(join(root, 'newdir', 'f'), 'f');
      await host.rename(join(root, 'newdir'), join(root, 'moved'));
      assert.equal((await host.readFile(join(root, 'moved', 'f'))).toString(), 'f');
      const missing = join(root, 'absent');
      await assert.rejects(host.rename(missing, join(root, 'x')), isHostError('ENOENT', missing));
      assert.deepEqual(await host.readdir(root), ['moved', 'seed.txt', 'seeddir']);
    });

    it('facts describe the target and are gathered once', async ({ host }) => {
      const facts = await host.facts();
      assert.equal(await host.facts(), facts, 'a second call returns the same facts');
      for (const key of ['os', 'osFamily', 'kernel', 'arch', 'hostname', 'fqdn'] as const) assert.ok(facts[key].length > 0, `${key} is set`);
      assert.ok(Number.isInteger(facts.cpuCount) && facts.cpuCount >= 1);
      assert.ok(facts.memoryBytes > 0);
      assert.ok(Array.isArray(facts.ipAddresses));
      assert.ok(!facts.ipAddresses.includes('127.0.0.1'), 'loopback is left out');
      assert.equal(typeof facts.env.PATH, 'string');
      if (caps.runsCommands || caps.realNetwork) {
        // A real machine: the facts are the machine's own, as the kernel reports them.
        assert.equal(facts.hostname, fs.readFileSync('/proc/sys/kernel/hostname', 'utf8').trim());
        assert.equal(facts.kernel, fs.readFileSync('/proc/sys/kernel/osrelease', 'utf8').trim());
        assert.equal(facts.os, 'Linux');
      }
    });

    it('facts also give the kernel version, the user commands run as, the machine id and IPv4 per interface', async ({ host }) => {
      const facts = await host.facts();
      if (!(caps.runsCommands || caps.realNetwork)) return;
      assert.equal(facts.kernelVersion, fs.readFileSync('/proc/sys/kernel/version', 'utf8').trim());
      assert.ok(facts.user && facts.user.name.length > 0 && Number.isInteger(facts.user.uid) && Number.isInteger(facts.user.gid), JSON.stringify(facts.user));
      const machineId = fs.existsSync('/etc/machine-id') ? fs.readFileSync('/etc/machine-id', 'utf8').trim() : '';
      assert.equal(facts.machineId, machineId);
      if (fs.existsSync('/usr/sbin/ip') || fs.existsSync('/sbin/ip') || fs.existsSync('/usr/bin/ip')) assert.ok(facts.ipv4Interfaces?.lo?.includes('127.0.0.1'), JSON.stringify(facts.ipv4Interfaces));
    });

    it('execSync runs a program to completion with environment, directory and input', async ({ host, root }) => {
      if (!caps.runsCommands || !host.execSync) return;
      const r = host.execSync('printf "%s|%s|" "$GREETING" "$(pwd)"; cat; exit 3', { env: { GREETING: 'hello there' }, cwd: root, stdin: 'from stdin' });
      assert.equal(r.code, 3);
      assert.equal(r.stdout, `hello there|${root}|from stdin`);
      const argv = host.execSync(['printf', '%s', "it's $HOME"]);
      assert.equal(argv.stdout, "it's $HOME", 'an argv runs without a shell');
      const missing = host.execSync(['no-such-program-cairn']);
      assert.equal(missing.code, 127);
      assert.match(missing.stderr, /cannot run no-such-program-cairn: command not found/);
    });

    it('probeTcp connects from the target: refused and accepted ports', async ({ host }) => {
      const server = net.createServer((s) => s.destroy());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const open = (server.address() as net.AddressInfo).port;
      if (!caps.realNetwork && 'openPorts' in host) (host as unknown as { openPorts: Set<string> }).openPorts.add(`127.0.0.1:${open}`);
      try {
        assert.deepEqual(await host.probeTcp('127.0.0.1', open, 5000), { ok: true });
      } finally {
        server.close();
      }
      const closed = await freePort();
      const refused = await host.probeTcp('127.0.0.1', closed, 5000);
      assert.equal(refused.ok, false);
      assert.equal(refused.ok === false && refused.code, 'ECONNREFUSED');
    });

    it('open and close may be called again; operations work after a close', async ({ host, root }) => {
      await host.open();
      await host.open();
      await host.close();
      await host.close();
      assert.equal((await host.readFile(join(root, 'seed.txt'))).toString(), 'seed\n');
    });

    describe('exec', () => {
      const skip = caps.runsCommands ? false : `${name} does not run commands`;
      const opts = { skip };
      let runs: Harness;
      beforeEach(async () => {
        if (caps.runsCommands) runs = await make();
      });
      afterEach(async () => {
        if (caps.runsCommands) await runs.host.close();
      });

      test('an argv array runs directly, without a shell', opts, async () => {
        const { pid, ...r } = await runs.host.exec(['echo', '$HOME', 'a b']);
        assert.deepEqual(r, { code: 0, signal: null, stdout: '$HOME a b\n', stderr: '', timedOut: false });
        assert.ok(pid === undefined || (Number.isInteger(pid) && pid > 0), 'a pid, where the host knows one');
      });
      test('a string runs through /bin/sh -c', opts, async () => {
        const r = await runs.host.exec('echo one; echo two >&2; exit 3');
        assert.equal(r.code, 3);
        assert.equal(r.stdout, 'one\n');
        assert.equal(r.stderr, 'two\n');
      });
      test('env is merged over the environment; cwd and stdin are honoured', opts, async () => {
        const r = await runs.host.exec('echo "$CAIRN_T" && command -v sh >/dev/null && pwd && cat', {
          env: { CAIRN_T: 'value' },
          cwd: runs.root,
          stdin: 'from stdin',
        });
        assert.equal(r.code, 0);
        assert.equal(r.stdout, `value\n${fs.realpathSync(runs.root)}\nfrom stdin`);
      });
      test('a timeout kills the process group', opts, async () => {
        // A child in the background would leave its mark a second after the start: killed with the group,
        // it never does (a slow machine can only make this pass late, never fail it).
        const marker = join(runs.root, 'timeout-marker');
        const r = await runs.host.exec(`(sleep 1; touch ${marker}) & sleep 5; echo late`, { timeout: 200 });
        assert.equal(r.timedOut, true);
        assert.equal(r.code, null);
        assert.equal(r.signal, 'SIGKILL');
        assert.equal(r.stdout, '');
        await new Promise((done) => setTimeout(done, 1500));
        assert.equal(fs.existsSync(marker), false, 'the background child was killed with the group');
      });
      test('a missing program gives exit code 127 and says why', opts, async () => {
        const r = await runs.host.exec(['/no/such/program-cairn', 'x']);
        assert.equal(r.code, 127);
        assert.match(r.stderr, /cannot run \/no\/such\/program-cairn: command not found/);
        const inMissingDir = await runs.host.exec(['true'], { cwd: join(runs.root, 'missing') });
        assert.equal(inMissingDir.code, 127);
        assert.match(inMissingDir.stderr, /working directory .* does not exist/);
      });
      test('onOutput gets output while the program still runs, and the result still holds all of it', opts, async () => {
        // The program waits for a file that only the callback creates: it gets past the wait only if
        // "first" reached the callback before the program ended.
        const marker = join(runs.root, 'streamed-marker');
        const chunks: string[] = [];
        const r = await runs.host.exec(
          `echo first; i=0; while [ ! -e ${marker} ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; if [ -e ${marker} ]; then echo second; else echo late; fi; printf 'é\n' >&2`,
          {
            onOutput: (stream, chunk) => {
              chunks.push(`${stream}:${chunk}`);
              if (stream === 'stdout' && chunk.includes('first')) fs.writeFileSync(marker, '');
            },
          },
        );
        assert.equal(r.code, 0);
        assert.equal(r.stdout, 'first\nsecond\n');
        assert.equal(r.stderr, 'é\n');
        const joined = (stream: string): string =>
          chunks
            .filter((c) => c.startsWith(`${stream}:`))
            .map((c) => c.slice(stream.length + 1))
            .join('');
        assert.equal(joined('stdout'), r.stdout);
        assert.equal(joined('stderr'), r.stderr);
        fs.rmSync(marker, { force: true });
      });
      test('a command that ignores stdin does not fail', opts, async () => {
        const r = await runs.host.exec(['true'], { stdin: 'x'.repeat(1 << 20) });
        assert.equal(r.code, 0);
      });
    });
  });
}

