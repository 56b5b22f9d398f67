/**
 * Elastic tabstops as Go's text/tabwriter lays them out (minwidth 1, tabwidth 1, padding 1, spaces): a
 * tab ends a cell, and a column of cells on consecutive lines is as wide as its widest cell plus one.
 * Converge prints node blocks through it, so its indentation and change alignment come from here.
 */
type Cell = { readonly text: string; readonly width: number };

const PAIR = /[\uD800-\uDBFF][\uDC00-\uDFFF]/;

/** The characters (code points, as Go counts runes) of a cell: its length unless it holds a surrogate pair. */
function widthOf(t: string): number {
  return PAIR.test(t) ? [...t].length : t.length;
}

/** A tab that ends a non-empty cell: without one, every column is empty and each tab is just padding. */
const FILLED_CELL = /[^\t\n]\t/;

export function tabwrite(text: string, padding = 1, minwidth = 1): string {
  if (!FILLED_CELL.test(text)) return text.replaceAll('\t', ' '.repeat(Math.max(minwidth, padding)));
  const lines: Cell[][] = text.split('\n').map((line) => line.split('\t').map((t) => ({ text: t, width: widthOf(t) })));
  let out = '';
  const widths: number[] = [];

  const writeLines = (line0: number, line1: number): void => {
    for (let i = line0; i < line1; i++) {
      const line = lines[i] as Cell[];
      line.forEach((c, j) => {
        out += c.text;
        if (j < line.length - 1 && j < widths.length) out += ' '.repeat(Math.max(0, (widths[j] as number) - c.width));
      });
      if (i + 1 < lines.length) out += '\n';
    }
  };

  const format = (line0: number, line1: number): void => {
    const column = widths.length;
    let start = line0;
    for (let row = line0; row < line1; row++) {
      if (column >= (lines[row] as Cell[]).length - 1) continue;
      writeLines(start, row);
      start = row;
      let width = minwidth;
      for (; row < line1; row++) {
        const line = lines[row] as Cell[];
        if (column >= line.length - 1) break;
        width = Math.max(width, (line[column] as Cell).width + padding);
      }
      widths.push(width);
      format(start, row);
      widths.pop();
      start = row;
      row--;
    }
    writeLines(start, line1);
  };
  format(0, lines.length);
  return out;
}
