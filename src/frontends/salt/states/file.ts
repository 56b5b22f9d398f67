/** Salt's file.* states on the shared file, directory, absent and symlink kinds. */
import { isAbsolute } from 'node:path';
import type { Chunk } from '../compile/index.js';
import { moreFileStates } from './file-more.js';
import { recurseState } from './recurse.js';
import { managedNeedsCall, managedWithHash } from './source-hash.js';
import { normalizeMode, pySplitLines, pyText, strList, truthy } from './args.js';
import { NCRC, type SaltRet, type StateImpl, type TranslateContext, type Translation } from './types.js';

const TEST_NOTE = '\nNote: No changes made, actual changes may\nbe different due to other states.';

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}

function attrs(chunk: Chunk, modeKey = 'mode', p: Record<string, unknown> = {}): Record<string, unknown> {
  const mode = normalizeMode(chunk[modeKey] ?? chunk.mode);
  if (mode !== undefined) p.mode = mode;
  if (typeof chunk.user === 'string' || typeof chunk.user === 'number') p.owner = chunk.user;
  if (typeof chunk.group === 'string' || typeof chunk.group === 'number') p.group = chunk.group;
  if (chunk.makedirs === true) p.makedirs = true;
  return p;
}

function dataPath(data: Record<string, unknown>, key: string, delimiter: string): unknown {
  let cur: unknown = data;
  for (const part of key.split(delimiter)) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    if (!Object.hasOwn(cur, part)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

const CONTENTS_KEYS = ['contents', 'contents_pillar', 'contents_grains'];

/** contents_pillar / contents_grains: the value (or the values' lines) at the keys, or why not. */
function contentsFrom(what: 'Pillar' | 'Grain', data: () => Record<string, unknown>, keys: unknown, delimiter: string): unknown {
  const list = Array.isArray(keys) ? keys : [keys];
  const parts: unknown[] = [];
  for (const k of list) {
    const v = dataPath(data(), pyText(k), delimiter);
    if (v === undefined) return { fail: `${what} ${pyText(k)} does not exist`, arg: what === 'Pillar' ? 'contents_pillar' : 'contents_grains' };
    parts.push(v);
  }
  return Array.isArray(keys) ? parts.map(pyText).join('\n') : parts[0];
}

/** The text file.managed writes for contents / contents_pillar / contents_grains, as Salt builds it. */
function managedContents(chunk: Chunk, ctx: TranslateContext): { text: string } | { fail: string; arg?: string } | undefined {
  // The contents keys given (no list made: most chunks give one or none).
  let first: string | undefined;
  let count = 0;
  for (let i = 0; i < CONTENTS_KEYS.length; i++) {
    const k = CONTENTS_KEYS[i] as string;
    if (chunk[k] !== undefined && chunk[k] !== null && count++ === 0) first = k;
  }
  if (first === undefined) return undefined;
  if (chunk.source !== undefined && chunk.source !== null && truthy(chunk.source)) {
    return { fail: "'source' cannot be used in combination with 'contents', 'contents_pillar', or 'contents_grains'", arg: 'source' };
  }
  if (count > 1) return { fail: "Only one of 'contents', 'contents_pillar', and 'contents_grains' is permitted", arg: 'contents' };
  const delimiter = typeof chunk.contents_delimiter === 'string' ? chunk.contents_delimiter : ':';
  let use: unknown;
  if (first === 'contents_pillar') use = contentsFrom('Pillar', ctx.pillar, chunk.contents_pillar, delimiter);
  else if (first === 'contents_grains') use = contentsFrom('Grain', ctx.grains ?? (() => ({})), chunk.contents_grains, delimiter);
  else use = chunk.contents;
  if (use && typeof use === 'object' && !Array.isArray(use) && 'fail' in use) return use as { fail: string };
  if (chunk.allow_empty === false && !truthy(use)) {
    const id = first === 'contents' ? "'contents'" : `${first} ${pyText(chunk[first])}`;
    return { fail: `${id} value would result in empty contents. Set allow_empty to True to allow the managed file to be empty.`, arg: first };
  }
  let text = '';
  const parts = strList(use) ?? [];
  for (let p = 0; p < parts.length; p++) {
    const lines = pySplitLines(parts[p] as string);
    for (let l = 0; l < lines.length; l++) {
      const line = lines[l] as string;
      const end = line.charCodeAt(line.length - 1);
      text += `${end === 10 || end === 13 ? line.replace(/\n+$/, '').replace(/\r+$/, '') : line}\n`;
    }
  }
  if (chunk.contents_newline === false) text = text.replace(/\n+$/, '').replace(/\r+$/, '');
  return { text };
}

function sourceText(chunk: Chunk, ctx: TranslateContext): { path: string } | { fail: string } {
  const sources = Array.isArray(chunk.source) ? chunk.source.map(pyText) : [pyText(chunk.source)];
  let last = '';
  for (const src of sources) {
    if (src.startsWith('salt://')) {
      const r = ctx.resolveUrl(src, chunk.__env__ || 'base');
      if (typeof r === 'string') return { path: r };
      last = r.error;
    } else if (isAbsolute(src)) return { path: src };
    else if (src.startsWith('file://')) return { path: src.slice('file://'.length) };
    else last = `Unable to manage file: source ${src} is not a salt:// URL or an absolute path`;
  }
  return { fail: last || `Source file ${pyText(chunk.source)} not found` };
}

function templateExtra(chunk: Chunk): Record<string, unknown> {
  const ctxArg = chunk.context;
  if (ctxArg !== undefined && ctxArg !== null && (typeof ctxArg !== 'object' || Array.isArray(ctxArg))) return { fail: 'Context must be formed as a dict', arg: 'context' };
  const defaults = chunk.defaults;
  if (truthy(defaults) && (typeof defaults !== 'object' || Array.isArray(defaults))) return { fail: 'Defaults must be formed as a dict', arg: 'defaults' };
  // Most states give neither: nothing to merge.
  if ((defaults === undefined || defaults === null) && (ctxArg === undefined || ctxArg === null)) return {};
  return { ...((defaults as Record<string, unknown>) ?? {}), ...((ctxArg as Record<string, unknown>) ?? {}) };
}

function managed(chunk: Chunk, ctx: TranslateContext): Translation {
  if (!isAbsolute(chunk.name)) return { fail: `Specified file ${chunk.name} is not an absolute path`, arg: 'name' };
  const params: Record<string, unknown> = attrs(chunk, 'mode', { path: chunk.name });
  const contents = managedContents(chunk, ctx);
  if (contents && 'fail' in contents) return contents;
  const extra = templateExtra(chunk);
  if ('fail' in extra) return { fail: extra.fail as string, arg: extra.arg as string };
  const template = chunk.template;
  if (contents) {
    params.content = contents.text;
    if (template === 'jinja') {
      try {
        params.content = ctx.renderTemplate(contents.text, chunk.name, extra);
      } catch (e) {
        return { fail: `Unable to manage file: ${(e as Error).message}` };
      }
    }
  } else if (truthy(chunk.source)) {
    const src = sourceText(chunk, ctx);
    if ('fail' in src) return src;
    if (template === 'jinja') {
      try {
        params.content = ctx.renderTemplate(ctx.readText(src.path), src.path, extra);
      } catch (e) {
        return { fail: `Unable to manage file: ${(e as Error).message}` };
      }
    } else if (truthy(template)) {
      return { fail: `Unable to manage file: template ${pyText(template)} is not supported (only jinja)`, arg: 'template' };
    } else params.source = src.path;
  }
  if (chunk.create === false) params.create = false;
  // Without content Salt turns replace off: only existence, mode and owner are managed.
  if (chunk.replace === false || !('content' in params || 'source' in params)) params.replace = false;
  if (truthy(chunk.check_cmd)) params.check_cmd = pyText(chunk.check_cmd);
  return { type: 'file', params };
}

function notAbsolute(chunk: Chunk): Translation | undefined {
  return isAbsolute(chunk.name) ? undefined : { fail: `Specified file ${chunk.name} is not an absolute path`, arg: 'name' };
}

function bool(v: unknown): boolean {
  return v === true;
}

function seconds(v: unknown): number | undefined {
  if (typeof v === 'number') return Math.floor(v);
  if (typeof v === 'string' && /^\d+(\.\d+)?$/.test(v)) return Math.floor(Number(v));
  return undefined;
}

function touch(chunk: Chunk): Translation {
  const bad = notAbsolute(chunk);
  if (bad) return bad;
  const params: Record<string, unknown> = { path: chunk.name };
  const atime = seconds(chunk.atime);
  const mtime = seconds(chunk.mtime);
  if (atime !== undefined) params.atime = atime;
  if (mtime !== undefined) params.mtime = mtime;
  if (bool(chunk.makedirs)) params.makedirs = true;
  // Salt updates the times of an existing file on every run unless it is told which times to set.
  if (atime === undefined && mtime === undefined) params.refresh = true;
  return { type: 'touch', params };
}

/** file.append's `source` / `sources`: each file's text (rendered with Jinja unless `template` says otherwise) is one block. */
function sourceBlocks(chunk: Chunk, ctx: TranslateContext): string[] | { fail: string; arg?: string } {
  const list = strList(chunk.sources ?? chunk.source) ?? [];
  const blocks: string[] = [];
  for (const src of list) {
    let path = src;
    if (src.startsWith('salt://')) {
      const r = ctx.resolveUrl(src, chunk.__env__ || 'base');
      if (typeof r !== 'string') return { fail: r.error };
      path = r;
    } else if (!isAbsolute(src)) return { fail: `Source file ${src} not found` };
    let text: string;
    try {
      text = ctx.readText(path);
    } catch {
      return { fail: `Source file ${src} not found` };
    }
    const template = chunk.template === undefined ? 'jinja' : chunk.template;
    if (template === 'jinja') {
      const extra: Record<string, unknown> = { ...((chunk.defaults as Record<string, unknown>) ?? {}), ...((chunk.context as Record<string, unknown>) ?? {}) };
      try {
        text = ctx.renderTemplate(text, path, extra);
      } catch (e) {
        return { fail: (e as Error).message };
      }
    } else if (template !== null && template !== false && template !== '') return { fail: `Unable to render ${src}: template ${String(template)} is not supported (only jinja)`, arg: 'template' };
    blocks.push(text);
  }
  return blocks;
}

function append(chunk: Chunk, ctx: TranslateContext, at: 'end' | 'start' = 'end'): Translation {
  const bad = notAbsolute(chunk);
  if (bad) return bad;
  if ((chunk.source ?? chunk.sources) !== undefined && (chunk.source ?? chunk.sources) !== null) {
    const blocks = sourceBlocks(chunk, ctx);
    if ('fail' in blocks) return blocks;
    chunk = { ...chunk, text: blocks };
  }
  const text = strList(chunk.text);
  if (!text || text.length === 0) return { fail: 'No text found to append. Nothing appended', arg: 'text' };
  const params: Record<string, unknown> = { path: chunk.name, text };
  if (bool(chunk.makedirs)) params.makedirs = true;
  if (at === 'start') {
    params.at = 'start';
    if (chunk.header === true) params.header = true;
  } else if (chunk.ignore_whitespace === false) params.ignore_whitespace = false;
  return { type: 'append', params };
}

function replace(chunk: Chunk): Translation {
  const bad = notAbsolute(chunk);
  if (bad) return bad;
  if (chunk.pattern === undefined || chunk.pattern === null) return { fail: "Missing parameter pattern for state file.replace", arg: 'pattern' };
  if (chunk.repl === undefined || chunk.repl === null) return { fail: "Missing parameter repl for state file.replace", arg: 'repl' };
  const params: Record<string, unknown> = { path: chunk.name, pattern: String(chunk.pattern), repl: String(chunk.repl) };
  const count = Number(chunk.count ?? 0);
  if (Number.isInteger(count) && count > 0) params.count = count;
  if (chunk.flags !== undefined && chunk.flags !== null) params.flags = typeof chunk.flags === 'number' || Array.isArray(chunk.flags) ? chunk.flags : String(chunk.flags);
  for (const k of ['append_if_not_found', 'prepend_if_not_found', 'ignore_if_missing', 'backslash_literal'] as const) if (bool(chunk[k])) params[k] = true;
  if (typeof chunk.not_found_content === 'string' || typeof chunk.not_found_content === 'number') params.not_found_content = String(chunk.not_found_content);
  if (chunk.backup === false || chunk.backup === '' || chunk.backup === null) params.backup = false;
  else if (typeof chunk.backup === 'string') params.backup = chunk.backup;
  if (params.append_if_not_found && params.prepend_if_not_found) return { fail: 'Only one of append and prepend_if_not_found is permitted', arg: 'append_if_not_found' };
  return { type: 'replace', params };
}

function line(chunk: Chunk): Translation {
  const bad = notAbsolute(chunk);
  if (bad) return bad;
  const mode = typeof chunk.mode === 'string' ? chunk.mode.toLowerCase() : undefined;
  if (!mode) return { fail: 'Mode was not defined. How to process the file?', arg: 'mode' };
  if (mode !== 'delete' && (chunk.content === undefined || chunk.content === null)) return { fail: "Content can only be empty if mode is ['delete']", arg: 'content' };
  if (!['ensure', 'replace', 'delete', 'insert'].includes(mode)) return { fail: `Unknown mode: "${mode}"`, arg: 'mode' };
  const params: Record<string, unknown> = { path: chunk.name, mode };
  for (const k of ['content', 'match', 'before', 'after'] as const) {
    const val = chunk[k];
    if (val !== undefined && val !== null) params[k] = String(val);
  }
  if (chunk.location === 'start' || chunk.location === 'end') params.location = chunk.location;
  if (chunk.indent === false) params.indent = false;
  if (chunk.create === true) params.create = true;
  return { type: 'line', params };
}

/** Salt's _gen_keep_files: the names of the file states the directory requires. */
function keepFiles(chunk: Chunk, ctx: TranslateContext): string[] {
  const keep: string[] = [];
  const require = Array.isArray(chunk.require) ? chunk.require : [];
  for (const comp of require) {
    if (!comp || typeof comp !== 'object' || !('file' in comp)) continue;
    const want = String((comp as Record<string, unknown>).file);
    for (const low of ctx.lowstate ?? []) {
      if ((low.name === want || low.__id__ === want) && isAbsolute(low.name) && !keep.includes(low.name)) keep.push(low.name);
    }
  }
  return keep;
}

const RECURSE_TYPES = ['user', 'group', 'mode', 'ignore_files', 'ignore_dirs', 'silent'];

/** Salt's _get_recurse_set and the recursion it asks for, as the directory kind's `recurse` param. */
function recursion(chunk: Chunk): Record<string, unknown> | { fail: string } | undefined {
  if (!truthy(chunk.recurse)) return undefined;
  const set = (Array.isArray(chunk.recurse) ? chunk.recurse : [chunk.recurse]).map(pyText);
  const bad = set.filter((t) => !RECURSE_TYPES.includes(t));
  if (bad.length > 0) return { fail: `Types for "recurse" limited to ${RECURSE_TYPES.map((t) => `"${t}"`).join(', ')}.`, arg: 'recurse' };
  const r: Record<string, unknown> = {};
  if (set.includes('mode')) {
    const fm = normalizeMode(chunk.file_mode);
    const dm = normalizeMode(chunk.dir_mode ?? chunk.mode);
    if (fm !== undefined) r.file_mode = fm;
    if (dm !== undefined) r.dir_mode = dm;
  }
  // Without a user (group) to set, Salt fails an existing directory; cairn leaves ownership alone.
  if (set.includes('user') && chunk.user !== undefined && chunk.user !== null) r.owner = chunk.user;
  if (set.includes('group') && chunk.group !== undefined && chunk.group !== null) r.group = chunk.group;
  if (set.includes('ignore_files')) r.files = false;
  if (set.includes('ignore_dirs')) r.dirs = false;
  return r;
}

function directory(chunk: Chunk, ctx: TranslateContext): Translation {
  const params: Record<string, unknown> = { path: chunk.name, ...attrs(chunk, 'dir_mode') };
  const rec = recursion(chunk);
  if (rec && 'fail' in rec) return { fail: pyText(rec.fail) };
  if (chunk.clean !== true) return { type: 'directory', params: { ...params, ...(rec ? { recurse: rec } : {}) } };
  params.keep = keepFiles(chunk, ctx);
  if (typeof chunk.exclude_pat === 'string') params.exclude_pat = chunk.exclude_pat;
  return { type: 'cleandir', params };
}

/** `show_changes: False`: Salt keeps only the fact of a change in place of the diff. */
function hideDiff(marker: unknown) {
  return (chunk: Chunk, ret: SaltRet): SaltRet => {
    if (chunk.show_changes !== false || typeof ret.changes.diff !== 'string' || ret.changes.diff === 'New file') return ret;
    return { ...ret, changes: { ...ret.changes, diff: marker } };
  };
}

/** file.managed's finish: a diff hidden by show_changes=False shows Salt's marker. */
const hideManagedDiff = hideDiff('<show_changes=False>');

/**
 * The mode Salt reports for a file it created: a file written from a source or template (or with a mode
 * given) starts as a private 0600 temporary file and is then set to the mode wanted (0644 from the umask
 * when none is given); a file from contents without a mode is created with the umask's 0644 directly.
 */
function hasContents(chunk: Chunk): boolean {
  return ['contents', 'contents_pillar', 'contents_grains'].some((k) => chunk[k] !== undefined && chunk[k] !== null);
}

function newFileModeChange(chunk: Chunk, changes: Record<string, unknown>): Record<string, unknown> {
  const given = normalizeMode(chunk.mode);
  const fromContents = hasContents(chunk) || !truthy(chunk.source);
  const initial = given !== undefined || !fromContents ? '0600' : '0644';
  const want = given ?? '0644';
  const out: Record<string, unknown> = { ...changes };
  delete out.mode;
  if (want !== initial) out.mode = want;
  return out;
}

/** Salt's file.directory and file.symlink return early through _error when they cannot act
 *  (a missing parent without makedirs, ...): nothing was changed, so changes stay empty. */
function noChangesOnError(_chunk: Chunk, ret: SaltRet): SaltRet {
  return ret.result === false ? { ...ret, changes: {} } : ret;
}

const fileStatesBase: Record<string, StateImpl> = {
  touch: {
    translate: touch,
    finish(chunk, ret, ctx): SaltRet {
      // Without times, Salt's test run finds an existing file correct and still reports it as new.
      if (ctx.test && ret.result === null && ret.comment.startsWith('Times set to be updated') && seconds(chunk.atime) === undefined && seconds(chunk.mtime) === undefined) {
        return { result: true, comment: `File ${chunk.name} exists and has the correct times`, changes: { new: chunk.name } };
      }
      return noChangesOnError(chunk, ret);
    },
  },
  append: { translate: (chunk, ctx) => append(chunk, ctx) },
  prepend: { translate: (chunk, ctx) => append(chunk, ctx, 'start') },
  replace: { translate: replace, finish: hideDiff(true) },
  line: { translate: line, finish: hideDiff(true) },
  managed: {
    // managed's dict starts as changes, comment, name, result.
    retOrder: ['changes', 'comment', 'name', 'result'],
    call: managedWithHash,
    calls: managedNeedsCall,
    translate: managed,
    finish(chunk, ret, ctx): SaltRet {
      let shown = hideManagedDiff(chunk, ret);
      if (shown.result === false && /^Parent directory \S+ of \S+ is not present/.test(shown.comment)) shown = { result: false, comment: 'Parent directory not present', changes: {} };
      if (!ctx.test && shown.result === true && shown.changes.diff === 'New file') {
        const empty = !hasContents(chunk) && !truthy(chunk.source);
        // With nothing to write, Salt touches the file: an empty file with its own change record.
        shown = empty
          ? { result: true, comment: 'Empty file', changes: newFileModeChange(chunk, { new: `file ${chunk.name} created` }) }
          : { ...shown, changes: newFileModeChange(chunk, shown.changes) };
      }
      if (ctx.test && shown.result === true && shown.comment === `File ${chunk.name} is in the correct state`) return { ...shown, comment: `The file ${chunk.name} is in the correct state` };
      if (ctx.test && shown.result === null && shown.comment.startsWith('The file ')) {
        // check_file_meta lists owner, group, then mode after the content change.
        const attrs = ['user', 'group', 'mode'].filter((k) => k in shown.changes);
        const rest = Object.entries(shown.changes).filter(([k]) => !attrs.includes(k));
        const changes = Object.fromEntries([...rest, ...attrs.map((k) => [k, shown.changes[k]])]);
        return { ...shown, changes, comment: `${shown.comment}${TEST_NOTE}` };
      }
      return shown;
    },
  },
  directory: {
    translate: directory,
    // A missing parent without makedirs keeps the change Salt's pre-check found.
    finish(chunk, ret, ctx): SaltRet {
      if (ret.comment.startsWith('No directory to create ')) return ret;
      const out = noChangesOnError(chunk, ret);
      // Salt records the pre-check's {name: {...}} before the keys check_perms sets.
      const keys = ['user', 'group', 'mode'].filter((k) => k in out.changes);
      if (ctx.test || out.result !== true || keys.length === 0 || chunk.name in out.changes || truthy(chunk.recurse)) return out;
      return { ...out, changes: { [chunk.name]: Object.fromEntries(keys.map((k) => [k, out.changes[k]])), ...out.changes } };
    },
  },
  absent: {
    translate: (chunk) => ({ type: 'absent', params: { path: chunk.name } }),
  },
  symlink: {
    // Outside test mode Salt names what is in the way (its test-mode check words it differently).
    async call(chunk, ctx) {
      if (ctx.test || chunk.force === true || truthy(chunk.backupname) || !isAbsolute(chunk.name) || !str(chunk.target)) return undefined;
      const st = await ctx.host.lstat(chunk.name);
      if (!st || st.type === 'symlink') return undefined;
      const what = st.type === 'file' ? 'File' : st.type === 'directory' ? 'Directory' : 'File system entry';
      return { result: false, comment: `${what} exists where the symlink ${chunk.name} should be`, changes: {} };
    },
    translate(chunk) {
      const target = str(chunk.target);
      if (!target) return { fail: 'Missing parameter target for state file.symlink', arg: 'target' };
      const params: Record<string, unknown> = { path: chunk.name, target };
      if (chunk.force === true) params.force = true;
      if (chunk.makedirs === true) params.makedirs = true;
      return { type: 'symlink', params };
    },
    finish(chunk, ret): SaltRet {
      const out = noChangesOnError(chunk, ret);
      if (!('forced' in out.changes)) return out;
      const changes = { ...out.changes };
      delete changes.forced;
      return { ...out, changes };
    },
  },
};

/** Every file function but managed and copy starts its return dict as name, changes, result, comment. */
export const fileStates: Record<string, StateImpl> = Object.fromEntries(
  Object.entries({ ...fileStatesBase, ...moreFileStates, recurse: recurseState }).map(([fun, impl]) => [fun, withOwnerWording({ ...impl, retOrder: impl.retOrder ?? NCRC })]),
);

/** Salt's _check_user wording for an owner or group the machine does not have (the user one ends in a space). */
function withOwnerWording(impl: StateImpl): StateImpl {
  const finish = impl.finish;
  return {
    ...impl,
    finish(chunk, ret, ctx): SaltRet {
      const out = finish ? finish(chunk, ret, ctx) : ret;
      // Only a failure can be reworded: the comment of any other return is not searched.
      if (out.result !== false) return out;
      const m = /^(User|Group) (.+) is not available \(not in \/etc\/(?:passwd|group)\)$/.exec(out.comment);
      if (!m) return out;
      return { result: false, changes: {}, comment: m[1] === 'User' ? `User ${m[2]} is not available ` : `Group ${m[2]} is not available` };
    },
  };
}
