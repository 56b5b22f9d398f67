/** Salt's `nested` outputter, which the highstate outputter uses for a state's changes. */
import { PyFloat, pyStr } from './pyvalue.js';

function isMapping(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof PyFloat);
}

function line(indent: number, msg: string, prefix = '', suffix = ''): string {
  return `${' '.repeat(indent)}${prefix}${msg}${suffix}`;
}

import { PLAIN_DICTS } from './plain-dicts.js';

function display(value: unknown, indent: number, prefix: string, out: string[], ordered = false): void {
  if (typeof value === 'string') {
    // Python's splitlines: an empty string prints nothing.
    const lines = value.split(/\r\n|\r|\n/);
    if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    lines.forEach((l, i) => out.push(line(indent, l, i === 0 ? prefix : ' '.repeat(prefix.length))));
  } else if (Array.isArray(value)) {
    for (const item of value) {
      if (Array.isArray(item) || isMapping(item)) {
        out.push(line(indent, '|_'));
        display(item, indent + 2, isMapping(item) ? '' : '- ', out, ordered);
      } else display(item, indent, '- ', out, ordered);
    }
  } else if (isMapping(value)) {
    if (indent) out.push(line(indent, '----------'));
    // Salt keeps the order of its ordered dicts (high data, the top) and sorts plain dicts.
    for (const key of ordered && !PLAIN_DICTS.has(value) ? Object.keys(value) : Object.keys(value).sort()) {
      out.push(line(indent, key, prefix, ':'));
      display(value[key], indent + 4, '', out, ordered);
    }
  } else out.push(line(indent, pyStr(value), prefix));
}

export function nested(value: unknown, indent: number, ordered = false): string {
  const out: string[] = [];
  display(value, indent, '', out, ordered);
  return out.join('\n');
}
