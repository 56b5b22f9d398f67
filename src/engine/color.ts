/**
 * Whether human output is coloured: never with NO_COLOR, always with FORCE_COLOR, else only when standard
 * output is a terminal. Decided here rather than by the colour library, which also colours whenever a CI
 * variable is set — a log captured by CI or a pipe must stay plain text.
 */
import pc from 'picocolors';

export function useColor(): boolean {
  if (process.env.NO_COLOR) return false;
  if (process.env.FORCE_COLOR && process.env.FORCE_COLOR !== '0') return true;
  return process.stdout.isTTY === true;
}

const palettes = new Map<boolean, ReturnType<typeof pc.createColors>>();

/** The colour functions for this run: real escapes when useColor(), identity otherwise. */
export function colors(): ReturnType<typeof pc.createColors> {
  const on = useColor();
  let palette = palettes.get(on);
  if (!palette) {
    palette = pc.createColors(on);
    palettes.set(on, palette);
  }
  return palette;
}
