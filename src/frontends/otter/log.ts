/** The execution log: messages at a level, nested in scopes named by block descriptions. */
import type { LogLevel } from './ast.js';

export type LogLine =
  | { readonly kind: 'message'; readonly level: LogLevel; readonly text: string; readonly depth: number }
  | { readonly kind: 'scope'; readonly title: string; readonly depth: number };

export class ExecutionLog {
  readonly lines: LogLine[] = [];
  depth = 0;

  write(level: LogLevel, text: string): void {
    this.lines.push({ kind: 'message', level, text, depth: this.depth });
  }

  /** Opens a scope titled by the first line of a description; returns the function that closes it. */
  open(title: string): () => void {
    this.lines.push({ kind: 'scope', title: title.split('\n')[0] ?? title, depth: this.depth });
    this.depth++;
    return () => {
      this.depth--;
    };
  }

  /** Appends a child execution's lines at the current depth (an awaited asynchronous block). */
  adopt(child: ExecutionLog): void {
    for (const l of child.lines) this.lines.push({ ...l, depth: l.depth + this.depth });
  }
}

/** `LEVEL: message` lines, without scopes (the JSON log). */
export function plainLines(lines: readonly LogLine[]): string[] {
  return lines.flatMap((l) => (l.kind === 'message' ? [`${l.level}: ${l.text}`] : []));
}

/** Indented text: scope titles as headers, messages under them. */
export function indentedLines(lines: readonly LogLine[], minLevel: LogLevel = 'DEBUG'): string[] {
  const min = ORDER[minLevel];
  const out: string[] = [];
  for (const l of lines) {
    const pad = l.depth === 0 ? '' : '  '.repeat(l.depth);
    if (l.kind === 'scope') out.push(`${pad}${l.title}`);
    else if (ORDER[l.level] < min) continue;
    else if (!l.text.includes('\n')) out.push(`${pad}${l.level}: ${l.text}`);
    else l.text.split('\n').forEach((t, i) => out.push(i === 0 ? `${pad}${l.level}: ${t}` : `${pad}  ${t}`));
  }
  return out;
}

const ORDER: Readonly<Record<LogLevel, number>> = { DEBUG: 0, INFO: 1, WARN: 2, ERROR: 3 };
