/** Salt's service.running, dead, enabled and disabled on the shared service kind. */
import type { Chunk } from '../compile/index.js';
import { pyText } from './args.js';
import { NCRC, type StateImpl, type Translation } from './types.js';

/** salt.utils.data.is_true for a string `enable`. */
function isTrue(v: unknown): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  const s = pyText(v).trim().toLowerCase();
  if (/^-?\d+$/.test(s)) return Number(s) !== 0;
  return s === 'true';
}

function service(state: 'running' | 'dead' | 'enabled' | 'disabled') {
  return (chunk: Chunk): Translation => {
    if ('enabled' in chunk && (state === 'running' || state === 'dead')) {
      return { fail: `Service ${pyText(chunk.name)} uses non-existent option "enabled".  Perhaps "enable" option was intended?`, arg: 'enabled' };
    }
    const params: Record<string, unknown> = { name: pyText(chunk.name), state };
    const enable = state === 'running' || state === 'dead' ? isTrue(chunk.enable) : undefined;
    if (enable !== undefined) params.enable = enable;
    if (chunk.reload === true) params.reload = true;
    if (chunk.force === true) params.force = true;
    return { type: 'service', params };
  };
}

export const serviceStates: Record<string, StateImpl> = {
  running: { translate: service('running'), modWatch: true, retOrder: NCRC },
  dead: { translate: service('dead'), modWatch: true, retOrder: NCRC },
  enabled: { translate: service('enabled'), retOrder: NCRC },
  disabled: { translate: service('disabled'), retOrder: NCRC },
};
