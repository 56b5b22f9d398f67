/** Appending to the store's line logs (runs.jsonl, drift-seen.jsonl): whole lines, each in one write. */
import { closeSync, fstatSync, openSync, readSync, writeFileSync } from 'node:fs';

/**
 * Appends `text` (one or more lines, each ending in a newline) to `path`, created 0600 when missing. A torn
 * last line (a crash mid-append) must not swallow ours: then it starts on a fresh line. One write(2) with
 * O_APPEND, so the lines land whole, after everything already there.
 */
export function appendLines(path: string, text: string): void {
  const fd = openSync(path, 'a+', 0o600);
  try {
    const size = fstatSync(fd).size;
    let out = text;
    if (size > 0) {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 0x0a) out = `\n${text}`;
    }
    writeFileSync(fd, out);
  } finally {
    closeSync(fd);
  }
}
