/**
 * The "simulation" run mode: an apply whose effects are never made. Reads go to the wrapped host until a
 * path is changed in this run; changes land in an in-memory overlay that later reads see; commands are
 * recorded, not run. The real machine is only ever read.
 */
import { posix } from 'node:path';
import { HostError } from './errors.js';
import type { ExecOptions, ExecResult, Host, HostFacts, StatInfo, SyncExecOptions, TcpProbe, WriteOptions } from './types.js';

interface Meta {
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
  readonly mtimeMs: number;
}
/** A changed path. A file without `data` kept its content (only mode or owner changed). A removed path is `null`. */
type Overlay =
  | (Meta & { readonly type: 'file'; readonly data: Buffer | undefined; readonly source?: string; readonly size: number })
  | (Meta & { readonly type: 'directory'; readonly opaque: boolean })
  | (Meta & { readonly type: 'symlink'; readonly target: string });

/** Where a path lives: changed in this run, gone, or untouched on the wrapped host. */
type View = { readonly at: 'overlay'; readonly entry: Overlay } | { readonly at: 'missing' } | { readonly at: 'inner'; readonly path: string };

export interface SimulatedAction {
  readonly op: 'write' | 'mkdir' | 'chmod' | 'chown' | 'symlink' | 'remove' | 'rename' | 'exec';
  readonly path?: string;
  readonly detail?: string;
}

const MAX_LINKS = 40;

export class SimulatedHost implements Host {
  readonly name: string;
  readonly simulated = true;
  /** Everything the run would have done, in order. */
  readonly actions: SimulatedAction[] = [];
  private readonly overlay = new Map<string, Overlay | null>();

