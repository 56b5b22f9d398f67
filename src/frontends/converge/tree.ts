/**
 * The nodes inside a module, a switch or a case, found by id: a node's id is its container's id, `/`,
 * and its own key, so the nodes inside container C are those whose id starts with `C/`. Each node is
 * filed once under every such prefix of its id, so that "every node inside" costs the size of the
 * answer, not a scan of the whole program per container.
 */
import type { RawNode } from './types.js';

const NONE: readonly RawNode[] = Object.freeze([]);

export class NodeTree {
  private readonly inside = new Map<string, RawNode[]>();
  private readonly directly = new Map<string, RawNode[]>();

  constructor(nodes: readonly RawNode[]) {
    for (const n of nodes) {
      const id = n.id;
      const last = id.lastIndexOf('/');
      if (last > 0) file(this.directly, id.slice(0, last), n);
      for (let k = last; k > 0; k = id.lastIndexOf('/', k - 1)) file(this.inside, id.slice(0, k), n);
    }
  }

  /** Every node whose id starts with `id/`, in the program's order. */
  within(id: string): readonly RawNode[] {
    return this.inside.get(id) ?? NONE;
  }

  /** The nodes whose id is `id/` and a key with no further `/`, in the program's order. */
  directlyIn(id: string): readonly RawNode[] {
    return this.directly.get(id) ?? NONE;
  }
}

function file(map: Map<string, RawNode[]>, key: string, n: RawNode): void {
  const list = map.get(key);
  if (list) list.push(n);
  else map.set(key, [n]);
}
