/**
 * How Zapusk steps act on the machine: through the shared resource kinds (command, file, absent) run
 * one at a time on a host, so a step gets the same atomic writes and the same result records as every
 * other front end. Small state marks (once flags, guard flags) are written through the host directly.
 * Everything the run changes on the machine goes through here (commands too), so that the listing of a
 * state dir's [file] marks is kept in step with it.
 */
import type { ApplyOutcome, CheckOutcome, GraphNode } from '../../core/model.js';
import { HostError } from '../../host/errors.js';
import type { ExecOptions, ExecResult, Host, ImmediateReads, ResourceContext } from '../../host/types.js';
import type { FlagCache } from './flag-cache.js';
import { applyStep, checkStep, checkStepNow, StepFailure, stepNode } from '../../resources/drive.js';
import { MarkListing } from './marks.js';

export interface ActOutcome extends ApplyOutcome {
  /** True when the resource was already as wanted. */
  readonly inSync: boolean;
}

function inSync(check: CheckOutcome): ActOutcome {
  return check.outputs ? { ok: true, inSync: true, comment: check.comment ?? '', outputs: check.outputs } : { ok: true, inSync: true, comment: check.comment ?? '' };
}

function isAbsent(e: unknown): boolean {
  return e instanceof HostError && (e.code === 'ENOENT' || e.code === 'ENOTDIR');
}

/** A read answered at once, or undefined when there is no such file. */
function textIfExists(read: () => string): string | undefined {
  try {
    return read();
  } catch (e) {
    if (isAbsent(e)) return undefined;
    throw e;
  }
}

export class Machine {
  private counter = 0;
  private readonly ctx: ResourceContext;
  private readonly marks: MarkListing;

  /** `flags`: what [file] flags held when last read, proven still true by their stamps (see flag-cache). */
  constructor(
    readonly host: Host,
    private readonly flags?: FlagCache,
  ) {
    this.ctx = { host, baseDir: '/' };
    this.marks = new MarkListing((dir) => host.readdir(dir));
  }

  private node(type: string, params: Record<string, unknown>): GraphNode {
    this.counter += 1;
    return stepNode(type, `zapusk-${type}-${this.counter}`, params);
  }

  /** Checks, then applies when out of sync; what the machine refuses becomes a failed outcome (a bug in cairn is not caught). */
  async act(type: string, params: Record<string, unknown>): Promise<ActOutcome> {
    const node = this.node(type, params);
    let check: CheckOutcome;
    try {
      check = await checkStep(this.ctx, node);
      if (check.inSync) return inSync(check);
    } catch (e) {
      if (!StepFailure.is(e)) throw e;
      return { ok: false, inSync: false, comment: e.message };
    }
    try {
      const applied = await applyStep(this.ctx, node, check);
      // A file is written (or copied) at its path; `absent` removes a file there, or a whole tree.
      if (applied.ok && type === 'file') this.marks.touched(String(params.path), true);
      else if (applied.ok && type === 'absent' && check.state === 'file') this.marks.touched(String(params.path), false);
      else this.marks.forget();
      return { ...applied, inSync: false };
    } catch (e) {
      this.marks.forget();
      if (!StepFailure.is(e)) throw e;
      return { ok: false, inSync: false, comment: e.message };
    }
  }

  /**
   * What `act` would give for a resource found in its state at once (no promise; the step uses up its
   * node's number as `act` would), or undefined when that cannot be told at once: `act` then decides.
   */
  actNow(type: string, params: Record<string, unknown>): ActOutcome | undefined {
    const check = checkStepNow(this.ctx, stepNode(type, `zapusk-${type}-${this.counter + 1}`, params));
    if (check === undefined) return undefined;
    this.counter += 1;
    return inSync(check);
  }

  /** What a resource would change, reading only (a dry run). */
  async check(type: string, params: Record<string, unknown>): Promise<CheckOutcome> {
    return checkStep(this.ctx, this.node(type, params));
  }

  async exists(path: string): Promise<boolean> {
    const now = this.host.immediate;
    return (now ? now.lstat(path) : await this.host.lstat(path)) !== null;
  }

  /** Whether a [file] mark (`created-file-…`, `file-backup-…`) is there: from the state dir's listing. */
  async markExists(path: string): Promise<boolean> {
    let known = this.marks.has(path);
    if (known === undefined) {
      await this.marks.take(path);
      known = this.marks.has(path);
    }
    return known ?? (await this.exists(path));
  }

  /** markExists answered at once from the listing for the mark `name` in `dir`, or undefined when the listing cannot tell. */
  markNow(dir: string, name: string): boolean | undefined {
    return this.marks.hasIn(dir, name);
  }

