/** Salt's host.present and host.absent on the shared hosts kind; the file is the `hosts.file` option. */
import type { Chunk } from '../compile/index.js';
import { pyText } from './args.js';
import { NCRC, type SaltRet, type StateImpl, type TranslateContext, type Translation } from './types.js';

function hostState(state: 'present' | 'absent') {
  return (chunk: Chunk, ctx: TranslateContext): Translation => {
    if (chunk.ip === undefined || chunk.ip === null) return { fail: `Missing parameter ip for state host.${state}`, arg: 'ip' };
    const ip = (Array.isArray(chunk.ip) ? chunk.ip : [chunk.ip]).map(pyText);
    const file = ctx.config?.('hosts.file');
    const params: Record<string, unknown> = { name: pyText(chunk.name), ip, state, ...(typeof file === 'string' ? { path: file } : {}) };
    if (state === 'present') {
      if (chunk.comment !== undefined && chunk.comment !== null && chunk.comment !== '') params.comment = pyText(chunk.comment);
      if (chunk.clean === true) params.clean = true;
    }
    return { type: 'hosts', params };
  };
}

export const hostStates: Record<string, StateImpl> = {
  present: {
    translate: hostState('present'),
    retOrder: NCRC,
    // A comment that only changes keeps the result true in a test run; only adds and removals are "would".
    finish: (_chunk, ret, ctx): SaltRet => (ctx.test && ret.result === null && !('added' in ret.changes) && !('removed' in ret.changes) ? { ...ret, result: true } : ret),
  },
  absent: {
    translate: hostState('absent'),
    retOrder: NCRC,
    finish(_chunk, ret, ctx): SaltRet {
      // absent starts from result None and turns True when any address is already clean.
      if (ctx.test && ret.result === null && ret.comment.includes('already absent')) return { ...ret, result: true };
      return ret;
    },
  },
};
