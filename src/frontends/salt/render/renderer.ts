/**
 * The renderer pipeline of one file, chosen by its first line as Salt does (`#!jinja|yaml` when absent):
 * jinja (text → text) then yaml or json (text → data), or py (python3 runs the file). Renderers cairn does not have (pydsl, mako,
 * gpg, ...) are refused by name instead of being skipped silently.
 */

import { type Diagnostic, error, LineMap } from '../../../core/diag.js';
import { SALT_RENDERER, SALT_YAML } from './codes.js';
import { type JinjaSession, TemplateError } from './jinja-session.js';
import { renderPy } from './py-renderer.js';
import { mapRenderedLine, RenderedLines } from './source-map.js';
import { loadSaltYaml, type TopKey } from './yaml-load.js';

export interface Rendered {
  /** The data; absent when `entries` holds it. */
  readonly data?: unknown;
  /** Top-level keys with their offsets in the rendered text. */
  readonly topKeys: readonly TopKey[];
  /**
   * The top-level keys with their 1-based line and column in the source file, worked out when asked for
   * (a diagnostic's position): a run without one never goes over the text for them.
   */
  keys(): ReadonlyArray<TopKey & { line: number; col: number }>;
  /**
   * A mapping's entries in document order, one per key of `keys`, in place of `data` (only when asked
   * for with `asEntries`, and only when the YAML reader's fast path read it).
   */
  readonly entries?: Map<string, unknown>;
}

/** `unknownRenderer`: Salt finds no such renderer, logs it and goes on as if the file rendered to nothing. */
export type RenderOutcome = { ok: true; value: Rendered } | { ok: false; saltMessage: string; diagnostic: Diagnostic; unknownRenderer?: true };

const KNOWN = new Set(['jinja', 'yaml', 'json']);
/** The other renderers Salt 3006 ships. */
const SALT_HAS = new Set(['aws_kms', 'cheetah', 'dson', 'genshi', 'gpg', 'hjson', 'json5', 'mako', 'msgpack', 'nacl', 'pass', 'py', 'pydsl', 'pyobjects', 'stateconf', 'toml', 'wempy', 'yamlex']);

/** The renderer names of a file: its shebang split on '|', or the default pipe. */
export function pipelineOf(text: string): string[] {
  // A first line `#!/...` (an interpreter path) is not a renderer line: Salt uses the default pipe.
  if (!text.startsWith('#!') || text.startsWith('#!/')) return ['jinja', 'yaml'];
  const first = text.slice(2, text.indexOf('\n') < 0 ? undefined : text.indexOf('\n')).trim();
  const names = first.split('|').map((r) => r.trim().split(/\s+/)[0] ?? '').filter((r) => r !== '');
  // The old combined names (yaml_jinja, json_mako, ...) are a template renderer then a data renderer.
  if (names.length === 1) {
    const m = /^(yaml|json)_(jinja|mako|wempy)$/.exec(names[0] as string);
    if (m) return [m[2] as string, m[1] as string];
  }
  return names;
}

function lineColOf(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, col: offset - start + 1 };
}

