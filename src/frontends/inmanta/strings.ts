/** Parse-time string rules: `{{path}}` interpolation in plain strings, Python-style fields in f-strings. */
import type { Span } from '../../core/diag.js';
import type { Expr, StrPart } from './ast.js';
import { InmantaError } from './errors.js';

// Only variable/attribute paths interpolate; `{{ns::x}}` or `{{f(x)}}` stay literal text, as in the real compiler.
const INTERPOLATION = /\{\{\s*([.A-Za-z0-9_-]+)\s*\}\}/g;

export function interpolated(text: string, span: Span): Expr {
  if (!text.includes('{{')) return { kind: 'lit', value: text, span };
  const parts: StrPart[] = [];
  let last = 0;
  for (const m of text.matchAll(INTERPOLATION)) {
    if (m.index > last) parts.push(text.slice(last, m.index));
    parts.push({ path: (m[1] ?? '').split('.'), spec: [] });
    last = m.index + m[0].length;
  }
  if (parts.length === 0) return { kind: 'lit', value: text, span };
  if (last < text.length) parts.push(text.slice(last));
  return { kind: 'fmt', parts, span };
}

/** Splits an f-string the way Python's string.Formatter.parse does; every field must be a name path. */
export function formatted(text: string, span: Span): Expr {
  return { kind: 'fmt', parts: parseFields(text, span, 0), span };
}

function parseFields(text: string, span: Span, depth: number): StrPart[] {
  const parts: StrPart[] = [];
  let lit = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '{' && text[i + 1] === '{' && depth === 0) {
      lit += '{';
      i += 2;
      continue;
    }
    if (c === '}' && text[i + 1] === '}' && depth === 0) {
      lit += '}';
      i += 2;
      continue;
    }
    if (c === '}') throw new InmantaError('ParserException', "Single '}' encountered in format string", span);
    if (c !== '{') {
      lit += c;
      i++;
      continue;
    }
    // Find the matching close brace, allowing nested fields inside the spec.
    let j = i + 1;
    let level = 1;
    while (j < text.length && level > 0) {
      if (text[j] === '{') level++;
      else if (text[j] === '}') level--;
      if (level > 0) j++;
    }
    if (level > 0) throw new InmantaError('ParserException', "expected '}' before end of string", span);
    const field = text.slice(i + 1, j);
    if (lit) parts.push(lit);
    lit = '';
    parts.push(parseField(field, span, depth));
    i = j + 1;
  }
  if (lit) parts.push(lit);
  return parts;
}

function parseField(field: string, span: Span, depth: number): StrPart {
  let name = field;
  let spec = '';
  let conv: string | undefined;
  const colon = field.indexOf(':');
  if (colon >= 0) {
    name = field.slice(0, colon);
    spec = field.slice(colon + 1);
  }
  const bang = name.indexOf('!');
  if (bang >= 0) {
    conv = name.slice(bang + 1);
    name = name.slice(0, bang);
  }
  const trimmed = name.trim();
  if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/.test(trimmed)) {
    throw new InmantaError('NotFoundException', `variable ${trimmed} not found`, span);
  }
  const specParts = spec ? parseFields(spec, span, depth + 1) : [];
  return conv ? { path: trimmed.split('.'), spec: specParts, conv } : { path: trimmed.split('.'), spec: specParts };
}
