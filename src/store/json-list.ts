/**
 * Writes a JSON document that ends in a long list piece by piece: `prefix`, the list, `suffix`. A run
 * of 10,000 results or a drift index of 10,000 rows is several megabytes of JSON; written whole, it is
 * one string and one buffer of that size at the moment the run's memory is at its peak.
 */
import { closeSync, openSync, writeSync } from 'node:fs';

/** Items stringified at a time: large enough that one JSON.stringify call does most of the work. */
const PIECE = 1000;

export function writeJsonList(path: string, prefix: string, items: readonly unknown[], suffix: string, stringify: (items: readonly unknown[]) => string = JSON.stringify): void {
  const fd = openSync(path, 'w', 0o600);
  try {
    writeSync(fd, `${prefix}[`);
    for (let i = 0; i < items.length; i += PIECE) {
      // The piece's own brackets are left out by a slice of the text (V8 makes no copy of it), written as a
      // string: Node encodes it outside the JavaScript heap, where a Buffer of it would be one more
      // allocation of the piece's size (some 3 ms of 20 for a 10,000-result record).
      const piece = stringify(items.slice(i, i + PIECE));
      if (i > 0) writeSync(fd, ',');
      writeSync(fd, piece.slice(1, -1));
    }
    writeSync(fd, `]${suffix}`);
  } finally {
    closeSync(fd);
  }
}
