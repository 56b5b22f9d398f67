/**
 * File operations over one SFTP session, with the local host's rules and error codes. SFTP (v3) reports
 * only a few statuses, so where the status is a bare "failure" a follow-up lstat tells which errno it was
 * (only on the error path). Requests that do not depend on each other are sent together: a write is
 * three round trips (open ∥ stat; data ∥ mode ∥ owner ∥ fsync; close ∥ rename), a read two.
 */
import { posix } from 'node:path';
import type { Attributes, SFTPWrapper } from 'ssh2';
import { HostError } from './errors.js';
import { SshLeftovers, sshTempName } from './ssh-leftovers.js';
import type { FileType, StatInfo, WriteOptions } from './types.js';

const CHUNK = 32 * 1024;
const S_IFMT = 0o170000;

interface Hooks {
  track<T>(p: Promise<T>): Promise<T>;
  failure(e: unknown): Error;
}

type SftpError = Error & { code?: number };

function typeOf(mode: number): FileType {
  switch (mode & S_IFMT) {
    case 0o100000:
      return 'file';
    case 0o040000:
      return 'directory';
    case 0o120000:
      return 'symlink';
    default:
      return 'other';
  }
}

function toStat(a: Attributes): StatInfo {
  return { type: typeOf(a.mode), mode: a.mode & 0o7777, uid: a.uid, gid: a.gid, size: a.size, mtimeMs: a.mtime * 1000 };
}

/** SFTP status → errno; FAILURE (4) has no single meaning and is resolved by the caller. */
function errnoOf(e: SftpError): string {
  switch (e.code) {
    case 2:
      return 'ENOENT';
    case 3:
      return 'EACCES';
    case 5:
      return 'EINVAL';
    case 8:
      return 'ENOSYS';
    default:
      return 'EIO';
  }
}

const tempNameFor = sshTempName;

export class SftpFiles {
  /** Temp files of interrupted writes, removed at the next write of the same path (ssh-leftovers.ts). */
  private readonly leftovers: SshLeftovers;

  constructor(
    private readonly sftp: SFTPWrapper,
    private readonly hooks: Hooks,
  ) {
    this.leftovers = new SshLeftovers({
      readdir: (dir) => this.readdir(dir),
      lstat: (path) => this.lstat(path),
      unlink: (path) => this.req((cb) => this.sftp.unlink(path, cb)),
    });
  }

  /** One SFTP request as a promise, counted. */
  private req<T>(start: (cb: (err: SftpError | undefined | null, value?: T) => void) => void): Promise<T> {
    return this.hooks.track(
      new Promise<T>((resolve, reject) => {
        try {
          start((err, value) => (err ? reject(err) : resolve(value as T)));
        } catch (e) {
          reject(e);
        }
      }),
    );
  }

  /** A HostError for an SFTP failure, or the connection's own error when the session is gone. */
  private fail(e: unknown, operation: string, path: string, code?: string): Error {
    const err = e as SftpError;
    if (typeof err?.code !== 'number') return this.hooks.failure(e);
    return new HostError(operation, path, code ?? errnoOf(err));
  }

  private async statWith(path: string, follow: boolean): Promise<StatInfo | null> {
    try {
      const a = await this.req<Attributes>((cb) => (follow ? this.sftp.stat(path, cb) : this.sftp.lstat(path, cb)));
      return toStat(a);
    } catch (e) {
      if ((e as SftpError).code === 2) return null;
      throw this.fail(e, 'stat', path);
    }
  }

  lstat(path: string): Promise<StatInfo | null> {
    return this.statWith(path, false);
  }

  stat(path: string): Promise<StatInfo | null> {
    return this.statWith(path, true);
  }

  async readFile(path: string): Promise<Buffer> {
    let handle: Buffer;
    try {
      handle = await this.req<Buffer>((cb) => this.sftp.open(path, 'r', cb));
    } catch (e) {
      throw this.fail(e, 'read', path);
    }
    try {
      const first = Buffer.alloc(CHUNK);
      const [attrs, got] = await Promise.all([this.req<Attributes>((cb) => this.sftp.fstat(handle, cb)), this.readAt(handle, first, 0)]);
      if (typeOf(attrs.mode) === 'directory') throw new HostError('read', path, 'EISDIR');
      if (got < CHUNK) return first.subarray(0, got);
      const rest: Promise<Buffer>[] = [];
      for (let at = CHUNK; at < Math.max(attrs.size, CHUNK + 1); at += CHUNK) rest.push(this.readChunk(handle, at));
      const parts = [first, ...(await Promise.all(rest))];
      // The file may have grown since fstat: read on until the end.
      let at = CHUNK * parts.length;
      for (;;) {
        const last = parts[parts.length - 1] as Buffer;
        if (last.length < CHUNK) break;
        parts.push(await this.readChunk(handle, at));
        at += CHUNK;
      }
      return Buffer.concat(parts);
    } catch (e) {
      if (e instanceof HostError) throw e;
      throw this.fail(e, 'read', path, (e as SftpError).code === 4 ? 'EISDIR' : undefined);
    } finally {
      this.closeQuietly(handle);
    }
  }

