import { renameSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The unique part of a temporary file's name in the store (written, then renamed over its target): this
 * process, a count within it, and a random part for stores shared between machines. Not a secret, so no
 * cryptographic randomness is needed. (The run lock has its own token, 16 hex digits, which its leftover
 * sweep recognises.)
 */
let count = 0;

export function uniquePart(): string {
  count += 1;
  return `${process.pid.toString(36)}${count.toString(36)}${Math.floor(Math.random() * 2 ** 32).toString(36)}`;
}

/**
 * Writes `dir`/`name` whole or not at all: `put` writes a temporary file beside it (`.NAME.UNIQUE.tmp`),
 * which is then renamed over it; on an error the temporary file is removed and the error thrown.
 */
export function replaceFile(dir: string, name: string, put: (temp: string) => void): void {
  const temp = join(dir, `.${name}.${uniquePart()}.tmp`);
  try {
    put(temp);
    renameSync(temp, join(dir, name));
  } catch (e) {
    try {
      unlinkSync(temp);
    } catch {
      // Never created.
    }
    throw e;
  }
}
