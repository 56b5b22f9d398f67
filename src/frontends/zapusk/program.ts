/**
 * A Zapusk program: the folder NAME.zdb, its *.ini files read as one stream, turned into program params
 * (the `params` component) and components of steps. The front end reads its own program files directly:
 * they are input, not the machine being managed.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { type Diagnostic, error, type Span } from '../../core/diag.js';
import { type Entry, type RawSection, readLines, readSource, splitLines, splitTexts, type Value } from './reader.js';

export interface Param {
  readonly value: Value;
  readonly span: Span;
  readonly valueSpan: Span;
}

export type Params = ReadonlyMap<string, Param>;

export interface Step {
  /** The section name: `[os]` → `os`. */
  readonly id: string;
  /** Its `type=` key, else its `name=` key, else the id; may hold `{{…}}`, computed when the step runs. */
  readonly type: Value;
  readonly span: Span;
  readonly params: Params;
}

export interface Component {
  readonly name: string;
  readonly span: Span;
  readonly steps: readonly Step[];
}

export interface Program {
  /** Absolute path of the NAME.zdb folder. */
  readonly dir: string;
  /** The folder name without `.zdb`. */
  readonly name: string;
  readonly params: Params;
  readonly components: readonly Component[];
  readonly files: readonly string[];
  /** Remarks zapusk-tool prints as warnings (a file with no header, an unclosed value). */
  readonly warnings: readonly string[];
  /** `zapusk.conf` in the folder, when present. */
  readonly conf?: Params;
}

export class ProgramError extends Error {
  constructor(readonly diagnostics: readonly Diagnostic[]) {
    super(diagnostics.map((d) => d.message).join('; '));
  }
}

function toParams(entries: readonly Entry[]): Map<string, Param> {
  const out = new Map<string, Param>();
  // A repeated key keeps its first position in the order but takes the last value, like a Ruby hash.
  // An entry is a param as it is (its value and both positions), not copied into one.
  for (const e of entries) out.set(e.key, e);
  return out;
}

function toStep(s: RawSection, id: string): Step {
  const params = toParams(s.entries);
  // zapusk-tool: a step's `name` key renames it, and a step without `type` has its name as its type.
  const type = params.get('type')?.value ?? params.get('name')?.value ?? id;
  return { id, type, span: s.span, params };
}

/** `[step]` sections belong to the header above them; a header with none is itself one step. */
function toComponents(sections: readonly RawSection[], diagnostics: Diagnostic[]): { params: Params; components: Component[] } {
  let params: Params = new Map();
  const components: Component[] = [];
  const seen = new Map<string, Span>();
  let current: { name: string; header: RawSection; steps: Step[] } | undefined;
  const close = (): void => {
    if (!current) return;
    if (current.name === 'params') params = toParams(current.header.entries);
    else {
      // A copy of exactly its length (the list grew by pushes, with room to spare), kept for the whole run.
      const steps = current.steps.length > 0 ? current.steps.slice() : [toStep(current.header, current.name)];
      components.push({ name: current.name, span: current.header.span, steps });
    }
    current = undefined;
  };
  for (const s of sections) {
    if (s.kind === 'header') {
      close();
      const first = seen.get(s.name);
      if (first) {
        diagnostics.push(error('Z004', `component ${JSON.stringify(s.name)} is already defined at ${first.file}:${first.line}`, { span: s.span }));
      }
      seen.set(s.name, s.span);
      current = { name: s.name, header: s, steps: [] };
    } else if (current) {
      current.steps.push(toStep(s, s.name));
    }
  }
  close();
  return { params, components };
}

function readText(file: string, diagnostics: Diagnostic[]): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? '';
    const why: Record<string, string> = { EACCES: 'permission denied', ENOENT: 'no such file (a link to a file that is gone?)', EISDIR: 'it is a directory' };
    diagnostics.push(error('Z006', `cannot read ${file}: ${why[code] ?? (e as Error).message}`, { span: { file, line: 1, col: 1 } }));
    return undefined;
  }
}

/** Reads `key=value` lines of a conf file (zapusk.conf) with the same line rules. */
export function readConfFile(file: string, diagnostics: Diagnostic[]): Params {
  const text = readText(file, diagnostics);
  if (text === undefined) return new Map();
  // A conf file has no headers: read it as the body of one implicit section.
  const read = readLines([{ file, line: 0, text: '### conf' }, ...splitLines(file, text)]);
  for (const d of read.diagnostics) diagnostics.push(d);
  return toParams(read.sections.flatMap((s) => s.entries));
}

/** Whether a line of `text` is `####` after nothing but white space (/^\s*####/ on each line), found without splitting it. */
function hasBlockLine(text: string): boolean {
  for (let at = text.indexOf('####'); at >= 0; at = text.indexOf('####', at + 1)) {
    if (/^\s*$/.test(text.slice(text.lastIndexOf('\n', at - 1) + 1, at))) return true;
  }
  return false;
}

/** Loads NAME.zdb; throws ProgramError with positioned diagnostics when it cannot be read. */
export function loadProgram(dirPath: string): Program {
  const dir = resolve(dirPath);
  const diagnostics: Diagnostic[] = [];
  let st: ReturnType<typeof statSync> | undefined;
  try {
    st = statSync(dir);
  } catch {
    st = undefined;
  }
  if (!st?.isDirectory()) {
    const why = st ? 'is not a directory' : 'does not exist';
    throw new ProgramError([error('Z005', `zapusk program ${dirPath} ${why} (a program is a folder NAME.zdb of *.ini files)`)]);
  }
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.ini')).sort();
  } catch (e) {
    throw new ProgramError([error('Z006', `cannot list ${dirPath}: ${(e as Error).message}`)]);
  }
  const files = names.map((n) => join(dir, n)).filter((f) => {
    try {
      return statSync(f).isFile();
    } catch {
      return true;
    }
  });
  if (files.length === 0) throw new ProgramError([error('Z007', `zapusk program ${dirPath} has no *.ini files`)]);
  let texts: string[] = [];
  const runs: { file: string; start: number; first: number }[] = [];
  const warnings: string[] = [];
  for (const f of files) {
    const text = readText(f, diagnostics);
    if (text === undefined) continue;
    if (!hasBlockLine(text)) warnings.push(`File [${f}] has no #### blocks!`);
    const own = splitTexts(text);
    runs.push({ file: f, start: texts.length, first: 1 });
    if (texts.length === 0) texts = own;
    else for (const t of own) texts.push(t);
  }
  const read = readSource({ texts, runs });
  for (const d of read.diagnostics) diagnostics.push(d);
  const { params, components } = toComponents(read.sections, diagnostics);
  const confFile = join(dir, 'zapusk.conf');
  let conf: Params | undefined;
  try {
    if (statSync(confFile).isFile()) conf = readConfFile(confFile, diagnostics);
  } catch {
    conf = undefined;
  }
  if (diagnostics.length > 0) throw new ProgramError(diagnostics);
  return {
    dir,
    name: basename(dir).replace(/\.zdb$/, ''),
    params,
    components,
    files,
    warnings: [...warnings, ...read.warnings],
    ...(conf ? { conf } : {}),
  };
}

/** Folders of zdb types are program input too: read directly, never through the managed host. */
export function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export function listDir(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}