/** `asEntries`: a YAML mapping may come as its entries (Rendered.entries) instead of its data. */
export function renderFile(text: string, file: string, saltenv: string, names: Record<string, unknown>, jinja: JinjaSession, what: string, asEntries = false): RenderOutcome {
  const pipe = pipelineOf(text);
  if (pipe.length === 1 && pipe[0] === 'py') {
    const r = renderPy(text, file, saltenv, names, jinja.data);
    if (r.ok) return { ok: true, value: { data: r.data ?? {}, topKeys: [], keys: () => [] } };
    return { ok: false, saltMessage: r.message, diagnostic: error(SALT_RENDERER, `#!py: ${r.message.split('\n').filter((l) => l.trim()).pop() ?? r.message}`, { span: { file, line: 1, col: 1 } }) };
  }
  const refused = pipe.find((r) => !KNOWN.has(r));
  if (refused !== undefined) {
    const msg = `The renderer '${refused}' of ${what} (${pipe.join('|')}) is not supported; use jinja|yaml, yaml or json`;
    // A renderer Salt has but cairn does not is refused; a name Salt does not know renders nothing in Salt.
    return { ok: false, saltMessage: msg, diagnostic: error(SALT_RENDERER, msg, { span: { file, line: 1, col: 1 } }), ...(SALT_HAS.has(refused) ? {} : { unknownRenderer: true as const }) };
  }
  const jinjaAt = pipe.indexOf('jinja');
  const dataAt = pipe.findIndex((r) => r === 'yaml' || r === 'json');
  if (pipe.length > 2 || (jinjaAt >= 0 && dataAt >= 0 && jinjaAt > dataAt) || pipe.filter((r) => r !== 'jinja').length > 1) {
    const msg = `The renderer pipe '${pipe.join('|')}' of ${what} cannot work: Jinja renders text, so it must come before yaml or json`;
    return { ok: false, saltMessage: msg, diagnostic: error(SALT_RENDERER, msg, { span: { file, line: 1, col: 1 } }) };
  }
  let rendered = text;
  if (jinjaAt >= 0 && !/\{[{%#]/.test(text)) {
    // No Jinja delimiter: Jinja would only normalise line ends (its final newline Salt puts back).
    rendered = text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
  } else if (jinjaAt >= 0) {
    try {
      rendered = jinja.render(text, file, saltenv, names);
    } catch (e) {
      if (e instanceof TemplateError) return { ok: false, saltMessage: e.failure.saltMessage, diagnostic: e.failure.diagnostic };
      throw e;
    }
  }
  if (dataAt < 0) return { ok: true, value: { data: rendered, topKeys: [], keys: () => [] } };
  if (pipe[dataAt] === 'json') {
    try {
      // Salt's json renderer drops a shebang line itself (YAML reads it as a comment).
      const json = rendered.startsWith('#!') ? rendered.slice(rendered.indexOf('\n') + 1) : rendered;
      return { ok: true, value: { data: JSON.parse(json), topKeys: [], keys: () => [] } };
    } catch (e) {
      const msg = (e as Error).message;
      return { ok: false, saltMessage: msg, diagnostic: error(SALT_YAML, msg, { span: { file, line: 1, col: 1 } }) };
    }
  }
  const loaded = loadSaltYaml(rendered, asEntries);
  if (!loaded.ok) {
    const at = lineColOf(rendered, loaded.failure.offset);
    const line = rendered === text ? at.line : mapRenderedLine(text, rendered, at.line);
    const suffix = rendered === text ? '' : ` (line ${at.line} of the Jinja output: ${JSON.stringify(rendered.split('\n')[at.line - 1] ?? '')})`;
    return {
      ok: false,
      saltMessage: loaded.failure.saltMessage,
      diagnostic: error(SALT_YAML, `${loaded.failure.message}${suffix}`, { span: { file, line, col: rendered === text ? at.col : 1 } }),
    };
  }
  const topKeys = loaded.topKeys;
  let positioned: ReadonlyArray<TopKey & { line: number; col: number }> | undefined;
  const keys = () => (positioned ??= sourcePositions(text, rendered, file, topKeys));
  return { ok: true, value: loaded.entries !== undefined ? { topKeys, keys, entries: loaded.entries } : { data: loaded.data, topKeys, keys } };
}

/** The source line and column of each top-level key of a rendered text (Jinja's output: its line, column 1). */
function sourcePositions(text: string, rendered: string, file: string, topKeys: readonly TopKey[]): Array<TopKey & { line: number; col: number }> {
  let keys = keyPositions(rendered, topKeys);
  if (!keys) {
    const lines = new LineMap(file, rendered);
    keys = topKeys.map((k) => {
      const { line, col } = lines.span(k.offset);
      return { ...k, line, col };
    });
  }
  if (rendered === text) return keys;
  const source = new RenderedLines(text, rendered);
  return keys.map((k) => ({ ...k, line: source.map(k.line), col: 1 }));
}

/**
 * The 1-based line and column of each top-level key, in one forward pass over the text (the keys come in
 * document order); undefined when they do not, and the caller looks each one up.
 */
function keyPositions(text: string, keys: readonly TopKey[]): Array<TopKey & { line: number; col: number }> | undefined {
  const out: Array<TopKey & { line: number; col: number }> = [];
  let line = 1;
  let start = 0;
  let nl = text.indexOf('\n');
  let prev = 0;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as TopKey;
    if (k.offset < prev) return undefined;
    prev = k.offset;
    while (nl >= 0 && nl < k.offset) {
      line++;
      start = nl + 1;
      nl = text.indexOf('\n', start);
    }
    out.push(k.nonString === undefined ? { key: k.key, offset: k.offset, line, col: k.offset - start + 1 } : { key: k.key, offset: k.offset, nonString: k.nonString, line, col: k.offset - start + 1 });
  }
  return out;
}