  /**
   * readMarkIfExists answered at once (the listing tells and the host reads at once), without a promise;
   * null when it cannot be answered at once.
   */
  readMarkNow(dir: string, name: string, expect?: number): string | undefined | null {
    const now = this.host.immediate;
    const known = now ? this.marks.hasIn(dir, name) : undefined;
    if (known === undefined || !now) return null;
    return known ? this.readFlagNow(now, `${dir}/${name}`, expect) : undefined;
  }

  /**
   * A mark's text read at once: a flag whose stamp is the one it was last read with is not read again
   * (its stamp is taken before the read, so a change during or after the read gives it another).
   */
  private readFlagNow(now: ImmediateReads, path: string, expect?: number): string | undefined {
    const flags = this.flags;
    if (flags === undefined || now.changeStamp === undefined) return textIfExists(() => now.readText(path, expect));
    const began = Date.now();
    const stamp = now.changeStamp(path);
    if (stamp === undefined) {
      flags.forget(path);
      return textIfExists(() => now.readText(path, expect));
    }
    const kept = flags.textIf(path, stamp);
    if (kept !== undefined) return kept;
    const text = textIfExists(() => now.readText(path, expect));
    if (text === undefined) flags.forget(path);
    else flags.remember(path, stamp, text, began);
    return text;
  }

  /**
   * The text of the [file] mark `name` in `dir`, or undefined when there is none; read only when the
   * listing has it. `expect`: the size in bytes the mark most likely has (a host may read it in one call then).
   */
  async readMarkIfExists(dir: string, name: string, expect?: number): Promise<string | undefined> {
    let known = this.marks.hasIn(dir, name);
    const path = `${dir}/${name}`;
    if (known === undefined) {
      await this.marks.take(path);
      known = this.marks.has(path);
    }
    if (known === false) return undefined;
    // Read at once where the host answers at once, with no further promise to settle.
    const now = this.host.immediate;
    return now ? this.readFlagNow(now, path, expect) : await this.readTextIfExists(path);
  }

  async isDirectory(path: string): Promise<boolean> {
    return (await this.host.stat(path))?.type === 'directory';
  }

  async readText(path: string): Promise<string> {
    return (await this.host.readFile(path)).toString('utf8');
  }

  /** The text of a file, or undefined when there is none: one read where exists-then-read takes two calls. */
  async readTextIfExists(path: string): Promise<string | undefined> {
    // Where the host answers at once (this machine), the text is decoded as it is read.
    const now = this.host.immediate;
    if (now) return textIfExists(() => now.readText(path));
    try {
      return await this.readText(path);
    } catch (e) {
      if (isAbsent(e)) return undefined;
      throw e;
    }
  }

  /** State files (params, flags, marks) may hold request params: owner-only. */
  async writeMark(path: string, content: string): Promise<void> {
    try {
      await this.host.writeFileAtomic(path, content, { mode: 0o600 });
    } catch (e) {
      this.marks.forget();
      throw e;
    }
    this.marks.touched(path, true);
  }

  /** A script a step runs (mode 0755, made exact whatever the umask). */
  async writeScript(path: string, content: string): Promise<void> {
    try {
      await this.host.writeFileAtomic(path, content, { mode: 0o755 });
      await this.host.chmod(path, 0o755);
    } catch (e) {
      this.marks.forget();
      throw e;
    }
    this.marks.touched(path, true);
  }

  /**
   * writeMark, unless the file already holds exactly `content` as an owner-only regular file: a run that
   * changes nothing then reads its state files instead of rewriting (and syncing) each one.
   */
  async writeMarkIfChanged(path: string, content: string): Promise<void> {
    const st = await this.host.lstat(path);
    if (st?.type === 'file' && st.mode === 0o600 && st.size === Buffer.byteLength(content) && (await this.readText(path)) === content) return;
    await this.writeMark(path, content);
  }

  async mkdirp(path: string): Promise<void> {
    try {
      await this.host.mkdir(path, { recursive: true });
    } finally {
      this.marks.madeDirs(path);
    }
  }

  async remove(path: string, recursive = false): Promise<void> {
    try {
      await this.host.remove(path, { recursive });
    } catch (e) {
      this.marks.forget();
      throw e;
    }
    if (recursive) this.marks.forget();
    else this.marks.touched(path, false);
  }

  /** Runs a command (a step's, a `{`…`}` part's): it may change any file. */
  async exec(command: string | readonly string[], options: ExecOptions = {}): Promise<ExecResult> {
    try {
      return await this.host.exec(command, options);
    } finally {
      this.marks.forget();
    }
  }

  async list(dir: string): Promise<string[]> {
    return (await this.isDirectory(dir)) ? this.host.readdir(dir) : [];
  }

  /** Moves a tree (the host has no rename across directories of its own). */
  async move(from: string, to: string): Promise<void> {
    const r = await this.exec(['mv', '--', from, to]);
    if (r.code !== 0) throw new Error(`cannot move ${from} to ${to}: ${r.stderr.trim()}`);
  }
}
