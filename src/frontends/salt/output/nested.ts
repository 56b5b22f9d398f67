/** Salt's `nested` outputter, which the highstate outputter uses for a state's changes. */
import { PLAIN_DICTS } from './plain-dicts.js';
import { PyFloat, pyStr } from './pyvalue.js';

function isMapping(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof PyFloat);
}

/** Salt's colour codes (salt.utils.color.get_colors: every code starts with a reset). */
export const COLORS = {
  GREEN: '\x1b[0;32m',
  CYAN: '\x1b[0;36m',
  RED: '\x1b[0;31m',
  LIGHT_RED: '\x1b[0;1;31m',
  LIGHT_YELLOW: '\x1b[0;1;33m',
  ENDC: '\x1b[0;0m',
} as const;
export type Colors = Record<keyof typeof COLORS, string>;
export const NO_COLORS: Colors = { GREEN: '', CYAN: '', RED: '', LIGHT_RED: '', LIGHT_YELLOW: '', ENDC: '' };

/** NestDisplay.ustring: indent, colour, prefix, message, end of colour, suffix. */
function ustring(c: Colors, indent: number, color: string, msg: string, prefix = '', suffix = ''): string {
  return `${' '.repeat(indent)}${color}${prefix}${msg}${c.ENDC}${suffix}`;
}

function display(value: unknown, indent: number, prefix: string, out: string[], ordered = false, c: Colors = NO_COLORS, failed = false): void {
  // After a failed call (salt-call's retcode) Salt draws the structure in red.
  const frame = (normal: string) => (failed ? c.RED : normal);
  const line = (ind: number, msg: string, pre = '', suffix = '', color = c.GREEN) => ustring(c, ind, color, msg, pre, suffix);
  if (typeof value === 'string') {
    // Python's splitlines: an empty string prints nothing.
    const lines = value.split(/\r\n|\r|\n/);
    if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    // Salt strips escape sequences from the text it prints.
    lines.forEach((l, i) => out.push(line(indent, c === NO_COLORS ? l : l.replace(/\x1b\[[0-9;]*m/g, ''), i === 0 ? prefix : ' '.repeat(prefix.length))));
  } else if (Array.isArray(value)) {
    for (const item of value) {
      if (Array.isArray(item) || isMapping(item)) {
        out.push(line(indent, '|_', '', '', frame(c.GREEN)));
        display(item, indent + 2, isMapping(item) ? '' : '- ', out, ordered, c, failed);
      } else display(item, indent, '- ', out, ordered, c, failed);
    }
  } else if (isMapping(value)) {
    if (indent) out.push(line(indent, '----------', '', '', frame(c.CYAN)));
    // Salt keeps the order of its ordered dicts (high data, the top) and sorts plain dicts.
    for (const key of ordered && !PLAIN_DICTS.has(value) ? Object.keys(value) : Object.keys(value).sort()) {
      out.push(line(indent, key, prefix, ':', frame(c.CYAN)));
      display(value[key], indent + 4, '', out, ordered, c, failed);
    }
  } else out.push(line(indent, pyStr(value), prefix, '', c.LIGHT_YELLOW));
}

export function nested(value: unknown, indent: number, ordered = false, colors: Colors = NO_COLORS, failed = false): string {
  const out: string[] = [];
  display(value, indent, '', out, ordered, colors, failed);
  return out.join('\n');
}
