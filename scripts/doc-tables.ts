// The parts of docs/ that come from registries: each lives in its page between
// `<!-- NAME: generated -->` and `<!-- end of NAME -->`, is rewritten by `npm run docs`, and a test fails
// when a page and its registry disagree.
import { FIELDS, UNSUPPORTED } from '../src/frontends/converge/fields.js';
import { BUNDLED } from '../src/frontends/inmanta/std-model.js';
import { STD_PLUGIN_NAMES } from '../src/frontends/inmanta/plugins.js';
import { functionNames, lookupFunction } from '../src/frontends/otter/functions.js';
import { operations } from '../src/frontends/otter/operations/index.js';
import { stateFunctions } from '../src/frontends/salt/states/index.js';
import { kinds } from '../src/resources/index.js';

export interface GeneratedBlock {
  /** The page, relative to the repository. */
  readonly page: string;
  readonly name: string;
  readonly content: string;
}

const code = (s: string): string => `\`${s}\``;

interface SchemaLike {
  readonly type: string;
  /** A lazy schema's (a kind's params are built on first use). */
  readonly getter?: (input: unknown) => SchemaLike;
  readonly entries?: Record<string, SchemaLike>;
  readonly pipe?: readonly SchemaLike[];
  readonly wrapped?: SchemaLike;
}

/** `name` for a required param, `name?` for an optional one, read off the kind's valibot schema. */
function paramsOf(lazy: SchemaLike): string[] {
  const schema = lazy.getter ? lazy.getter(undefined) : lazy;
  const object = schema.entries ? schema : schema.pipe?.find((s) => s.entries);
  return Object.entries(object?.entries ?? {}).map(([name, s]) => (s.type === 'optional' || s.type === 'nullish' ? `${name}?` : name));
}

function graphKinds(): string {
  const rows = [...kinds.values()]
    .sort((a, b) => a.type.localeCompare(b.type))
    .map((k) => `| ${code(k.type)} | ${paramsOf(k.schema as unknown as SchemaLike).map(code).join(', ')} |`);
  return ['| type | params (`?`: optional) |', '| --- | --- |', ...rows].join('\n');
}

function convergeTables(): string {
  const rows = Object.entries(FIELDS).map(([type, fields]) => `| ${code(type)} | ${fields.map(code).join(', ')} |`);
  const refused = Object.entries(UNSUPPORTED).map(([type, why]) => `| ${code(type)} | ${why} |`);
  return ['| type | fields (each also takes `depends` and `group`) |', '| --- | --- |', ...rows, '', '| type | why it is refused |', '| --- | --- |', ...refused].join('\n');
}

function saltFunctions(): string {
  const byState = new Map<string, string[]>();
  for (const f of stateFunctions()) {
    const dot = f.indexOf('.');
    const state = f.slice(0, dot);
    byState.set(state, [...(byState.get(state) ?? []), f.slice(dot + 1)]);
  }
  const rows = [...byState].map(([state, funs]) => `| ${code(state)} | ${funs.map(code).join(', ')} |`);
  return ['| state | functions |', '| --- | --- |', ...rows].join('\n');
}

function otterTables(): string {
  const ops = [...operations]
    .sort((a, b) => `${a.namespace}::${a.name}`.localeCompare(`${b.namespace}::${b.name}`))
    .map((op) => {
      const names = [op.name, ...(op.aliases ?? [])].map(code).join(', ');
      const args = op.args.map((a) => code(`${a.name}${a.required ? '' : '?'}`)).join(', ');
      return `| ${code(op.namespace)} | ${names} | ${args} |`;
    });
  const fns = functionNames().map((name) => {
    const f = lookupFunction(name);
    const arity = !f ? '' : f.min === f.max ? String(f.min) : f.max === Infinity ? `${f.min}+` : `${f.min}–${f.max}`;
    return `| ${code(`$${name}`)} | ${arity} |`;
  });
  return ['| namespace | operation | arguments (`?`: optional) |', '| --- | --- | --- |', ...ops, '', '| function | arguments |', '| --- | --- |', ...fns].join('\n');
}

function inmantaTables(): string {
  const entities = Object.entries(BUNDLED).map(([module, text]) => {
    const names = [...text.matchAll(/^entity (\w+)/gm)].map((m) => code(`${module}::${m[1]}`));
    return `| ${code(module)} | ${names.join(', ')} |`;
  });
  const plugins = [...STD_PLUGIN_NAMES].sort().map((n) => code(`std::${n}`));
  return ['| module | entities |', '| --- | --- |', ...entities, '', `Plugins of \`std\` (${plugins.length}): ${plugins.join(', ')}`].join('\n');
}

export function generatedBlocks(): GeneratedBlock[] {
  return [
    { page: 'docs/graph.md', name: 'resource kinds', content: graphKinds() },
    { page: 'docs/converge.md', name: 'resource tables', content: convergeTables() },
    { page: 'docs/salt.md', name: 'state functions', content: saltFunctions() },
    { page: 'docs/otter.md', name: 'operations and functions', content: otterTables() },
    { page: 'docs/inmanta.md', name: 'bundled modules', content: inmantaTables() },
  ];
}

const markers = (name: string): { start: string; end: string } => ({ start: `<!-- ${name}: generated -->\n`, end: `<!-- end of ${name} -->` });

/** Where the block's text lies in a page (an empty block included): undefined without its markers. */
function spanOf(page: string, name: string): { from: number; to: number } | undefined {
  const { start, end } = markers(name);
  const i = page.indexOf(start);
  const j = i < 0 ? -1 : page.indexOf(end, i + start.length);
  return j < 0 ? undefined : { from: i + start.length, to: j };
}

/** The block's text in a page: undefined when the page lacks its markers. */
export function blockIn(page: string, name: string): string | undefined {
  const span = spanOf(page, name);
  return span && page.slice(span.from, span.to).replace(/\n$/, '');
}

/** The page with the block's text replaced (or appended with its markers when the page lacks them). */
export function withBlock(page: string, name: string, content: string): string {
  const span = spanOf(page, name);
  const { start, end } = markers(name);
  if (!span) return `${page.replace(/\n*$/, '\n\n')}${start}${content}\n${end}\n`;
  return `${page.slice(0, span.from)}${content}\n${page.slice(span.to)}`;
}
