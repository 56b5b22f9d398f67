/** Salt's file.exists, missing, copy, rename, hardlink, comment, uncomment and serialize on their shared kinds. */
import { isAbsolute } from 'node:path';
import type { Chunk } from '../compile/index.js';
import { dumpYaml } from '../../../lang/python/yaml-emit.js';
import { normalizeMode, pyText, truthy } from './args.js';
import type { SaltRet, StateImpl, Translation } from './types.js';

function must(chunk: Chunk, fun: string): Translation | undefined {
  return chunk.name ? undefined : { fail: `Must provide name to file.${fun}` };
}

function absolute(chunk: Chunk): Translation | undefined {
  return isAbsolute(chunk.name) ? undefined : { fail: `Specified file ${chunk.name} is not an absolute path`, arg: 'name' };
}

function pathCheck(present: boolean): StateImpl {
  return {
    translate: (chunk) => must(chunk, present ? 'exists' : 'missing') ?? { type: 'exists', params: { path: chunk.name, present } },
  };
}

function owner(chunk: Chunk, params: Record<string, unknown>): void {
  const mode = normalizeMode(chunk.mode);
  if (mode !== undefined) params.mode = mode;
  if (typeof chunk.user === 'string' || typeof chunk.user === 'number') params.owner = chunk.user;
  if (typeof chunk.group === 'string' || typeof chunk.group === 'number') params.group = chunk.group;
}

/** `_error` returns keep what the function had found so far: nothing, for these. */
function noChangesOnError(_chunk: Chunk, ret: SaltRet): SaltRet {
  return ret.result === false ? { ...ret, changes: {} } : ret;
}

const copy: StateImpl = {
  translate(chunk) {
    const bad = must(chunk, 'copy') ?? absolute(chunk);
    if (bad) return bad;
    const source = pyText(chunk.source);
    if (!isAbsolute(source)) return { fail: `Source file "${source}" is not present`, arg: 'source' };
    const params: Record<string, unknown> = { path: chunk.name, source };
    for (const k of ['force', 'makedirs', 'subdir'] as const) if (chunk[k] === true) params[k] = true;
    if (chunk.preserve !== true) owner(chunk, params);
    return { type: 'copy', params };
  },
  finish: (chunk, ret, ctx) => (ctx.test ? { ...ret, changes: {} } : noChangesOnError(chunk, ret)),
  // copy_ builds its dict as name, changes, comment, result.
  retOrder: ['name', 'changes', 'comment', 'result'],
};

const rename: StateImpl = {
  translate(chunk) {
    const bad = must(chunk, 'rename') ?? absolute(chunk);
    if (bad) return bad;
    const params: Record<string, unknown> = { path: chunk.name, source: pyText(chunk.source) };
    for (const k of ['force', 'makedirs'] as const) if (chunk[k] === true) params[k] = true;
    return { type: 'rename', params };
  },
  finish: (chunk, ret, ctx) => (ctx.test ? { ...ret, changes: {} } : noChangesOnError(chunk, ret)),
  retOrder: ['name', 'changes', 'comment', 'result'],
};

const hardlink: StateImpl = {
  translate(chunk) {
    const bad = must(chunk, 'hardlink');
    if (bad) return bad;
    const target = pyText(chunk.target);
    const errors: string[] = [];
    if (!isAbsolute(chunk.name)) errors.push(`Specified file ${chunk.name} is not an absolute path`);
    if (!isAbsolute(target)) errors.push(`Specified target ${target} is not an absolute path`);
    if (errors.length > 0) return { fail: errors.join('. ') + (errors.length > 1 ? '.' : '') };
    const params: Record<string, unknown> = { path: chunk.name, target };
    for (const k of ['force', 'makedirs'] as const) if (chunk[k] === true) params[k] = true;
    return { type: 'hardlink', params };
  },
  finish(chunk, ret, ctx): SaltRet {
    // In test mode Salt reports a forced replacement as pending; for real, a file in the way without force is this.
    if (!ctx.test && ret.result === false && ret.comment.startsWith('File or directory exists where the hard link')) {
      return { result: false, comment: `File exists where the hard link ${chunk.name} should be`, changes: {} };
    }
    if (!ctx.test && ret.result === true && ret.comment.startsWith('The hard link ')) {
      return { ...ret, comment: `Target of hard link ${chunk.name} is already pointing to ${pyText(chunk.target)}` };
    }
    return noChangesOnError(chunk, ret);
  },
};

