/** Salt's cron.present, absent, env_present and env_absent on the shared cron kind. */
import type { Chunk } from '../compile/index.js';
import { pyText } from './args.js';
import type { SaltRet, StateImpl, Translation } from './types.js';

function cron(state: 'present' | 'absent' | 'env_present' | 'env_absent') {
  return (chunk: Chunk): Translation => {
    const params: Record<string, unknown> = { name: pyText(chunk.name).trim(), state };
    if (chunk.user !== undefined && chunk.user !== null) params.user = pyText(chunk.user);
    if (state === 'present') {
      // set_job lowers every time field as str() does.
      for (const k of ['minute', 'hour', 'daymonth', 'month', 'dayweek'] as const) if (chunk[k] !== undefined && chunk[k] !== null) params[k] = pyText(chunk[k]).toLowerCase();
      if (typeof chunk.comment === 'string') params.comment = chunk.comment;
      if (chunk.commented === true) params.commented = true;
    }
    if ((state === 'present' || state === 'absent') && chunk.identifier !== undefined && chunk.identifier !== false) params.identifier = chunk.identifier === null ? null : pyText(chunk.identifier);
    if (state === 'env_present' && chunk.value !== undefined && chunk.value !== null) params.value = pyText(chunk.value);
    return { type: 'cron', params };
  };
}

export const cronStates: Record<string, StateImpl> = {
  present: { translate: cron('present'), retOrder: ['changes', 'comment', 'name', 'result'] },
  absent: {
    translate: cron('absent'),
    retOrder: ['name', 'result', 'changes', 'comment'],
    // rm_job's "absent" reads differently from the test run's.
    finish: (_chunk, ret, ctx): SaltRet => (!ctx.test && ret.result === true && ret.comment.endsWith(' is absent') ? { ...ret, comment: ret.comment.replace(/ is absent$/, ' already absent') } : ret),
  },
  env_present: { translate: cron('env_present'), retOrder: ['changes', 'comment', 'name', 'result'] },
  env_absent: { translate: cron('env_absent'), retOrder: ['name', 'result', 'changes', 'comment'] },
};
