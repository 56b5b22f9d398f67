/** Salt's file.* states on the shared file, directory, absent and symlink kinds. */
import { isAbsolute } from 'node:path';
import type { Chunk } from '../compile/index.js';
import type { SaltRet, StateImpl, TranslateContext, Translation } from './types.js';

const TEST_NOTE = '\nNote: No changes made, actual changes may\nbe different due to other states.';

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}

function attrs(chunk: Chunk, modeKey = 'mode'): Record<string, unknown> {
  const p: Record<string, unknown> = {};
  const mode = chunk[modeKey] ?? chunk.mode;
  if (typeof mode === 'number') p.mode = String(mode).padStart(3, '0');
  else if (typeof mode === 'string') p.mode = mode;
  if (typeof chunk.user === 'string' || typeof chunk.user === 'number') p.owner = chunk.user;
  if (typeof chunk.group === 'string' || typeof chunk.group === 'number') p.group = chunk.group;
  if (chunk.makedirs === true) p.makedirs = true;
  return p;
}

function pillarPath(pillar: Record<string, unknown>, key: string): unknown {
  let cur: unknown = pillar;
  for (const part of key.split(':')) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** Salt joins list contents with newlines and ends the file with one (contents_newline). */
function withNewline(text: string, chunk: Chunk): string {
  return chunk.contents_newline === false || text.endsWith('\n') ? text : `${text}\n`;
}

function sourceText(chunk: Chunk, ctx: TranslateContext): { path: string } | { fail: string } {
  const sources = Array.isArray(chunk.source) ? chunk.source.map(String) : [String(chunk.source)];
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
  return { fail: last || `Source file ${String(chunk.source)} not found` };
}

function managed(chunk: Chunk, ctx: TranslateContext): Translation {
  const params: Record<string, unknown> = { path: chunk.name, ...attrs(chunk) };
  if (chunk.contents !== undefined && chunk.contents !== null) {
    const text = Array.isArray(chunk.contents) ? chunk.contents.map(String).join('\n') : String(chunk.contents);
    params.content = withNewline(text, chunk);
  } else if (typeof chunk.contents_pillar === 'string') {
    const v = pillarPath(ctx.pillar(), chunk.contents_pillar);
    if (v === undefined) return { fail: `Pillar ${chunk.contents_pillar} does not exist` };
    params.content = withNewline(Array.isArray(v) ? v.map(String).join('\n') : String(v), chunk);
  } else if (chunk.source !== undefined && chunk.source !== null) {
    const src = sourceText(chunk, ctx);
    if ('fail' in src) return src;
    if (chunk.template === 'jinja') {
      const extra: Record<string, unknown> = { ...((chunk.defaults as Record<string, unknown>) ?? {}), ...((chunk.context as Record<string, unknown>) ?? {}) };
      try {
        params.content = ctx.renderTemplate(ctx.readText(src.path), src.path, extra);
      } catch (e) {
        return { fail: `Unable to manage file: ${(e as Error).message}` };
      }
    } else if (chunk.template !== undefined && chunk.template !== null) {
      return { fail: `Unable to manage file: template ${String(chunk.template)} is not supported (only jinja)` };
    } else params.source = src.path;
  }
  if (chunk.replace === false && 'content' in params) {
    // replace: False only creates a missing file; existing content is left alone.
    try {
      ctx.readText(chunk.name);
      delete params.content;
      delete params.source;
    } catch {
      // missing: created with the content
    }
  }
  return { type: 'file', params };
}

export const fileStates: Record<string, StateImpl> = {
  managed: {
    translate: managed,
    finish(chunk, ret, ctx): SaltRet {
      if (ctx.test && ret.result === null && ret.comment.startsWith('The file ')) return { ...ret, comment: `${ret.comment}${TEST_NOTE}` };
      return ret;
    },
  },
  directory: {
    translate: (chunk) => ({ type: 'directory', params: { path: chunk.name, ...attrs(chunk, 'dir_mode') } }),
  },
  absent: {
    translate: (chunk) => ({ type: 'absent', params: { path: chunk.name } }),
  },
  symlink: {
    translate(chunk) {
      const target = str(chunk.target);
      if (!target) return { fail: 'Missing parameter target for state file.symlink' };
      const params: Record<string, unknown> = { path: chunk.name, target };
      if (chunk.force === true) params.force = true;
      if (chunk.makedirs === true) params.makedirs = true;
      return { type: 'symlink', params };
    },
  },
};