function commentState(uncomment: boolean): StateImpl {
  const fun = uncomment ? 'uncomment' : 'comment';
  return {
    translate(chunk) {
      const bad = must(chunk, fun);
      if (bad) return bad;
      if (!isAbsolute(chunk.name)) return { fail: `Specified file ${chunk.name} is not an absolute path`, arg: 'name' };
      if (chunk.regex === undefined || chunk.regex === null) return { fail: `Missing parameter regex for state file.${fun}`, arg: 'regex' };
      const params: Record<string, unknown> = { path: chunk.name, regex: pyText(chunk.regex), uncomment };
      if (chunk.char !== undefined && chunk.char !== null) params.char = pyText(chunk.char);
      if (chunk.backup !== undefined) params.backup = truthy(chunk.backup) ? pyText(chunk.backup) : '';
      if (!uncomment && chunk.ignore_missing === true) params.ignore_missing = true;
      return { type: 'comment', params };
    },
    finish(chunk, ret): SaltRet {
      if (ret.result === false && /: file not found$/.test(ret.comment)) return { result: false, comment: `${chunk.name}: file not found`, changes: {} };
      return ret;
    },
  };
}

/** Python's json.dumps(indent=2, separators=(",", ": "), sort_keys=True), ASCII only. */
function pyJson(v: unknown, indent = ''): string {
  const inner = `${indent}  `;
  if (Array.isArray(v)) return v.length === 0 ? '[]' : `[\n${v.map((x) => inner + pyJson(x, inner)).join(',\n')}\n${indent}]`;
  if (v && typeof v === 'object') {
    const keys = Object.keys(v).sort();
    return keys.length === 0 ? '{}' : `{\n${keys.map((k) => `${inner}${pyJson(k)}: ${pyJson((v as Record<string, unknown>)[k], inner)}`).join(',\n')}\n${indent}}`;
  }
  if (typeof v === 'string') return JSON.stringify(v).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return v === undefined ? 'null' : JSON.stringify(v);
}

const serialize: StateImpl = {
  translate(chunk, ctx) {
    const bad = must(chunk, 'serialize');
    if (bad) return bad;
    if (chunk.serializer !== undefined && chunk.formatter !== undefined) return { fail: 'Only one of serializer and formatter are allowed', arg: 'serializer' };
    const format = pyText(chunk.serializer ?? chunk.formatter ?? 'yaml').toLowerCase();
    if (truthy(chunk.dataset) && truthy(chunk.dataset_pillar)) return { fail: "Only one of 'dataset' and 'dataset_pillar' is permitted", arg: 'dataset' };
    let data = chunk.dataset;
    if (truthy(chunk.dataset_pillar)) {
      data = pyText(chunk.dataset_pillar).split(':').reduce<unknown>((cur, k) => (cur && typeof cur === 'object' && !Array.isArray(cur) ? (cur as Record<string, unknown>)[k] : undefined), ctx.pillar());
      if (data === undefined) data = '';
    }
    if (data === undefined || data === null) return { fail: "Neither 'dataset' nor 'dataset_pillar' was defined", arg: 'dataset' };
    let content: string;
    if (format === 'json') content = `${pyJson(data)}\n`;
    else if (format === 'yaml') content = dumpYaml(data);
    else return { fail: `The ${format} serializer could not be found. It either does not exist or its prerequisites are not installed.`, arg: 'serializer' };
    if (!isAbsolute(chunk.name)) return { fail: `Specified file ${chunk.name} is not an absolute path`, arg: 'name' };
    const params: Record<string, unknown> = { path: chunk.name, content };
    owner(chunk, params);
    if (chunk.makedirs === true) params.makedirs = true;
    if (chunk.create === false) params.create = false;
    return { type: 'file', params };
  },
  finish(chunk, ret, ctx): SaltRet {
    if (ret.result === false && /^Parent directory \S+ of \S+ is not present/.test(ret.comment)) return { result: false, comment: 'Parent directory not present', changes: {} };
    if (ctx.test && ret.result === null) {
      const changes = chunk.show_changes === false && 'diff' in ret.changes ? { ...ret.changes, diff: '<show_changes=False>' } : ret.changes;
      return { result: null, comment: `Dataset will be serialized and stored into ${chunk.name}`, changes };
    }
    if (ctx.test && ret.result === true && ret.comment.startsWith('File ')) return { ...ret, comment: `The file ${chunk.name} is in the correct state` };
    if (!ctx.test && ret.result === true && ret.changes.diff === 'New file') {
      // manage_file touches the new file first: a mode shows up only when one is given and it is not 0600.
      const changes = { ...ret.changes };
      delete changes.mode;
      const mode = normalizeMode(chunk.mode);
      if (mode !== undefined && mode !== '0600') changes.mode = mode;
      return { ...ret, changes };
    }
    if (!ctx.test && chunk.show_changes === false && typeof ret.changes.diff === 'string') return { ...ret, changes: { ...ret.changes, diff: '<show_changes=False>' } };
    return ret;
  },
  retOrder: ['changes', 'comment', 'name', 'result'],
};

