/**
 * libyaml does not check the indentation of the continuation lines of a quoted scalar: a template that
 * prints a multi-line value into `key: "…"` gives lines starting at column 0, which Salt loads (the line
 * break folds to a space) and the YAML library cairn parses with refuses. This indents such lines just past
 * the column the scalar starts at; leading white space of a continuation line is not part of the value, so the
 * value is unchanged. Block scalars (`|`, `>`) and comments are left alone.
 */

const BLOCK_HEADER = /(?:^|[\s:-])[|>][-+0-9]*\s*(?:#.*)?$/;

/** The text with continuation lines of multi-line quoted scalars indented; the same text when none needed it. */
export function indentQuotedContinuations(text: string): string {
  const lines = text.split('\n');
  let changed = false;
  let quote: '"' | "'" | null = null;
  let quoteIndent = 0;
  let blockParent = -1;
  for (let li = 0; li < lines.length; li++) {
    let line = lines[li] as string;
    const indent = line.length - line.trimStart().length;
    if (quote !== null) {
      if (line.trim() !== '' && indent <= quoteIndent) {
        line = ' '.repeat(quoteIndent + 1) + line.trimStart();
        lines[li] = line;
        changed = true;
      }
    } else if (blockParent >= 0) {
      if (line.trim() === '' || indent > blockParent) continue;
      blockParent = -1;
    }
    let i = quote !== null ? 0 : indent;
    let prev = quote !== null ? '' : 'start';
    while (i < line.length) {
      const c = line[i] as string;
      if (quote === "'") {
        if (c === "'" && line[i + 1] === "'") i += 2;
        else if (c === "'") {
          quote = null;
          prev = 'x';
          i++;
        } else i++;
        continue;
      }
      if (quote === '"') {
        if (c === '\\') i += 2;
        else if (c === '"') {
          quote = null;
          prev = 'x';
          i++;
        } else i++;
        continue;
      }
      if (c === '#' && (i === 0 || /\s/.test(line[i - 1] as string))) break;
      if ((c === '"' || c === "'") && (prev === 'start' || /^[-:?[{,]$/.test(prev))) {
        quote = c;
        quoteIndent = i;
        i++;
        continue;
      }
      if (!/\s/.test(c)) prev = c;
      i++;
    }
    if (quote === null && BLOCK_HEADER.test(line)) blockParent = indent;
  }
  return changed ? lines.join('\n') : text;
}
