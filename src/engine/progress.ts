/** A one-line progress display on a terminal for runs that take a while; silent otherwise. */
import type { GraphNode, NodeResult } from '../core/model.js';

export interface Progress {
  onStart?: (node: GraphNode) => void;
  onResult?: (r: NodeResult, done: number, total: number) => void;
  stop(): void;
}

const SHOW_AFTER_MS = 700;
const EVERY_MS = 100;

export function createProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY || process.env.CI) return { stop() {} };
  const t0 = Date.now();
  let last = 0;
  let shown = false;
  let current = '';
  const columns = stream.columns || 80;
  return {
    onStart(node) {
      current = node.id;
    },
    onResult(_r, done, total) {
      const now = Date.now();
      if (now - t0 < SHOW_AFTER_MS || now - last < EVERY_MS) return;
      last = now;
      shown = true;
      stream.write(`\r\x1b[K${`[${done}/${total}] ${current}`.slice(0, columns - 1)}`);
    },
    stop() {
      if (shown) stream.write('\r\x1b[K');
    },
  };
}
