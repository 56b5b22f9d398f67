/** Modules and assets of the raft (`--raft DIR`): `NAME.otter` files, parsed once per run. */
import { posix } from 'node:path';
import type { Host } from '../../host/types.js';
import type { ModuleDecl } from './ast.js';
import { parseScript } from './parser.js';

export class RaftLoader {
  private readonly cache = new Map<string, ModuleDecl | null>();

  constructor(
    readonly dir: string,
    private readonly host: Host,
  ) {}

  /**
   * The module `name` from `DIR/name.otter`: the module of that name declared in the file, or else the
   * whole file as a module without parameters. A parse error in the file is a positioned diagnostic.
   */
  async find(name: string): Promise<ModuleDecl | undefined> {
    const key = name.toLowerCase();
    if (!this.cache.has(key)) this.cache.set(key, await this.load(name));
    return this.cache.get(key) ?? undefined;
  }

  private async load(name: string): Promise<ModuleDecl | null> {
    const path = posix.join(this.dir, `${name}.otter`);
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
