/** Everything a resource may do to a machine. Resources never touch `fs` or `child_process` themselves. */

export type FileType = 'file' | 'directory' | 'symlink' | 'other';

export interface StatInfo {
  readonly type: FileType;
  /** Permission bits only (e.g. 0o644). */
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
  readonly size: number;
  readonly mtimeMs: number;
}

export interface WriteOptions {
  /** Permission bits for the new file; when absent a new file gets 0o644 and a replaced file keeps its mode. */
  readonly mode?: number;
  readonly uid?: number;
  readonly gid?: number;
}

export interface ExecOptions {
  /** Extra environment variables, merged over the host's environment. */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  readonly stdin?: string;
  /** Milliseconds; the process is killed (SIGKILL) when it runs longer. */
  readonly timeout?: number;
  /** The command only reads the machine (a guard, a package query): a simulating host still runs it. */
  readonly readOnly?: boolean;
  /**
   * Called with output as the program writes it (a chunk at a time, decoded as UTF-8 without splitting a
   * character), for callers that show long commands live. The result still holds the whole output. A host
   * that does not run programs calls it once per stream with its canned output, if any.
   */
  readonly onOutput?: (stream: 'stdout' | 'stderr', chunk: string) => void;
}

export interface ExecResult {
  /** Exit code; null when killed by a signal. */
  readonly code: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  /** Process id, where the host knows it (Salt reports it in cmd.run changes). */
  readonly pid?: number;
}

/** What a target machine is, read from the machine itself (never from the process running cairn). */
export interface HostFacts {
  /** Kernel name as `uname -s` prints it: `Linux`, `FreeBSD`, `Darwin`. */
  readonly os: string;
  /** Distribution family from os-release (`debian`, `rhel`, `suse`, `arch`, `alpine`), else the lower-case os. */
  readonly osFamily: string;
  /** /etc/os-release as key → value (ID, VERSION_ID, PRETTY_NAME, …); empty where the file is missing. */
  readonly osRelease: Readonly<Record<string, string>>;
  /** Kernel release (`uname -r`). */
  readonly kernel: string;
  /** Machine hardware name (`uname -m`): `x86_64`, `aarch64`. */
  readonly arch: string;
  readonly hostname: string;
  readonly fqdn: string;
  /** The environment a command on the target starts with. */
  readonly env: Readonly<Record<string, string>>;
  /** Addresses of the machine's interfaces, loopback excluded, IPv4 before IPv6. */
  readonly ipAddresses: readonly string[];
  readonly cpuCount: number;
  /** Total memory in bytes. */
  readonly memoryBytes: number;
  /*
   * Read by the same script on every host (optional only so that hand-made facts in tests may leave them out).
   */
  /** Kernel version (`uname -v`). */
  readonly kernelVersion?: string;
  /** The first CPU's model name, from /proc/cpuinfo; empty where unknown. */
  readonly cpuModel?: string;
  /** Who commands run as on the target (after `become`): `id -un`, `id -u`, `id -g`, `id -gn`. */
  readonly user?: { readonly name: string; readonly uid: number; readonly gid: number; readonly group: string };
  /** /etc/machine-id, trimmed; empty where missing. */
  readonly machineId?: string;
  /** /etc/debian_version, trimmed (Debian's point release); empty elsewhere. */
  readonly debianVersion?: string;
  /** IPv4 addresses per interface, loopback included (`ip -o -4 addr`); empty where `ip` is missing. */
  readonly ipv4Interfaces?: Readonly<Record<string, readonly string[]>>;
}

/** Whether a TCP port accepted a connection made from the target machine. */
export type TcpProbe = { readonly ok: true } | { readonly ok: false; readonly code: string; readonly message: string };

