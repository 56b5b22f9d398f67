/**
 * Which [file] marks (`created-file-<component>`, `file-backup-<component>`) an instance's state dir
 * holds, from one listing of the dir instead of a look at each mark per step. The listing is kept in
 * step with what this run changes: a write or removal through the Machine of a path named like a mark in
 * the listed dir adds or drops that name; one named like a mark anywhere else drops the listing (its
 * folder may be the listed one by another path), and so does anything else that may change files (a
 * command, a tree removed or moved): the next look lists the dir again. Only the presence of names with
 * a mark prefix is answered, and an entry is created or removed under the last part of the path written
 * (writes replace the entry, never write through a link; no folder is made but by `madeDirs`), so a path
 * whose last part has no mark prefix cannot change an answer. One dir is listed at a time, so two
 * listings can never be of one folder by two paths.
 */

function isMarkName(name: string): boolean {
  return name.startsWith('created-file-') || name.startsWith('file-backup-');
}

/** `dir/name` split at its last slash, or undefined for a path with none (or ending in one). */
function split(path: string): { dir: string; name: string } | undefined {
  const at = path.lastIndexOf('/');
  if (at < 0 || at === path.length - 1) return undefined;
  return { dir: path.slice(0, at), name: path.slice(at + 1) };
}

export class MarkListing {
  /** The dir listed (or found unlistable); undefined when none is. */
  private dir: string | undefined;
  /** The names in `dir`; null where it could not be listed (marks are then looked at one by one). */
  private names: Set<string> | null = null;
  /** Entries of the last listing, and marks looked at one by one since then while none was listed. */
  private lastSize = 0;
  private looks = 0;

  constructor(private readonly list: (dir: string) => Promise<string[]>) {}

  /**
   * Whether a mark is there, or undefined when the listing cannot tell (the path is not a mark's, or
   * its dir is not listed: `take` it first, or it cannot be listed): the caller then looks at the path.
   */
  has(path: string): boolean | undefined {
    if (this.names === null) return undefined;
    const at = path.lastIndexOf('/');
    const name = path.slice(at + 1);
    return at < 0 || !isMarkName(name) ? undefined : this.hasIn(path.slice(0, at), name);
  }

  /**
   * `has` for a mark named by its dir and its name (a mark's name, which the caller knows it is), without
   * splitting a path: a [file] step asks for its two marks this way.
   */
  hasIn(dir: string, name: string): boolean | undefined {
    if (this.names === null || dir !== this.dir) return undefined;
    return this.names.has(name);
  }

  /**
   * Lists the dir of a mark's path, unless it is the one listed or found unlistable (or the path is not
   * a mark's). A listing dropped often (a command between each two [file] steps, a sub-program's state
   * dir listed in between) is not taken again at once: only after as many marks were looked at one by one
   * as a quarter of the entries the last listing had, so listings cost no more than the looks they spare
   * and a run stays linear in its steps.
   */
  async take(path: string): Promise<void> {
    const p = split(path);
    if (!p || !isMarkName(p.name) || p.dir === this.dir) return;
    if (this.looks * 4 < this.lastSize) {
      this.looks++;
      return;
    }
    this.dir = p.dir;
    this.looks = 0;
    try {
      this.names = new Set(await this.list(p.dir));
    } catch {
      this.names = null;
    }
    this.lastSize = this.names?.size ?? 0;
  }

  /** A file was written (`present`) or removed at `path`: that one entry. */
  touched(path: string, present: boolean): void {
    if (this.dir === undefined) return;
    const p = split(path);
    if (p && !isMarkName(p.name)) return;
    if (!p || p.dir !== this.dir || this.names === null) return this.forget();
    if (present) this.names.add(p.name);
    else this.names.delete(p.name);
  }

  /** Folders were made along `path`: a new folder is empty, and only one named like a mark can matter. */
  madeDirs(path: string): void {
    if (this.names === null || path.split('/').some(isMarkName)) this.forget();
  }

  /** Anything may have changed: the dir is listed again when next asked. */
  forget(): void {
    this.dir = undefined;
    this.names = null;
  }
}
