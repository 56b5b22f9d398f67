/**
 * Where a refused state argument is written: the line of `- arg:` below the state's ID in its SLS file
 * (found in the source text; the ID's own line when the argument came from elsewhere, e.g. a Jinja loop).
 */
import { readFileSync } from 'node:fs';
import { type Diagnostic, error, type Span } from '../../../core/diag.js';
import type { Chunk } from '../compile/index.js';
import type { HighData } from '../types.js';

function argSpan(idSpan: Span, arg: string): Span {
  let lines: string[];
  try {
    lines = readFileSync(idSpan.file, 'utf8').split('\n');
  } catch {
    return idSpan;
  }
  const indentOf = (l: string) => /^\s*/.exec(l)?.[0].length ?? 0;
  const idIndent = indentOf(lines[idSpan.line - 1] ?? '');
  const re = new RegExp(`^(\\s*-\\s*|\\s*)(${arg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')})\\s*:`);
  for (let i = idSpan.line; i < lines.length; i++) {
    const l = lines[i] as string;
    if (l.trim() && !l.trim().startsWith('#') && indentOf(l) <= idIndent) break;
    const m = re.exec(l);
    if (m) return { file: idSpan.file, line: i + 1, col: (m[1] as string).length + 1 };
  }
  return idSpan;
}

/** A positioned warning for an argument Salt refuses: the state fails with Salt's comment, the others run. */
export function argWarning(high: Pick<HighData, 'spans'>, chunk: Chunk, arg: string, message: string): Diagnostic {
  const id = String(chunk.__id__);
  const span = high.spans[id];
  const text = `${chunk.state}.${chunk.fun} '${id}' in SLS '${String(chunk.__sls__)}': argument ${arg}: ${message.split('\n')[0] as string}; the state fails, the others run`;
  return { ...error('S203', text, { span: span ? argSpan(span, arg) : undefined, nodeId: id }), severity: 'warning' };
}
