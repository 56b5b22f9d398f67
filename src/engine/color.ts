/**
 * Whether human output is coloured: never with NO_COLOR, always with FORCE_COLOR, else only when standard
 * output is a terminal. Decided here rather than by the colour library, which also colours whenever a CI
 * variable is set — a log captured by CI or a pipe must stay plain text. The library is loaded only for
 * coloured output: loading it reads `process.stdout`, which makes the stream (stdio.ts).
 */
import { createRequire } from 'node:module';
import { isTerminal } from './stdio.js';

/** The colours cairn's output uses. */
export type Palette = Readonly<Record<'bold' | 'cyan' | 'dim' | 'green' | 'magenta' | 'red' | 'yellow', (text: string) => string>>;

export function useColor(): boolean {
  if (process.env.NO_COLOR) return false;
  if (process.env.FORCE_COLOR && process.env.FORCE_COLOR !== '0') return true;
  return isTerminal(1);
}

const plain: Palette = { bold: String, cyan: String, dim: String, green: String, magenta: String, red: String, yellow: String };
let coloured: Palette | undefined;

/** The colour functions for this run: real escapes when useColor(), identity otherwise. */
export function colors(): Palette {
  if (!useColor()) return plain;
  coloured ??= (createRequire(import.meta.url)('picocolors') as typeof import('picocolors')).createColors(true);
  return coloured;
}
