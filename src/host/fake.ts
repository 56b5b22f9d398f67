/**
 * An in-memory machine for tests: files, directories and symlinks with modes and owners, and commands
 * answered by a handler the test supplies. It follows the same rules (and error codes) as LocalHost.
 */
import { posix } from 'node:path';
import { HostError } from './errors.js';
import type { ExecOptions, ExecResult, Host, HostFacts, ImmediateReads, StatInfo, SyncExecOptions, TcpProbe, WriteOptions } from './types.js';

interface Meta {
  mode: number;
  uid: number;
  gid: number;
  mtimeMs: number;
}
type Entry =
  | (Meta & { readonly type: 'file'; data: Buffer })
  | (Meta & { readonly type: 'directory' })
  | (Meta & { readonly type: 'symlink'; readonly target: string });

export interface ExecCall {
  readonly command: string | readonly string[];
  readonly options: ExecOptions;
}
export type ExecHandler = (command: string | readonly string[], options: ExecOptions) => Partial<ExecResult> | Promise<Partial<ExecResult>>;

export interface FakeHostOptions {
  /** Owner of everything the fake creates (default 0:0). */
  readonly uid?: number;
  readonly gid?: number;
  readonly exec?: ExecHandler;
  /** Files to start with: path → content (parents are created). */
  readonly files?: Readonly<Record<string, string>>;
  /** Facts to report, over a small Debian machine named `fake`. */
  readonly facts?: Partial<HostFacts>;
  /** Ports that accept connections, as `host:port`; every other probe is refused. */
  readonly openPorts?: readonly string[];
  /** Host name (default `fake`). */
  readonly name?: string;
}

export const FAKE_FACTS: HostFacts = {
  os: 'Linux',
  osFamily: 'debian',
  osRelease: { ID: 'debian', VERSION_ID: '12', PRETTY_NAME: 'Debian GNU/Linux 12 (bookworm)' },
  kernel: '6.1.0-fake',
  arch: 'x86_64',
  hostname: 'fake',
  fqdn: 'fake.example.test',
  env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: '/root', LANG: 'C.UTF-8' },
  ipAddresses: ['192.0.2.10'],
  cpuCount: 2,
  memoryBytes: 2 * 1024 ** 3,
};

const MAX_LINKS = 40;

export class FakeHost implements Host {
  readonly name: string;
  readonly execLog: ExecCall[] = [];
  /** How many times facts() was asked and how often open/close ran: lifecycle assertions in tests. */
  readonly calls = { facts: 0, open: 0, close: 0 };
  openPorts: Set<string>;
  private readonly factsValue: HostFacts;
  execHandler: ExecHandler;
  private readonly entries = new Map<string, Entry>();
  private readonly uid: number;
  private readonly gid: number;
  private clock = 1_700_000_000_000;
  /** In memory, every read can be answered at once (the engine's fast path runs on a fake host too). */
  readonly immediate: ImmediateReads = {
    lstat: (path) => this.statOf(this.lookup(path, false)),
    readText: (path) => this.bytesOf(path).toString('utf8'),
  };

  constructor(options: FakeHostOptions = {}) {
    this.uid = options.uid ?? 0;
    this.gid = options.gid ?? 0;
    this.execHandler = options.exec ?? (() => ({}));
    this.name = options.name ?? 'fake';
    this.factsValue = { ...FAKE_FACTS, ...(options.name ? { hostname: options.name, fqdn: `${options.name}.example.test` } : {}), ...options.facts };
    this.openPorts = new Set(options.openPorts ?? []);
    this.entries.set('/', this.meta({ type: 'directory' }, 0o755));
    for (const [path, content] of Object.entries(options.files ?? {})) this.addFile(path, content);
  }

  // ---- test helpers (synchronous, create parents as needed) ----

