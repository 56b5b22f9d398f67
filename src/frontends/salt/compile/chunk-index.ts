/**
 * The low chunks a requisite target names, found without reading every chunk: Salt matches a target
 * against each chunk's ID and name (or its SLS) with fnmatch, which for a target without `*`, `?` or `[`
 * is plain equality, so chunks are indexed by those texts once. A glob target is matched against every
 * chunk, once per distinct target. Results keep the chunks' order, as Salt's scan of the list does.
 */
import { fnmatch } from '../../../lang/python/fnmatch.js';

interface Indexed {
  readonly state: unknown;
  readonly name: unknown;
  readonly __id__: unknown;
  readonly __sls__: unknown;
}

const GLOB = /[*?[]/;

function add<C>(map: Map<string, C[]>, key: string, c: C): void {
  const list = map.get(key);
  if (list) list.push(c);
  else map.set(key, [c]);
}

export class ChunkIndex<C extends Indexed> {
  private readonly byName = new Map<string, C[]>();
  private readonly byId = new Map<string, C[]>();
  private readonly bySls = new Map<string, C[]>();
  private readonly position = new Map<C, number>();
  private readonly globs = new Map<string, readonly C[]>();
  /** Chunks matched one by one against a glob target (tests check the work stays bounded). */
  scanned = 0;

  /** `str` turns a chunk's field into the text fnmatch sees, as the caller's own matching does. */
  constructor(
    private readonly chunks: readonly C[],
    private readonly str: (v: unknown) => string,
  ) {
    chunks.forEach((c, i) => {
      this.position.set(c, i);
      add(this.byName, str(c.name), c);
      add(this.byId, str(c.__id__), c);
      add(this.bySls, str(c.__sls__), c);
    });
  }

  /** Whether target `key: value` (key `sls`, `id` or a state module) names chunk `c`. */
  matches(key: string, value: string, c: C): boolean {
    if (key === 'sls') return fnmatch(this.str(c.__sls__), value);
    if (!(fnmatch(this.str(c.name), value) || fnmatch(this.str(c.__id__), value))) return false;
    return key === 'id' || c.state === key;
  }

  /** Every chunk that target `key: value` names, in the chunks' order. Not to be changed by the caller. */
  find(key: string, value: string): readonly C[] {
    if (GLOB.test(value)) {
      const cacheKey = `${key}\0${value}`;
      let found = this.globs.get(cacheKey);
      if (!found) {
        this.scanned += this.chunks.length;
        found = this.chunks.filter((c) => this.matches(key, value, c));
        this.globs.set(cacheKey, found);
      }
      return found;
    }
    if (key === 'sls') return this.bySls.get(value) ?? [];
    const named = this.byName.get(value) ?? [];
    const ids = this.byId.get(value) ?? [];
    const out: C[] = [];
    // Merge the two lists (each in the chunks' order), a chunk found by both once.
    let i = 0;
    let j = 0;
    while (i < named.length || j < ids.length) {
      const a = named[i];
      const b = ids[j];
      const pa = a === undefined ? Infinity : (this.position.get(a) as number);
      const pb = b === undefined ? Infinity : (this.position.get(b) as number);
      const c = (pa <= pb ? a : b) as C;
      if (pa <= pb) i++;
      if (pb <= pa) j++;
      if (key === 'id' || c.state === key) out.push(c);
    }
    return out;
  }
}
