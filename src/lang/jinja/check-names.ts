/**
 * Jinja's compile-time check of filter and test names: an unknown name is a TemplateAssertionError when the
 * template compiles, wherever it sits, except inside an `if` statement or an `x if y else z` expression
 * (Jinja's "soft" frames), where the check waits until the filter or test runs.
 */
import { TemplateSyntaxError } from './errors.js';

interface Known {
  readonly filters: ReadonlyMap<string, unknown>;
  readonly tests: ReadonlyMap<string, unknown>;
}

function walk(node: unknown, soft: boolean, known: Known, file: string): void {
  if (Array.isArray(node)) {
    for (const x of node) walk(x, soft, known, file);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const n = node as { kind?: unknown; name?: unknown; at?: unknown };
  if (!soft && typeof n.at === 'number' && typeof n.name === 'string') {
    if (n.kind === 'filter' && !known.filters.has(n.name)) throw new TemplateSyntaxError(`No filter named '${n.name}'.`, file, n.at);
    if (n.kind === 'test' && !known.tests.has(n.name)) throw new TemplateSyntaxError(`No test named '${n.name}'.`, file, n.at);
  }
  const inner = soft || n.kind === 'if' || n.kind === 'condexpr';
  for (const [k, v] of Object.entries(node)) if (k !== 'kind' && typeof v === 'object' && v !== null) walk(v, inner, known, file);
}

/** Throws TemplateSyntaxError for the first unknown filter or test outside a soft frame. */
export function checkNames(body: unknown, known: Known, file: string): void {
  walk(body, false, known, file);
}