  addFile(path: string, content: string | Uint8Array, attrs: { mode?: number; uid?: number; gid?: number } = {}): this {
    this.addDir(posix.dirname(posix.resolve(path)));
    const entry = this.meta({ type: 'file', data: Buffer.from(content) }, attrs.mode ?? 0o644);
    this.entries.set(this.real(path, false, 'write'), { ...entry, uid: attrs.uid ?? this.uid, gid: attrs.gid ?? this.gid });
    return this;
  }

  addDir(path: string, mode = 0o755): this {
    let current = '/';
    for (const part of posix.resolve(path).split('/').filter(Boolean)) {
      current = this.real(posix.join(current, part), true, 'create directory');
      if (!this.entries.has(current)) this.entries.set(current, this.meta({ type: 'directory' }, mode));
    }
    return this;
  }

  addSymlink(path: string, target: string): this {
    this.addDir(posix.dirname(posix.resolve(path)));
    this.entries.set(this.real(path, false, 'create symlink'), this.meta({ type: 'symlink', target }, 0o777));
    return this;
  }

  /** Content of a file as text, or undefined when there is no file (follows symlinks). */
  contentOf(path: string): string | undefined {
    const e = this.entries.get(this.real(path, true, 'read'));
    return e?.type === 'file' ? e.data.toString('utf8') : undefined;
  }

