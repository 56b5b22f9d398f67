/** Salt's file.exists, missing, copy, rename, hardlink, prepend, comment and uncomment on their shared kinds. */
import { isAbsolute } from 'node:path';
import type { Chunk } from '../compile/index.js';
import { normalizeMode, pyText, truthy } from './args.js';
import type { SaltRet, StateImpl, Translation } from './types.js';

function must(chunk: Chunk, fun: string): Translation | undefined {
  return chunk.name ? undefined : { fail: `Must provide name to file.${fun}` };
}

function absolute(chunk: Chunk): Translation | undefined {
  return isAbsolute(chunk.name) ? undefined : { fail: `Specified file ${chunk.name} is not an absolute path` };
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
    if (!isAbsolute(source)) return { fail: `Source file "${source}" is not present` };
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
      if (!isAbsolute(chunk.name)) return { fail: `Specified file ${chunk.name} is not an absolute path` };
      if (chunk.regex === undefined || chunk.regex === null) return { fail: `Missing parameter regex for state file.${fun}` };
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

export const moreFileStates: Record<string, StateImpl> = {
  exists: pathCheck(true),
  missing: pathCheck(false),
  copy,
  rename,
  hardlink,
  comment: commentState(false),
  uncomment: commentState(true),
};
