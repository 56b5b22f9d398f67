/**
 * Rafts: folders of modules (`NAME.otter`), scripts and templates. The default raft is `--raft DIR` (the
 * script's folder when not given); named rafts come from `--raft NAME=DIR`. Items are found by name only:
 * a name that reaches outside its raft's folder is refused.
 */
import { posix } from 'node:path';
import type { Host } from '../../host/types.js';
import type { ModuleDecl } from './ast.js';
import { parseScript } from './parser.js';

/** Inedo's name for the raft of a plain item name. */
export const DEFAULT_RAFT = 'Default';

export class RaftError extends Error {}

export class RaftLoader {
  private readonly cache = new Map<string, ModuleDecl | null>();
  private readonly named: ReadonlyMap<string, string>;

  constructor(
    readonly dir: string,
    private readonly host: Host,
    named: ReadonlyMap<string, string> = new Map(),
  ) {
    this.named = new Map([...named].map(([k, v]) => [k.toLowerCase(), v]));
  }

  /** The folder of a raft: the default one for no name (or `Default`), else a named one; undefined when unknown. */
  raftDir(raft?: string): string | undefined {
    if (raft === undefined) return this.dir;
    const named = this.named.get(raft.toLowerCase());
    if (named !== undefined) return named;
    return raft.toLowerCase() === DEFAULT_RAFT.toLowerCase() ? this.dir : undefined;
  }

  /**
   * The path of item `name` (or `raft::name`) with the first of `extensions` that exists (the name as
   * written first); undefined when there is none. A raft that does not exist, and a name with a folder part
   * or `..` (a path outside the raft), throw a RaftError.
   */
  async item(name: string, extensions: readonly string[]): Promise<string | undefined> {
    const sep = name.indexOf('::');
    const raft = sep >= 0 ? name.slice(0, sep) : undefined;
    const item = sep >= 0 ? name.slice(sep + 2) : name;
    const dir = this.raftDir(raft);
    if (dir === undefined) throw new RaftError(`Raft ${raft ?? ''} not found.`);
    if (item === '' || /[/\\]/.test(item) || item === '..' || item === '.') throw new RaftError(`"${name}" is not an item of the raft: raft items are named, never paths outside the raft.`);
    for (const candidate of [item, ...extensions.map((e) => `${item}${e}`)]) {
      const path = posix.join(dir, candidate);
      if ((await this.host.stat(path))?.type === 'file') return path;
    }
    return undefined;
  }

  /** The text of an item `item()` found. */
  async read(path: string): Promise<string> {
    return (await this.host.readFile(path)).toString('utf8');
  }

  /**
   * The module `name` from `RAFT/name.otter`: the module of that name declared in the file, or else the
   * whole file as a module without parameters. A parse error in the file is a positioned diagnostic.
   */
  async find(name: string, raft?: string): Promise<ModuleDecl | undefined> {
    const key = `${raft?.toLowerCase() ?? ''}::${name.toLowerCase()}`;
    if (!this.cache.has(key)) this.cache.set(key, await this.load(name, raft));
    return this.cache.get(key) ?? undefined;
  }

  private async load(name: string, raft: string | undefined): Promise<ModuleDecl | null> {
    const dir = this.raftDir(raft);
    if (dir === undefined) return null;
    const path = posix.join(dir, `${name}.otter`);
    let text: string;
    try {
      if ((await this.host.stat(path))?.type !== 'file') return null;
      text = (await this.host.readFile(path)).toString('utf8');
    } catch {
      return null;
    }
    const script = parseScript(path, text);
    const declared = script.body.modules.find((m) => m.name.toLowerCase() === name.toLowerCase());
    if (declared) return declared;
    return { kind: 'module', name, params: [], body: script.body, span: script.body.span };
  }
}