  /** Every path the fake holds, sorted (a snapshot for "nothing changed" assertions). */
  snapshot(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [p, e] of [...this.entries].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const body = e.type === 'file' ? e.data.toString('utf8') : e.type === 'symlink' ? `-> ${e.target}` : '';
      out[p] = `${e.type} ${e.mode.toString(8)} ${e.uid}:${e.gid} ${body}`;
    }
    return out;
  }

  // ---- Host ----

  async open(): Promise<void> {
    this.calls.open += 1;
  }

  async close(): Promise<void> {
    this.calls.close += 1;
  }

  async facts(): Promise<HostFacts> {
    this.calls.facts += 1;
    return this.factsValue;
  }

  async probeTcp(host: string, port: number): Promise<TcpProbe> {
    if (this.openPorts.has(`${host}:${port}`)) return { ok: true };
    return { ok: false, code: 'ECONNREFUSED', message: `connect ECONNREFUSED ${host}:${port}` };
  }

  async rename(from: string, to: string): Promise<void> {
    const src = this.real(from, false, 'rename');
    const e = this.entries.get(src);
    if (!e) throw new HostError('rename', from, 'ENOENT');
    const dst = this.real(to, false, 'rename');
    this.requireParent(dst, to, 'rename');
    const old = this.entries.get(dst);
    if (old?.type === 'directory' && e.type !== 'directory') throw new HostError('rename', from, 'EISDIR');
    if (old?.type === 'directory' && this.childrenOf(dst).length > 0) throw new HostError('rename', from, 'ENOTEMPTY');
    if (old && old.type !== 'directory' && e.type === 'directory') throw new HostError('rename', from, 'ENOTDIR');
    if (src === dst) return;
    const moved = [...this.entries].filter(([p]) => p.startsWith(`${src}/`));
    this.entries.delete(src);
    for (const [p] of moved) this.entries.delete(p);
    this.entries.set(dst, e);
    for (const [p, child] of moved) this.entries.set(dst + p.slice(src.length), child);
  }

  async lstat(path: string): Promise<StatInfo | null> {
    return this.statOf(this.lookup(path, false));
  }

  async stat(path: string): Promise<StatInfo | null> {
    return this.statOf(this.lookup(path, true));
  }

  async readFile(path: string): Promise<Buffer> {
    return this.bytesOf(path);
  }

  async readText(path: string): Promise<string> {
    return this.immediate.readText(path);
  }

  private bytesOf(path: string): Buffer {
    const e = this.entries.get(this.real(path, true, 'read'));
    if (!e) throw new HostError('read', path, 'ENOENT');
    if (e.type === 'directory') throw new HostError('read', path, 'EISDIR');
    if (e.type !== 'file') throw new HostError('read', path, 'EINVAL');
    return Buffer.from(e.data);
  }

  async readlink(path: string): Promise<string> {
    const e = this.entries.get(this.real(path, false, 'read link'));
    if (!e) throw new HostError('read link', path, 'ENOENT');
    if (e.type !== 'symlink') throw new HostError('read link', path, 'EINVAL');
    return e.target;
  }

  async readdir(path: string): Promise<string[]> {
    const dir = this.real(path, true, 'list');
    const e = this.entries.get(dir);
    if (!e) throw new HostError('list', path, 'ENOENT');
    if (e.type !== 'directory') throw new HostError('list', path, 'ENOTDIR');
    return this.childrenOf(dir).map((p) => posix.basename(p)).sort();
  }

  async writeFileAtomic(path: string, data: string | Uint8Array, options: WriteOptions = {}): Promise<void> {
    const real = this.real(path, false, 'write');
    this.requireParent(real, path, 'write');
    const old = this.entries.get(real);
    const target = old?.type === 'symlink' ? this.entries.get(this.real(path, true, 'write')) : old;
    if (old?.type === 'directory') throw new HostError('write', path, 'EISDIR');
    const keep = target?.type === 'file' ? target : undefined;
    const entry = this.meta({ type: 'file', data: Buffer.from(data) }, options.mode ?? keep?.mode ?? 0o644);
    entry.uid = options.uid ?? keep?.uid ?? this.uid;
    entry.gid = options.gid ?? keep?.gid ?? this.gid;
    this.entries.set(real, entry);
  }

  async mkdir(path: string, options: { readonly recursive?: boolean; readonly mode?: number } = {}): Promise<void> {
    const parent = posix.dirname(posix.resolve('/', path));
    if (options.recursive && !this.statOf(this.lookup(parent, true))) await this.mkdir(parent, { recursive: true });
    const real = this.real(path, false, 'create directory');
    const existing = this.entries.get(this.real(path, true, 'create directory')) ?? this.entries.get(real);
    if (existing) {
      if (options.recursive && existing.type === 'directory') return;
      throw new HostError('create directory', path, 'EEXIST');
    }
    this.requireParent(real, path, 'create directory');
    this.entries.set(real, this.meta({ type: 'directory' }, options.mode ?? 0o755));
  }

  async chmod(path: string, mode: number): Promise<void> {
    const e = this.entries.get(this.real(path, true, 'change mode of'));
    if (!e) throw new HostError('change mode of', path, 'ENOENT');
    e.mode = mode & 0o7777;
  }

  async chown(path: string, uid: number, gid: number): Promise<void> {
    const e = this.entries.get(this.real(path, false, 'change owner of'));
    if (!e) throw new HostError('change owner of', path, 'ENOENT');
    if (uid !== -1) e.uid = uid;
    if (gid !== -1) e.gid = gid;
  }

  async symlink(target: string, path: string): Promise<void> {
    const real = this.real(path, false, 'create symlink');
    this.requireParent(real, path, 'create symlink');
    const old = this.entries.get(real);
    // rename(2) of a link over a directory fails: EISDIR when empty, ENOTEMPTY otherwise.
    if (old?.type === 'directory') throw new HostError('create symlink', path, this.childrenOf(real).length ? 'ENOTEMPTY' : 'EISDIR');
    this.entries.set(real, this.meta({ type: 'symlink', target }, 0o777));
  }

  async remove(path: string, options: { readonly recursive?: boolean } = {}): Promise<void> {
    const real = this.lookup(path, false);
    const e = real === undefined ? undefined : this.entries.get(real);
    if (real === undefined || !e) return;
    if (e.type === 'directory') {
      if (real === '/') throw new HostError('remove', path, 'EBUSY');
      const below = [...this.entries.keys()].filter((p) => p.startsWith(`${real}/`));
      if (below.length > 0 && !options.recursive) throw new HostError('remove', path, 'ENOTEMPTY');
      for (const p of below) this.entries.delete(p);
    }
    this.entries.delete(real);
  }

  async exec(command: string | readonly string[], options: ExecOptions = {}): Promise<ExecResult> {
    this.execLog.push({ command, options });
    const r = await this.execHandler(command, options);
    // Canned output is "streamed" once per stream, so callers that show output live see it too.
    if (options.onOutput) {
      if (r.stdout) options.onOutput('stdout', r.stdout);
      if (r.stderr) options.onOutput('stderr', r.stderr);
    }
    return { code: r.code === undefined ? 0 : r.code, signal: r.signal ?? null, stdout: r.stdout ?? '', stderr: r.stderr ?? '', timedOut: r.timedOut ?? false };
  }

  /** The same handler, answered at once: a handler that answers with a promise cannot be used here. */
  execSync(command: string | readonly string[], options: SyncExecOptions = {}): ExecResult {
    this.execLog.push({ command, options });
    const r = this.execHandler(command, options);
    if (r instanceof Promise) throw new Error('the fake host\'s exec handler answers asynchronously; execSync needs a synchronous answer');
    return { code: r.code === undefined ? 0 : r.code, signal: r.signal ?? null, stdout: r.stdout ?? '', stderr: r.stderr ?? '', timedOut: r.timedOut ?? false };
  }

  // ---- internals ----

  private meta<T extends { type: Entry['type'] }>(base: T, mode: number): T & Meta {
    this.clock += 1;
    return { ...base, mode: mode & 0o7777, uid: this.uid, gid: this.gid, mtimeMs: this.clock };
  }

  private statOf(real: string | undefined): StatInfo | null {
    const e = real === undefined ? undefined : this.entries.get(real);
    if (!e) return null;
    const size = e.type === 'file' ? e.data.length : e.type === 'symlink' ? Buffer.byteLength(e.target) : 4096;
    return { type: e.type, mode: e.mode, uid: e.uid, gid: e.gid, size, mtimeMs: e.mtimeMs };
  }

  private childrenOf(dir: string): string[] {
    const prefix = dir === '/' ? '/' : `${dir}/`;
    return [...this.entries.keys()].filter((p) => p !== '/' && p.startsWith(prefix) && !p.slice(prefix.length).includes('/'));
  }

  private requireParent(real: string, shown: string, operation: string): void {
    const parent = this.entries.get(posix.dirname(real));
    if (!parent) throw new HostError(operation, shown, 'ENOENT');
    if (parent.type !== 'directory') throw new HostError(operation, shown, 'ENOTDIR');
  }

  /** The path with every symlink resolved (the last one only when `follow`), or undefined when a parent is missing. */
  private lookup(path: string, follow: boolean): string | undefined {
    try {
      return this.real(path, follow, 'stat');
    } catch (e) {
      if (e instanceof HostError && (e.code === 'ENOENT' || e.code === 'ENOTDIR')) return undefined;
      throw e;
    }
  }

  private real(path: string, follow: boolean, operation: string, depth = 0): string {
    const parts = posix.resolve('/', path).split('/').filter(Boolean);
    let current = '/';
    for (let i = 0; i < parts.length; i++) {
      const next = posix.join(current, parts[i] ?? '');
      const e = this.entries.get(next);
      const last = i === parts.length - 1;
      if (e?.type === 'symlink' && (!last || follow)) {
        if (depth >= MAX_LINKS) throw new HostError(operation, path, 'ELOOP');
        current = this.real(posix.resolve(current, e.target), true, operation, depth + 1);
      } else if (!last && !e) throw new HostError(operation, path, 'ENOENT');
      else if (!last && e?.type !== 'directory') throw new HostError(operation, path, 'ENOTDIR');
      else current = next;
    }
    return current;
  }
}