const blockreplace: StateImpl = {
  translate(chunk) {
    const bad = must(chunk, 'blockreplace');
    if (bad) return bad;
    if (!isAbsolute(chunk.name)) return { fail: `Specified file ${chunk.name} is not an absolute path`, arg: 'name' };
    const params: Record<string, unknown> = { path: chunk.name };
    for (const k of ['marker_start', 'marker_end', 'content', 'insert_before_match', 'insert_after_match'] as const) if (chunk[k] !== undefined && chunk[k] !== null) params[k] = pyText(chunk[k]);
    for (const k of ['append_if_not_found', 'prepend_if_not_found'] as const) if (chunk[k] === true) params[k] = true;
    if (typeof chunk.append_newline === 'boolean') params.append_newline = chunk.append_newline;
    if (chunk.backup !== undefined) params.backup = chunk.backup === false || chunk.backup === null ? '' : pyText(chunk.backup);
    return { type: 'blockreplace', params };
  },
  finish(chunk, ret, ctx): SaltRet {
    if (ret.result === false && /: file not found$/.test(ret.comment)) return { result: false, comment: `${chunk.name}: file not found`, changes: {} };
    if (ret.result === false) return { ...ret, changes: {} };
    if (chunk.show_changes === false && 'diff' in ret.changes) return { ...ret, changes: { diff: true } };
    return ctx.test && ret.result === null ? { ...ret, comment: 'Changes would be made' } : ret;
  },
};

/** Python's type name of a YAML value, for keyvalue's diff of a non-string value. */
function pyType(v: unknown): string | undefined {
  if (typeof v === 'string') return undefined;
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (v === null) return 'NoneType';
  return Array.isArray(v) ? 'list' : 'OrderedDict';
}

const keyvalue: StateImpl = {
  translate(chunk) {
    const bad = must(chunk, 'keyvalue');
    if (bad) return bad;
    let kv: Record<string, unknown>;
    if (chunk.key !== undefined && chunk.key !== null && chunk.value !== undefined && chunk.value !== null) {
      if (chunk.key_values && typeof chunk.key_values === 'object' && !Array.isArray(chunk.key_values)) return { fail: 'file.keyvalue can not combine key_values with key and value', arg: 'key_values' };
      kv = { [pyText(chunk.key)]: chunk.value };
    } else if (!chunk.key_values || typeof chunk.key_values !== 'object' || Array.isArray(chunk.key_values) || Object.keys(chunk.key_values).length === 0) {
      return { fail: `file.keyvalue key and value not supplied and key_values ${truthy(chunk.key_values) ? 'is not a dictionary' : 'is empty'}`, arg: 'key_values' };
    } else kv = chunk.key_values as Record<string, unknown>;
    if (!isAbsolute(chunk.name)) return { fail: `unable to open ${chunk.name}` };
    const entries = Object.entries(kv).map(([key, value]) => ({ key, value: pyText(value), ...(pyType(value) ? { type: pyType(value) } : {}) }));
    const params: Record<string, unknown> = { path: chunk.name, entries };
    if (chunk.separator !== undefined && chunk.separator !== null) params.separator = pyText(chunk.separator);
    for (const k of ['append_if_not_found', 'prepend_if_not_found', 'ignore_if_missing', 'key_ignore_case', 'value_ignore_case'] as const) if (chunk[k] === true) params[k] = true;
    if (typeof chunk.count === 'number') params.count = chunk.count;
    if (typeof chunk.uncomment === 'string') params.uncomment = chunk.uncomment;
    return { type: 'keyvalue', params };
  },
  finish(chunk, ret): SaltRet {
    if (chunk.show_changes !== false || !('diff' in ret.changes)) return ret;
    // Without show_changes Salt records no diff and predicts none.
    return { ...ret, changes: {}, comment: ret.comment.replace(/\nPredicted diff:[\s\S]*$/, '') };
  },
};

export const moreFileStates: Record<string, StateImpl> = {
  keyvalue,
  blockreplace,
  serialize,
  exists: pathCheck(true),
  missing: pathCheck(false),
  copy,
  rename,
  hardlink,
  comment: commentState(false),
  uncomment: commentState(true),
};
