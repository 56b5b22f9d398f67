/**
 * How Zapusk steps act on the machine: through the shared resource kinds (command, file, absent) run
 * one at a time on a host, so a step gets the same atomic writes and the same result records as every
 * other front end. Small state marks (once flags, guard flags) are written through the host directly.
 */
import type { ApplyOutcome, CheckOutcome, GraphNode } from '../../core/model.js';
import type { Host, ResourceContext } from '../../host/types.js';
import { kinds } from '../../resources/index.js';

export interface ActOutcome extends ApplyOutcome {
  /** True when the resource was already as wanted. */
  readonly inSync: boolean;
}

export class Machine {
  private counter = 0;
  private readonly ctx: ResourceContext;

  constructor(readonly host: Host) {
    this.ctx = { host, baseDir: '/' };
  }

  /** Checks, then applies when out of sync; a kind that throws becomes a failed outcome. */
  async act(type: string, params: Record<string, unknown>): Promise<ActOutcome> {
    const kind = kinds.get(type);
    if (!kind) throw new Error(`no resource kind ${type}`);
    this.counter += 1;
    const node: GraphNode = { id: `zapusk-${type}-${this.counter}`, type, name: String(params.path ?? params.cmd ?? type), params };
    const problems = kind.validate(params, node);
    if (problems.length > 0) return { ok: false, inSync: false, comment: problems.map((d) => d.message).join('; ') };
    try {
      const check = await kind.check(this.ctx, params, node);
      if (check.inSync) return { ok: true, inSync: true, comment: check.comment ?? '', ...(check.outputs ? { outputs: check.outputs } : {}) };
      return { ...(await kind.apply(this.ctx, params, check, node)), inSync: false };
    } catch (e) {
      return { ok: false, inSync: false, comment: e instanceof Error ? e.message : String(e) };
    }
  }

  /** What a resource would change, reading only (a dry run). */
  async check(type: string, params: Record<string, unknown>): Promise<CheckOutcome> {
    const kind = kinds.get(type);
    if (!kind) throw new Error(`no resource kind ${type}`);
    this.counter += 1;
    const node: GraphNode = { id: `zapusk-${type}-${this.counter}`, type, name: String(params.path ?? type), params };
    const problems = kind.validate(params, node);
    if (problems.length > 0) throw new Error(problems.map((d) => d.message).join('; '));
    return kind.check(this.ctx, params, node);
  }

  async exists(path: string): Promise<boolean> {
    return (await this.host.lstat(path)) !== null;
  }

  async isDirectory(path: string): Promise<boolean> {
    return (await this.host.stat(path))?.type === 'directory';
  }

  async readText(path: string): Promise<string> {
    return (await this.host.readFile(path)).toString('utf8');
  }

  /** State files (params, flags, marks) may hold request params: owner-only. */
  async writeMark(path: string, content: string): Promise<void> {
    await this.host.writeFileAtomic(path, content, { mode: 0o600 });
  }

  async mkdirp(path: string): Promise<void> {
    await this.host.mkdir(path, { recursive: true });
  }

  async remove(path: string, recursive = false): Promise<void> {
    await this.host.remove(path, { recursive });
  }

  async list(dir: string): Promise<string[]> {
    return (await this.isDirectory(dir)) ? this.host.readdir(dir) : [];
  }

  /** Moves a tree (the host has no rename across directories of its own). */
  async move(from: string, to: string): Promise<void> {
    const r = await this.host.exec(['mv', '--', from, to]);
    if (r.code !== 0) throw new Error(`cannot move ${from} to ${to}: ${r.stderr.trim()}`);
  }
}