  private async readChunk(handle: Buffer, at: number): Promise<Buffer> {
    const buf = Buffer.alloc(CHUNK);
    const n = await this.readAt(handle, buf, at);
    return buf.subarray(0, n);
  }

  private async readAt(handle: Buffer, buf: Buffer, position: number): Promise<number> {
    try {
      return await this.req<number>((cb) => this.sftp.read(handle, buf, 0, buf.length, position, (err, n) => cb(err, n)));
    } catch (e) {
      if ((e as SftpError).code === 1) return 0; // EOF
      throw e;
    }
  }

  private closeQuietly(handle: Buffer): void {
    this.req((cb) => this.sftp.close(handle, cb)).catch(() => {});
  }

  async readlink(path: string): Promise<string> {
    try {
      return await this.req<string>((cb) => this.sftp.readlink(path, cb));
    } catch (e) {
      const code = (e as SftpError).code;
      throw this.fail(e, 'read link', path, code === 4 || code === 5 ? 'EINVAL' : undefined);
    }
  }

  async readdir(path: string): Promise<string[]> {
    try {
      const entries = await this.req<Array<{ filename: string }>>((cb) => this.sftp.readdir(path, cb));
      return entries
        .map((e) => e.filename)
        .filter((n) => n !== '.' && n !== '..')
        .sort();
    } catch (e) {
      if ((e as SftpError).code === 4 || (e as SftpError).code === 2) {
        const st = await this.lstat(path).catch(() => null);
        if (st && st.type !== 'directory') throw new HostError('list', path, 'ENOTDIR');
      }
      throw this.fail(e, 'list', path);
    }
  }

  async writeFileAtomic(path: string, data: string | Uint8Array, options: WriteOptions): Promise<void> {
    const bytes = Buffer.from(data);
    const temp = tempNameFor(path);
    // Listed and removed beside the write, in the same round trips; waited for before returning.
    const tidy = this.leftovers.tidy(path);
    const existingP = this.stat(path);
    const handleP = this.req<Buffer>((cb) => this.sftp.open(temp, 'wx', { mode: 0o600 }, cb));
    const [existing, handle] = await Promise.allSettled([existingP, handleP]);
    if (handle.status === 'rejected') {
      if (existing.status === 'fulfilled' && existing.value?.type === 'directory') throw new HostError('write', path, 'EISDIR');
      throw this.fail(handle.reason, 'write', path);
    }
    const h = handle.value;
    let closed = false;
    try {
      if (existing.status === 'rejected') throw existing.reason;
      const old = existing.value;
      if (old?.type === 'directory') throw new HostError('write', path, 'EISDIR');
      const keep = old?.type === 'file' ? old : undefined;
      const mode = options.mode ?? keep?.mode ?? 0o644;
      const wave: Promise<unknown>[] = [];
      for (let at = 0; at < bytes.length; at += CHUNK) {
        const piece = bytes.subarray(at, at + CHUNK);
        wave.push(this.req((cb) => this.sftp.write(h, piece, 0, piece.length, at, cb)));
      }
      // fsetstat, not the open mode: the server's umask must not change the requested bits.
      wave.push(this.req((cb) => this.sftp.fsetstat(h, { mode }, cb)).catch((e: unknown) => Promise.reject(this.fail(e, 'change mode of', path))));
      const owner = await this.ownerFor(h, options, keep);
      if (owner) {
        const set = this.req((cb) => this.sftp.fsetstat(h, { uid: owner.uid, gid: owner.gid }, cb));
        // Keeping the owner of a replaced file is best effort (it needs root); a requested owner is not.
        wave.push(owner.required ? set.catch((e: unknown) => Promise.reject(this.fail(e, 'change owner of', path))) : set.catch(() => undefined));
      }
      wave.push(this.req((cb) => this.sftp.ext_openssh_fsync(h, (err) => cb(err))).catch((e: unknown) => (isUnsupported(e) ? undefined : Promise.reject(e))));
      await settleAll(wave);
      closed = true;
      // The server answers requests in order: the close is done before the rename is looked at.
      await settleAll([this.req((cb) => this.sftp.close(h, cb)), this.req((cb) => this.sftp.ext_openssh_rename(temp, path, cb))]);
    } catch (e) {
      if (!closed) this.closeQuietly(h);
      this.req((cb) => this.sftp.unlink(temp, cb)).catch(() => {});
      await tidy;
      if (e instanceof HostError) throw e;
      throw this.fail(e, 'write', path);
    }
    await tidy;
  }

  /** The owner to give the temp file: the requested one (a missing half filled from the file), else the replaced file's. */
  private async ownerFor(h: Buffer, options: WriteOptions, keep: StatInfo | undefined): Promise<{ uid: number; gid: number; required: boolean } | undefined> {
    const required = options.uid !== undefined || options.gid !== undefined;
    if (!required) return keep ? { uid: keep.uid, gid: keep.gid, required } : undefined;
    const base = keep ?? (options.uid === undefined || options.gid === undefined ? toStat(await this.req<Attributes>((cb) => this.sftp.fstat(h, cb))) : undefined);
    return { uid: options.uid ?? base?.uid ?? 0, gid: options.gid ?? base?.gid ?? 0, required };
  }

