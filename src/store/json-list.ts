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
      // The piece's own brackets are left out by writing its bytes between them (no copy of the text).
      const piece = Buffer.from(stringify(items.slice(i, i + PIECE)), 'utf8');
      if (i > 0) writeSync(fd, ',');
      writeSync(fd, piece, 1, piece.length - 2);
    }
    writeSync(fd, `]${suffix}`);
  } finally {
    closeSync(fd);
  }
}
