/**
 * The machine cairn runs on. Filesystem calls are synchronous on purpose: for many small files they are
 * several times faster than fs/promises (notes/perf.md), and a no-op check of 1000 files must take
 * milliseconds. Only exec is truly asynchronous. child_process, net and string_decoder are loaded when a
 * command or a port probe first needs them: a run that only checks files never loads them.
 */
import { type Stats, chmodSync, closeSync, existsSync, fchmodSync, fchownSync, fsyncSync, lchownSync, lstatSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, readlinkSync, renameSync, rmSync, rmdirSync, statSync, statfsSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { errnoCode, HostError, toHostError } from './errors.js';
import { gatherFacts } from './facts.js';
import { runSync } from './run-sync.js';
import type { ExecOptions, ExecResult, FileType, Host, HostFacts, ImmediateReads, StatInfo, SyncExecOptions, TcpProbe, WriteOptions } from './types.js';
import { removeLeftoverTemps } from './leftovers.js';

function fileType(st: Stats): FileType {
  if (st.isFile()) return 'file';
  if (st.isDirectory()) return 'directory';
  if (st.isSymbolicLink()) return 'symlink';
  return 'other';
}

/** Options given as one object each time: as a string or a fresh object, Node builds and checks a new one per call. */
const UTF8 = Object.freeze({ encoding: 'utf8', flag: 'r' } as const);
const MAY_BE_ABSENT = Object.freeze({ throwIfNoEntry: false } as const);

/** Where a small file of an expected size is read (the text is decoded out of it at once). */
const ONE_READ = Buffer.allocUnsafe(64 * 1024);

/**
 * A regular file expected to hold `expect` bytes (less than ONE_READ's size): open, one read of one byte
 * more, close. readFileSync also asks for the size and reads again to find the end: two calls of five,
 * a tenth of a no-op's time at 10,000 files. A file longer than expected is read to its end.
 */
function readExpected(path: string, expect: number): string {
  const fd = openSync(path, 'r');
  try {
    const got = readSync(fd, ONE_READ, 0, expect + 1, null);
    if (got <= expect) return ONE_READ.toString('utf8', 0, got);
    const head = Buffer.from(ONE_READ.subarray(0, got));
    return Buffer.concat([head, readFileSync(fd)]).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * File systems whose stat answers are always fresh on this machine and whose inode change time moves with
 * every change of content, rename and link (statfs magic numbers): ext2/3/4, XFS, Btrfs, tmpfs, overlayfs.
 * Network file systems (NFS, SMB, 9p, FUSE) may answer from a cache of attributes: no stamps there.
 */
const FRESH_STAT_FS = new Set([0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x794c7630]);

function toStatInfo(st: Stats): StatInfo {
  return { type: fileType(st), mode: st.mode & 0o7777, uid: st.uid, gid: st.gid, size: st.size, mtimeMs: st.mtimeMs };
}

let tempCounter = 0;
/** A hidden name next to `path`, unique within this process and across concurrent processes. */
function tempNameFor(path: string): string {
  tempCounter += 1;
  return join(dirname(path), `.${basename(path)}.cairn-${process.pid}-${tempCounter}.tmp`);
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // the temp file may not exist yet; the original error is what matters
  }
}

/**
 * Facts kept across LocalHost objects, per host name, working directory and environment (what the facts
 * script's output depends on). Off unless a process that runs many command lines turns it on (the tests'
 * in-process runner), where this machine would otherwise be read again for every command line; a
 * command line run on its own reads its facts once anyway.
 */
let remembered: Map<string, Promise<HostFacts>> | undefined;
/** Variables a run sets for itself alone (a held lock's token): not part of the key, taken from the run. */
let perRun: readonly string[] = [];

export function rememberLocalFacts(variables: readonly string[] = []): void {
  remembered ??= new Map();
  perRun = variables;
}

export class LocalHost implements Host {
  private factsOnce: Promise<HostFacts> | undefined;
  /** This machine's files are read without waiting. */
  readonly immediate: ImmediateReads = {
    lstat: (path) => this.statWith(path, lstatSync, 'stat'),
    readText: (path, expect) => {
      try {
        if (expect !== undefined && expect < ONE_READ.length) return readExpected(path, expect);
        // Decoded as it is read, without a Buffer in between.
        return readFileSync(path, UTF8);
      } catch (e) {
        throw toHostError(e, 'read', path);
      }
    },
    changeStamp: (path) => {
      const at = path.lastIndexOf('/');
      if (at <= 0) return undefined;
      // Stamps are mostly asked for file after file of one folder: that folder is checked without a copy of its name.
      const dev = at === this.lastDir.length && path.startsWith(this.lastDir) ? this.lastDev : this.freshDev(path.slice(0, at));
      let st: Stats | undefined;
      try {
        st = lstatSync(path, MAY_BE_ABSENT);
      } catch {
        return undefined;
      }
      // A file of another device than its folder's is mounted over it, from a file system not looked at.
      if (!st?.isFile() || dev === undefined || st.dev !== dev) return undefined;
      return { dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs };
    },
  };

  /** Per folder: its device when it is on a file system of FRESH_STAT_FS, else undefined (asked once per folder). */
  private readonly freshDevs = new Map<string, number | undefined>();

  private lastDir = '';
  private lastDev: number | undefined;

  private freshDev(dir: string): number | undefined {
    let dev: number | undefined;
    if (this.freshDevs.has(dir)) dev = this.freshDevs.get(dir);
    else {
      try {
        const st = statSync(dir);
        dev = st.isDirectory() && FRESH_STAT_FS.has(statfsSync(dir).type) ? st.dev : undefined;
      } catch {
        dev = undefined;
      }
      this.freshDevs.set(dir, dev);
    }
    this.lastDir = dir;
    this.lastDev = dev;
    return dev;
  }

  /** `name` is how results and messages call this machine (an inventory name, or `local`). */
  constructor(readonly name = 'local') {}

  async open(): Promise<void> {}

  async close(): Promise<void> {}

  /** Read from the machine by the same script the SSH host runs, so both report the same way. */
  facts(): Promise<HostFacts> {
    this.factsOnce ??= this.readFacts();
    return this.factsOnce;
  }

  private readFacts(): Promise<HostFacts> {
    const read = (): Promise<HostFacts> => gatherFacts((script) => this.exec(script, { readOnly: true }), this.name);
    if (!remembered) return read();
    const key = JSON.stringify([this.name, process.cwd(), Object.entries(process.env).filter(([k]) => !perRun.includes(k))]);
    let facts = remembered.get(key);
    if (!facts) {
      facts = read();
      remembered.set(key, facts);
      facts.catch(() => remembered?.delete(key));
    }
    // The environment the script would print now: the per-run variables as this run has them.
    const own = perRun.map((k) => [k, process.env[k]] as const);
    return facts.then((f) => {
      const copy = structuredClone(f);
      const env = { ...copy.env };
      for (const [k, v] of own) {
        if (v === undefined) delete env[k];
        else env[k] = v;
      }
      return { ...copy, env };
    });
  }

  execSync(command: string | readonly string[], options: SyncExecOptions = {}): ExecResult {
    return execLocalSync(command, options);
  }

  async rename(from: string, to: string): Promise<void> {
    try {
      renameSync(from, to);
    } catch (e) {
      throw toHostError(e, 'rename', from);
    }
  }

  probeTcp(host: string, port: number, timeoutMs: number): Promise<TcpProbe> {
    return new Promise((resolve) => {
      const socket = process.getBuiltinModule('node:net').connect(port, host);
      const done = (probe: TcpProbe): void => {
        socket.destroy();
        resolve(probe);
      };
      socket.setTimeout(timeoutMs, () => done({ ok: false, code: 'ETIMEDOUT', message: 'i/o timeout' }));
      socket.on('connect', () => done({ ok: true }));
      socket.on('error', (e) => done({ ok: false, code: errnoCode(e) ?? 'EIO', message: e.message }));
    });
  }

  async lstat(path: string): Promise<StatInfo | null> {
    return this.immediate.lstat(path);
  }

  async stat(path: string): Promise<StatInfo | null> {
    return this.statWith(path, statSync, 'stat');
  }

  private statWith(path: string, fn: typeof statSync, operation: string): StatInfo | null {
    try {
      const st = fn(path, MAY_BE_ABSENT);
      return st ? toStatInfo(st) : null;
    } catch (e) {
      // A file where a directory was expected means the path cannot exist.
      if (errnoCode(e) === 'ENOTDIR' || errnoCode(e) === 'ENOENT') return null;
      throw toHostError(e, operation, path);
    }
  }

  async readFile(path: string): Promise<Buffer> {
    try {
      return readFileSync(path);
    } catch (e) {
      throw toHostError(e, 'read', path);
    }
  }

  async readText(path: string): Promise<string> {
    return this.immediate.readText(path);
  }

  async readlink(path: string): Promise<string> {
    try {
      return readlinkSync(path);
    } catch (e) {
      throw toHostError(e, 'read link', path);
    }
  }

  async readdir(path: string): Promise<string[]> {
    try {
      return readdirSync(path).sort();
    } catch (e) {
      throw toHostError(e, 'list', path);
    }
  }

  async writeFileAtomic(path: string, data: string | Uint8Array, options: WriteOptions = {}): Promise<void> {
    let existing: Stats | undefined;
    try {
      existing = statSync(path, { throwIfNoEntry: false });
    } catch {
      existing = undefined;
    }
    if (existing?.isDirectory()) throw new HostError('write', path, 'EISDIR');
    const mode = options.mode ?? (existing?.isFile() ? existing.mode & 0o7777 : 0o644);
    const temp = tempNameFor(path);
    let fd: number | undefined;
    try {
      fd = openSync(temp, 'wx', 0o600);
      writeFileSync(fd, data);
      // fchmod, not the open mode: the umask must not change the requested bits.
      fchmodSync(fd, mode);
      const uid = options.uid ?? (existing?.isFile() ? existing.uid : -1);
      const gid = options.gid ?? (existing?.isFile() ? existing.gid : -1);
      if (uid !== -1 || gid !== -1) this.chownTemp(fd, uid, gid, options, path);
      fsyncSync(fd);
      closeSync(fd);
      fd = undefined;
      renameSync(temp, path);
      removeLeftoverTemps(path);
    } catch (e) {
      if (fd !== undefined) {
        try {
          closeSync(fd);
        } catch {
          // already failing
        }
      }
      unlinkQuietly(temp);
      throw toHostError(e, 'write', path);
    }
  }

  /** Keeping the owner of a replaced file is best effort (it needs root); a requested owner is not. */
  private chownTemp(fd: number, uid: number, gid: number, options: WriteOptions, path: string): void {
    try {
      fchownSync(fd, uid, gid);
    } catch (e) {
      if (options.uid !== undefined || options.gid !== undefined) throw toHostError(e, 'change owner of', path);
    }
  }

  async mkdir(path: string, options: { readonly recursive?: boolean; readonly mode?: number } = {}): Promise<void> {
    try {
      const created = mkdirSync(path, { recursive: options.recursive ?? false });
      const made = options.recursive ? created !== undefined : true;
      // mkdir's mode is filtered by the umask; chmod makes the requested mode exact.
      if (made && options.mode !== undefined) chmodSync(path, options.mode);
    } catch (e) {
      throw toHostError(e, 'create directory', path);
    }
  }

  async chmod(path: string, mode: number): Promise<void> {
    try {
      chmodSync(path, mode);
    } catch (e) {
      throw toHostError(e, 'change mode of', path);
    }
  }

  async chown(path: string, uid: number, gid: number): Promise<void> {
    try {
      lchownSync(path, uid, gid);
    } catch (e) {
      throw toHostError(e, 'change owner of', path);
    }
  }

  async symlink(target: string, path: string): Promise<void> {
    const temp = tempNameFor(path);
    try {
      symlinkSync(target, temp);
      renameSync(temp, path);
      removeLeftoverTemps(path);
    } catch (e) {
      unlinkQuietly(temp);
      throw toHostError(e, 'create symlink', path);
    }
  }

  async remove(path: string, options: { readonly recursive?: boolean } = {}): Promise<void> {
    try {
      const st = lstatSync(path, { throwIfNoEntry: false });
      if (!st) return;
      if (!st.isDirectory()) unlinkSync(path);
      else if (options.recursive) rmSync(path, { recursive: true, force: true });
      else rmdirSync(path);
    } catch (e) {
      if (errnoCode(e) === 'ENOENT' || errnoCode(e) === 'ENOTDIR') return;
      throw toHostError(e, 'remove', path);
    }
  }

  exec(command: string | readonly string[], options: ExecOptions = {}): Promise<ExecResult> {
    const [file, args] = typeof command === 'string' ? ['/bin/sh', ['-c', command]] : [command[0] ?? '', command.slice(1)];
    const shown = typeof command === 'string' ? command : (command[0] ?? '');
    return new Promise((resolve, reject) => {
      const child = process.getBuiltinModule('node:child_process').spawn(file, args, {
        cwd: options.cwd,
        env: options.env ? { ...process.env, ...options.env } : process.env,
        stdio: ['pipe', 'pipe', 'pipe'],
        // Its own process group, so a timeout kills the whole tree and no grandchild keeps the pipes open.
        detached: options.timeout !== undefined,
      });
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      let timedOut = false;
      let settled = false;
      const timer =
        options.timeout !== undefined
          ? setTimeout(() => {
              timedOut = true;
              try {
                if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
              } catch {
                child.kill('SIGKILL');
              }
            }, options.timeout)
          : undefined;
      const finish = (result: ExecResult | Error): void => {
        if (settled) return;
        settled = true;
        if (timer) clearTimeout(timer);
        if (result instanceof Error) reject(result);
        else resolve(result);
      };
      const onOutput = options.onOutput;
      if (onOutput) {
        // Decoders keep a multi-byte character split across chunks until its last byte arrives.
        const { StringDecoder } = process.getBuiltinModule('node:string_decoder');
        const decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };
        const pass = (stream: 'stdout' | 'stderr', b: Buffer): void => {
          const text = decoders[stream].write(b);
          if (text !== '') onOutput(stream, text);
        };
        child.stdout.on('data', (b: Buffer) => {
          stdout.push(b);
          pass('stdout', b);
        });
        child.stderr.on('data', (b: Buffer) => {
          stderr.push(b);
          pass('stderr', b);
        });
        child.stdout.on('end', () => {
          const rest = decoders.stdout.end();
          if (rest !== '') onOutput('stdout', rest);
        });
        child.stderr.on('end', () => {
          const rest = decoders.stderr.end();
          if (rest !== '') onOutput('stderr', rest);
        });
      } else {
        child.stdout.on('data', (b: Buffer) => stdout.push(b));
        child.stderr.on('data', (b: Buffer) => stderr.push(b));
      }
      // A program that exits without reading its input makes the write fail with EPIPE: not our concern.
      child.stdin.on('error', () => {});
      child.stdin.end(options.stdin ?? '');
      child.on('error', (e) => {
        const code = errnoCode(e);
        if (options.cwd !== undefined && code === 'ENOENT' && !existsSync(options.cwd)) {
          finish(notStarted(127, `cannot run ${shown}: working directory ${options.cwd} does not exist`));
        } else if (code === 'ENOENT') finish(notStarted(127, `cannot run ${shown}: command not found (ENOENT)`));
        else if (code === 'EACCES') finish(notStarted(126, `cannot run ${shown}: permission denied (EACCES)`));
        else finish(toHostError(e, 'run', shown));
      });
      child.on('close', (code, signal) => {
        finish({
          code,
          signal,
          stdout: Buffer.concat(stdout).toString('utf8'),
          stderr: Buffer.concat(stderr).toString('utf8'),
          timedOut,
          ...(child.pid !== undefined ? { pid: child.pid } : {}),
        });
      });
    });
  }
}

/** LocalHost.execSync: the same program, environment and directory as exec, run to completion. */
function execLocalSync(command: string | readonly string[], options: SyncExecOptions): ExecResult {
  const [file, args] = typeof command === 'string' ? ['/bin/sh', ['-c', command]] : [command[0] ?? '', command.slice(1)];
  const shown = typeof command === 'string' ? command : (command[0] ?? '');
  if (options.cwd !== undefined && !existsSync(options.cwd)) return notStarted(127, `cannot run ${shown}: working directory ${options.cwd} does not exist`);
  const r = runSync(file, args, {
    input: options.stdin ?? '',
    env: options.env ? { ...process.env, ...options.env } : process.env,
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    ...(options.timeout !== undefined ? { timeoutMs: options.timeout } : {}),
  });
  if (r.missing) return notStarted(127, `cannot run ${shown}: command not found (ENOENT)`);
  if (r.failure !== undefined && /EACCES/.test(r.failure)) return notStarted(126, `cannot run ${shown}: permission denied (EACCES)`);
  const timedOut = r.failure !== undefined && /ETIMEDOUT/.test(r.failure);
  return { code: r.status, signal: r.status === null ? 'SIGKILL' : null, stdout: r.stdout, stderr: r.stderr, timedOut };
}

function notStarted(code: number, message: string): ExecResult {
  return { code, signal: null, stdout: '', stderr: `${message}\n`, timedOut: false };
}