  async mkdir(path: string, options: { readonly recursive?: boolean; readonly mode?: number }): Promise<void> {
    if (options.recursive) {
      const st = await this.stat(path);
      if (st?.type === 'directory') return;
      if (!st) {
        const parent = posix.dirname(posix.resolve('/', path));
        if (parent !== path) await this.mkdir(parent, { recursive: true });
      }
    }
    try {
      await this.req((cb) => this.sftp.mkdir(path, cb));
    } catch (e) {
      const st = await this.lstat(path).catch(() => null);
      if (st?.type === 'directory' && options.recursive) return;
      throw this.fail(e, 'create directory', path, st ? 'EEXIST' : undefined);
    }
    // mkdir's mode is filtered by the server's umask; setstat makes the requested mode exact.
    if (options.mode !== undefined) await this.chmod(path, options.mode);
  }

  async chmod(path: string, mode: number): Promise<void> {
    try {
      await this.req((cb) => this.sftp.setstat(path, { mode: mode & 0o7777 }, cb));
    } catch (e) {
      throw this.fail(e, 'change mode of', path);
    }
  }

  /** lchown: the path itself (lsetstat@openssh.com where the server has it); -1 keeps a value. */
  async chown(path: string, uid: number, gid: number): Promise<void> {
    const st = await this.lstat(path);
    if (!st) throw new HostError('change owner of', path, 'ENOENT');
    if (uid === -1 && gid === -1) return;
    const attrs = { uid: uid === -1 ? st.uid : uid, gid: gid === -1 ? st.gid : gid };
    try {
      await this.req((cb) => this.sftp.ext_openssh_lsetstat(path, attrs, cb)).catch((e: unknown) => {
        if (!isUnsupported(e)) throw e;
        return this.req((cb) => this.sftp.setstat(path, attrs, cb));
      });
    } catch (e) {
      throw this.fail(e, 'change owner of', path, (e as SftpError).code === 4 ? 'EPERM' : undefined);
    }
  }

  async symlink(target: string, path: string): Promise<void> {
    const temp = tempNameFor(path);
    try {
      await this.req((cb) => this.sftp.symlink(target, temp, cb));
    } catch (e) {
      throw this.fail(e, 'create symlink', path);
    }
    try {
      await this.req((cb) => this.sftp.ext_openssh_rename(temp, path, cb));
    } catch (e) {
      await this.req((cb) => this.sftp.unlink(temp, cb)).catch(() => {});
      const st = await this.lstat(path).catch(() => null);
      const code = st?.type === 'directory' ? ((await this.readdir(path).catch(() => [])).length > 0 ? 'ENOTEMPTY' : 'EISDIR') : undefined;
      throw this.fail(e, 'create symlink', path, code);
    }
  }

  async remove(path: string, options: { readonly recursive?: boolean }): Promise<void> {
    const st = await this.lstat(path);
    if (!st) return;
    try {
      if (st.type !== 'directory') {
        await this.req((cb) => this.sftp.unlink(path, cb));
        return;
      }
      if (posix.resolve('/', path) === '/') throw new HostError('remove', path, 'EBUSY');
      if (options.recursive) {
        const names = await this.readdir(path);
        await settleAll(names.map((n) => this.remove(posix.join(path, n), { recursive: true })));
      }
      await this.req((cb) => this.sftp.rmdir(path, cb));
    } catch (e) {
      if (e instanceof HostError) throw e;
      if ((e as SftpError).code === 2) return;
      const nonEmpty = st.type === 'directory' && (await this.readdir(path).catch(() => [])).length > 0;
      throw this.fail(e, 'remove', path, nonEmpty ? 'ENOTEMPTY' : undefined);
    }
  }

  async rename(from: string, to: string): Promise<void> {
    try {
      await this.req((cb) => this.sftp.ext_openssh_rename(from, to, cb));
    } catch (e) {
      let code: string | undefined;
      if ((e as SftpError).code === 4) {
        const [a, b] = await Promise.all([this.lstat(from).catch(() => null), this.lstat(to).catch(() => null)]);
        if (!a) code = 'ENOENT';
        else if (b?.type === 'directory' && a.type !== 'directory') code = 'EISDIR';
        else if (b?.type === 'directory') code = 'ENOTEMPTY';
        else if (b && a.type === 'directory') code = 'ENOTDIR';
      }
      throw this.fail(e, 'rename', from, code);
    }
  }
}

function isUnsupported(e: unknown): boolean {
  return e instanceof Error && /does not support|not supported/i.test(e.message);
}

/** Waits for every promise (so none is left running), then rethrows the first failure. */
async function settleAll(ps: readonly Promise<unknown>[]): Promise<void> {
  const results = await Promise.allSettled(ps);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}
