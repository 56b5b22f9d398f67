/** A one-line progress display on a terminal for runs that take a while; silent otherwise. */
import type { GraphNode, NodeResult } from '../core/model.js';
import { isTerminal } from './stdio.js';

export interface Progress {
  onStart?: (node: GraphNode) => void;
  onResult?: (r: NodeResult, done: number, total: number) => void;
  stop(): void;
}

const SHOW_AFTER_MS = 700;
const EVERY_MS = 100;

/** The display on `stream`, by default standard error (which is not made unless it is a terminal). */
export function createProgress(given?: NodeJS.WriteStream): Progress {
  if (process.env.CI || (given ? !given.isTTY : !isTerminal(2))) return { stop() {} };
  const stream = given ?? process.stderr;
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