export interface Host {
  readonly name: string;
  /** True when changes are recorded, not made (simulation): a resource cannot read back its own changes. */
  readonly simulated?: boolean;
  /** lstat: a symlink reports itself. null when the path does not exist. */
  lstat(path: string): Promise<StatInfo | null>;
  /** stat following symlinks. null when the path (or its target) does not exist. */
  stat(path: string): Promise<StatInfo | null>;
  readFile(path: string): Promise<Buffer>;
  /**
   * The file's bytes decoded as UTF-8, a byte sequence that is not UTF-8 read as U+FFFD (as
   * `readFile(path).toString('utf8')`). Comparing text already in hand costs less this way on some hosts.
   */
  readText(path: string): Promise<string>;
  readlink(path: string): Promise<string>;
  readdir(path: string): Promise<string[]>;
  /** Writes through a temporary file in the same directory and a rename: readers see old or new, never partial. */
  writeFileAtomic(path: string, data: string | Uint8Array, options?: WriteOptions): Promise<void>;
  mkdir(path: string, options?: { readonly recursive?: boolean; readonly mode?: number }): Promise<void>;
  chmod(path: string, mode: number): Promise<void>;
  /** Changes owner and group of the path itself (lchown); -1 keeps a value. */
  chown(path: string, uid: number, gid: number): Promise<void>;
  /** Creates (or atomically replaces) a symlink at `path` pointing to `target`. */
  symlink(target: string, path: string): Promise<void>;
  /** Removes a file, symlink or (with recursive) a directory tree; no error when absent. */
  remove(path: string, options?: { readonly recursive?: boolean }): Promise<void>;
  /** Renames a path atomically (rename(2) / posix-rename), replacing a file at `to`. */
  rename(from: string, to: string): Promise<void>;
  /** Connects from the target machine to host:port and reports whether it was accepted; changes nothing. */
  probeTcp(host: string, port: number, timeoutMs: number): Promise<TcpProbe>;
  /** The target's facts, gathered once per host (later calls return the same object). */
  facts(): Promise<HostFacts>;
  /** Connects (where there is a connection to make); operations also open it on first use. Rejects with why it failed. */
  open(): Promise<void>;
  /** Releases the connection; calling it twice is harmless. */
  close(): Promise<void>;
  /** Runs a program: an argv array runs directly, a string runs through `/bin/sh -c`. Never rejects for a non-zero exit. */
  exec(command: string | readonly string[], options?: ExecOptions): Promise<ExecResult>;
  /**
   * The same, to completion and blocking the whole process, for a compiler that must call out while it
   * evaluates (Salt's render-time execution functions). Not for resources. Hosts that cannot leave it out.
   */
  execSync?(command: string | readonly string[], options?: SyncExecOptions): ExecResult;
  /**
   * Reads answered at once, without a promise, on hosts that have them (this machine's): the engine's
   * fast path for a resource already in its state. Same answers and errors as `lstat` and `readText`.
   */
  readonly immediate?: ImmediateReads;
}

/** `lstat` and `readText`, answered at once. */
export interface ImmediateReads {
  lstat(path: string): StatInfo | null;
  /**
   * `expect`: the size in bytes the caller expects of a regular file (its lstat size, or what it wrote
   * there). A host may then read it with one call of that size and one more byte: a shorter answer is the
   * whole file. The text is the same either way.
   */
  readText(path: string, expect?: number): string;
  /**
   * What identifies the content of the regular file at `path` as it is now, or undefined when there is no
   * regular file there or this host cannot promise the stamp is fresh (a file system whose attributes a
   * client may cache, as NFS's, or a file mounted over from another). Any change to the file's content
   * changes its inode change time (`ctimeMs`, which no call can set), so a stamp equal to one taken before
   * an earlier read, whose `ctimeMs` was well before that read began, says the content is what that read
   * saw. Optional: a host without it offers no stamps.
   */
  changeStamp?(path: string): ChangeStamp | undefined;
}

/** A regular file's device, inode, size, modification and inode change times (see ImmediateReads.changeStamp). */
export interface ChangeStamp {
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
}

/** What a synchronous exec takes: no live output, nothing read-only to tell apart (it always runs). */
export type SyncExecOptions = Pick<ExecOptions, 'env' | 'cwd' | 'stdin' | 'timeout'>;

/** What resources receive from the runtime. */
export interface ResourceContext {
  readonly host: Host;
  /**
   * Where configuration files (`source` paths) are read: the machine running cairn. Absent, they are
   * read through `host` (the same machine when running locally).
   */
  readonly sources?: Pick<Host, 'readFile' | 'stat'>;
  /** Directory that relative `source` paths are resolved against (the graph file's folder). */
  readonly baseDir: string;
}
