/**
 * Salt loads YAML with libyaml (CSafeLoader), whose error texts differ from the YAML library cairn parses
 * with. This maps the library's errors onto libyaml's for the mistakes people make most (a key indented
 * wrongly, an unclosed flow collection, an unclosed quote); the marks print as PyYAML prints C marks
 * (`in "<unicode string>", line L, column C`, no snippet). Undefined means: no mapping known.
 */

function mark(line: number, col: number): string {
  return `  in "<unicode string>", line ${line}, column ${col}`;
}

function lineColAt(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, col: offset - (before.lastIndexOf('\n') + 1) + 1 };
}

/** Where libyaml's reader is at the end of the stream. */
function endMark(text: string): { line: number; col: number } {
  return lineColAt(text, text.length);
}

const KEY_LINE = /^( *)(?:[^\s#\-[{][^:#]*|"[^"]*"|'[^']*'):(?:\s|$)/;

/** The block mapping a wrongly indented key falls into: the innermost one indented less, from its first key. */
function enclosingMapping(lines: string[], lineIdx: number, indent: number): { line: number; col: number } | undefined {
  let found = -1;
  let mapIndent = -1;
  for (let i = lineIdx - 1; i >= 0; i--) {
    const m = KEY_LINE.exec(lines[i] as string);
    if (!m) continue;
    const ind = (m[1] as string).length;
    if (found < 0) {
      if (ind < indent) {
        found = i;
        mapIndent = ind;
      }
      continue;
    }
    if (ind === mapIndent) found = i;
    else if (ind < mapIndent) break;
  }
  return found < 0 ? undefined : { line: found + 1, col: mapIndent + 1 };
}

/** The first key of the block mapping holding the key on line `lineIdx` (0-based), as libyaml marks it. */
function blockMappingStart(lines: string[], lineIdx: number): { line: number; col: number } {
  const prefix = (l: string): { col: number; dash: boolean } => {
    const m = /^( *)((?:- +)*)/.exec(l) as RegExpExecArray;
    return { col: m[0].length, dash: (m[2] as string).length > 0 };
  };
  const here = prefix(lines[lineIdx] ?? '');
  let start = lineIdx;
  if (!here.dash) {
    for (let i = lineIdx - 1; i >= 0; i--) {
      const l = lines[i] as string;
      if (l.trim() === '' || l.trimStart().startsWith('#')) continue;
      const p = prefix(l);
      if (p.col < here.col) break;
      if (p.col === here.col) {
        start = i;
        if (p.dash) break;
      }
    }
  }
  return { line: start + 1, col: here.col + 1 };
}

export function libyamlMessage(text: string, code: string, message: string, offset: number): string | undefined {
  if (code === 'MISSING_CHAR' && /closing .*quote/i.test(message)) return 'found unexpected end of stream';
  if (code === 'UNEXPECTED_TOKEN' && /^Unexpected [\w-]*scalar at node end/.test(message)) {
    // Text after a quoted scalar in a block mapping: libyaml expected the next key there.
    const lines = text.split('\n');
    const at = lineColAt(text, offset);
    const ctx = blockMappingStart(lines, at.line - 1);
    return `while parsing a block mapping\n${mark(ctx.line, ctx.col)}\ndid not find expected key\n${mark(at.line, at.col)}`;
  }
  if (code === 'BLOCK_AS_IMPLICIT_KEY') {
    // A sequence entry indented between a mapping's keys and its own entries: libyaml is still in the mapping.
    const lines = text.split('\n');
    const { line, col } = lineColAt(text, offset);
    const content = lines[line - 1] ?? '';
    const indent = content.length - content.trimStart().length;
    if (col > indent + 1 || !content.trimStart().startsWith('- ')) return undefined;
    const ctx = enclosingMapping(lines, line - 1, indent);
    if (!ctx) return undefined;
    return `while parsing a block mapping\n${mark(ctx.line, ctx.col)}\ndid not find expected key\n${mark(line, indent + 1)}`;
  }
  if (code !== 'BAD_INDENT') return undefined;
  const flow = /^Flow (sequence|map) in block collection/.exec(message);
  if (flow) {
    const open = flow[1] === 'sequence' ? '[' : '{';
    const close = flow[1] === 'sequence' ? ']' : '}';
    const at = text.lastIndexOf(open, offset);
    if (at < 0) return undefined;
    const end = endMark(text);
    if (text.slice(at + 1).trim() === '') return `while parsing a flow node\ndid not find expected node content\n${mark(end.line, end.col)}`;
    const start = lineColAt(text, at);
    return `while parsing a flow ${flow[1] === 'sequence' ? 'sequence' : 'mapping'}\n${mark(start.line, start.col)}\ndid not find expected ',' or '${close}'\n${mark(end.line, end.col)}`;
  }
  if (/^All mapping items must start at the same column/.test(message)) {
    const lines = text.split('\n');
    const { line } = lineColAt(text, offset);
    const content = lines[line - 1] ?? '';
    const indent = content.length - content.trimStart().length;
    const ctx = enclosingMapping(lines, line - 1, indent);
    if (!ctx) return undefined;
    return `while parsing a block mapping\n${mark(ctx.line, ctx.col)}\ndid not find expected key\n${mark(line, indent + 1)}`;
  }
  return undefined;
}