  constructor(
    private readonly inner: Host,
    private readonly owner: { readonly uid: number; readonly gid: number } = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 },
  ) {
    this.name = `simulated(${inner.name})`;
  }

  open(): Promise<void> {
    return this.inner.open();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** Facts are reads: they come from the wrapped machine. */
  facts(): Promise<HostFacts> {
    return this.inner.facts();
  }

  /** A probe only looks, so it is made for real, as read-only commands are. */
  probeTcp(host: string, port: number, timeoutMs: number): Promise<TcpProbe> {
    return this.inner.probeTcp(host, port, timeoutMs);
  }

  async rename(from: string, to: string): Promise<void> {
    const src = posix.resolve('/', from);
    const dst = posix.resolve('/', to);
    const e = await this.copyOnWrite(src);
    if (!e) throw new HostError('rename', from, 'ENOENT');
    await this.requireParent(dst, to, 'rename');
    const old = await this.lstat(dst);
    if (old?.type === 'directory' && e.type !== 'directory') throw new HostError('rename', from, 'EISDIR');
    if (old && old.type !== 'directory' && e.type === 'directory') throw new HostError('rename', from, 'ENOTDIR');
    if (src === dst) return;
    if (e.type === 'directory') {
      // A directory's content is only known for one made in this run; an existing one cannot move in the overlay.
      if (!e.opaque) throw new HostError('rename', from, 'EXDEV', 'a simulation cannot move an existing directory');
      for (const [p, child] of [...this.overlay]) {
        if (!p.startsWith(`${src}/`)) continue;
        this.overlay.set(dst + p.slice(src.length), child);
        this.overlay.delete(p);
      }
    }
    this.overlay.set(dst, e);
    this.overlay.set(src, null);
    this.actions.push({ op: 'rename', path: src, detail: dst });
  }

  async lstat(path: string): Promise<StatInfo | null> {
    const view = this.view(posix.resolve('/', path));
    if (view.at === 'missing') return null;
    if (view.at === 'inner') return this.inner.lstat(view.path);
    const e = view.entry;
    const size = e.type === 'file' ? e.size : e.type === 'symlink' ? Buffer.byteLength(e.target) : 4096;
    return { type: e.type, mode: e.mode, uid: e.uid, gid: e.gid, size, mtimeMs: e.mtimeMs };
  }

  async stat(path: string): Promise<StatInfo | null> {
    const real = await this.follow(path);
    return real === undefined ? null : this.lstat(real);
  }

  async readFile(path: string): Promise<Buffer> {
    const real = await this.follow(path);
    const view = real === undefined ? ({ at: 'missing' } as const) : this.view(real);
    if (view.at === 'missing') throw new HostError('read', path, 'ENOENT');
    if (view.at === 'inner') return this.inner.readFile(view.path);
    if (view.entry.type === 'directory') throw new HostError('read', path, 'EISDIR');
    if (view.entry.type !== 'file') throw new HostError('read', path, 'EINVAL');
    return view.entry.data ? Buffer.from(view.entry.data) : this.inner.readFile(view.entry.source ?? real ?? path);
  }

  async readText(path: string): Promise<string> {
    return (await this.readFile(path)).toString('utf8');
  }

  async readlink(path: string): Promise<string> {
    const view = this.view(posix.resolve('/', path));
    if (view.at === 'missing') throw new HostError('read link', path, 'ENOENT');
    if (view.at === 'inner') return this.inner.readlink(view.path);
    if (view.entry.type !== 'symlink') throw new HostError('read link', path, 'EINVAL');
    return view.entry.target;
  }

  async readdir(path: string): Promise<string[]> {
    const real = await this.follow(path);
    const st = real === undefined ? null : await this.lstat(real);
    if (real === undefined || !st) throw new HostError('list', path, 'ENOENT');
    if (st.type !== 'directory') throw new HostError('list', path, 'ENOTDIR');
    const view = this.view(real);
    const names = new Set(view.at === 'inner' || (view.at === 'overlay' && view.entry.type === 'directory' && !view.entry.opaque) ? await this.inner.readdir(real) : []);
    for (const [p, e] of this.overlay) {
      if (p === '/' || posix.dirname(p) !== real) continue;
      if (e === null) names.delete(posix.basename(p));
      else names.add(posix.basename(p));
    }
    return [...names].sort();
  }

  async writeFileAtomic(path: string, data: string | Uint8Array, options: WriteOptions = {}): Promise<void> {
    const real = posix.resolve('/', path);
    await this.requireParent(real, path, 'write');
    const old = await this.stat(real);
    if (old?.type === 'directory') throw new HostError('write', path, 'EISDIR');
    const keep = old?.type === 'file' ? old : undefined;
    const buf = Buffer.from(data);
    this.overlay.set(real, {
      type: 'file',
      data: buf,
      size: buf.length,
      mode: (options.mode ?? keep?.mode ?? 0o644) & 0o7777,
      uid: options.uid ?? keep?.uid ?? this.owner.uid,
      gid: options.gid ?? keep?.gid ?? this.owner.gid,
      mtimeMs: Date.now(),
    });
    this.actions.push({ op: 'write', path: real, detail: `${buf.length} bytes` });
  }

  async mkdir(path: string, options: { readonly recursive?: boolean; readonly mode?: number } = {}): Promise<void> {
    const real = posix.resolve('/', path);
    const existing = (await this.stat(real)) ?? (await this.lstat(real));
    if (existing) {
      if (options.recursive && existing.type === 'directory') return;
      throw new HostError('create directory', path, 'EEXIST');
    }
    if (options.recursive && !(await this.stat(posix.dirname(real)))) await this.mkdir(posix.dirname(real), { recursive: true });
    await this.requireParent(real, path, 'create directory');
    this.overlay.set(real, { type: 'directory', opaque: true, mode: (options.mode ?? 0o755) & 0o7777, ...this.owner, mtimeMs: Date.now() });
    this.actions.push({ op: 'mkdir', path: real });
  }

  async chmod(path: string, mode: number): Promise<void> {
    const real = await this.follow(path);
    const e = real === undefined ? undefined : await this.copyOnWrite(real);
    if (real === undefined || !e) throw new HostError('change mode of', path, 'ENOENT');
    this.overlay.set(real, { ...e, mode: mode & 0o7777 });
    this.actions.push({ op: 'chmod', path: real, detail: (mode & 0o7777).toString(8).padStart(4, '0') });
  }

  async chown(path: string, uid: number, gid: number): Promise<void> {
    const real = posix.resolve('/', path);
    const e = await this.copyOnWrite(real);
    if (!e) throw new HostError('change owner of', path, 'ENOENT');
    this.overlay.set(real, { ...e, uid: uid === -1 ? e.uid : uid, gid: gid === -1 ? e.gid : gid });
    this.actions.push({ op: 'chown', path: real, detail: `${uid}:${gid}` });
  }

  async symlink(target: string, path: string): Promise<void> {
    const real = posix.resolve('/', path);
    await this.requireParent(real, path, 'create symlink');
    const old = await this.lstat(real);
    if (old?.type === 'directory') {
      const empty = (await this.readdir(real)).length === 0;
      throw new HostError('create symlink', path, empty ? 'EISDIR' : 'ENOTEMPTY');
    }
    this.overlay.set(real, { type: 'symlink', target, mode: 0o777, ...this.owner, mtimeMs: Date.now() });
    this.actions.push({ op: 'symlink', path: real, detail: target });
  }

  async remove(path: string, options: { readonly recursive?: boolean } = {}): Promise<void> {
    const real = posix.resolve('/', path);
    const st = await this.lstat(real);
    if (!st) return;
    if (st.type === 'directory') {
      if (real === '/') throw new HostError('remove', path, 'EBUSY');
      if (!options.recursive && (await this.readdir(real)).length > 0) throw new HostError('remove', path, 'ENOTEMPTY');
      for (const p of [...this.overlay.keys()]) if (p.startsWith(`${real}/`)) this.overlay.delete(p);
    }
    this.overlay.set(real, null);
    this.actions.push({ op: 'remove', path: real });
  }

  /** Only compilers call this, to read the machine while they evaluate (Salt runs them in test mode too). */
  execSync(command: string | readonly string[], options: SyncExecOptions = {}): ExecResult {
    if (!this.inner.execSync) throw new Error(`${this.inner.name} cannot run commands synchronously`);
    return this.inner.execSync(command, options);
  }

  async exec(command: string | readonly string[], options: ExecOptions = {}): Promise<ExecResult> {
    // A command marked read-only (a guard, a package query) only looks, so it runs for real.
    if ((options as { readonly readOnly?: boolean }).readOnly === true) return this.inner.exec(command, options);
    this.actions.push({ op: 'exec', detail: typeof command === 'string' ? command : JSON.stringify(command) });
    return { code: 0, signal: null, stdout: '', stderr: '', timedOut: false };
  }

  /** The commands the run would have executed. */
  get execLog(): string[] {
    return this.actions.filter((a) => a.op === 'exec').map((a) => a.detail ?? '');
  }

  // ---- internals ----

  private view(path: string, depth = 0): View {
    const own = this.overlay.get(path);
    if (own !== undefined) return own === null ? { at: 'missing' } : { at: 'overlay', entry: own };
    for (let dir = posix.dirname(path); ; dir = posix.dirname(dir)) {
      const e = this.overlay.get(dir);
      if (e === null || e?.type === 'file') return { at: 'missing' };
      if (e?.type === 'directory' && e.opaque) return { at: 'missing' };
      if (e?.type === 'symlink') {
        if (depth >= MAX_LINKS) throw new HostError('stat', path, 'ELOOP');
        return this.view(posix.join(posix.resolve(posix.dirname(dir), e.target), path.slice(dir.length)), depth + 1);
      }
      if (dir === '/') return { at: 'inner', path };
    }
  }

  /** The path with its final symlinks resolved; undefined when it dangles. */
  private async follow(path: string): Promise<string | undefined> {
    let current = posix.resolve('/', path);
    for (let i = 0; i <= MAX_LINKS; i++) {
      const st = await this.lstat(current);
      if (!st) return undefined;
      if (st.type !== 'symlink') return current;
      current = posix.resolve(posix.dirname(current), await this.readlink(current));
    }
    throw new HostError('stat', path, 'ELOOP');
  }

  private async requireParent(real: string, shown: string, operation: string): Promise<void> {
    const parent = await this.stat(posix.dirname(real));
    if (!parent) throw new HostError(operation, shown, 'ENOENT');
    if (parent.type !== 'directory') throw new HostError(operation, shown, 'ENOTDIR');
  }

  /** The overlay entry for a path, made from the wrapped host's metadata when it is not changed yet. */
  private async copyOnWrite(real: string): Promise<Overlay | undefined> {
    const view = this.view(real);
    if (view.at === 'missing') return undefined;
    if (view.at === 'overlay') return view.entry;
    const st = await this.inner.lstat(view.path);
    if (!st) return undefined;
    const meta = { mode: st.mode, uid: st.uid, gid: st.gid, mtimeMs: st.mtimeMs };
    if (st.type === 'directory') return { type: 'directory', opaque: false, ...meta };
    if (st.type === 'symlink') return { type: 'symlink', target: await this.inner.readlink(view.path), ...meta };
    return { type: 'file', data: undefined, source: view.path, size: st.size, ...meta };
  }
}
