/** High data back into the single dict Salt's show_highstate / show_sls return. */

import { PLAIN_DICTS } from '../output/plain-dicts.js';
import type { HighData } from '../types.js';

export function showHighstateData(high: HighData): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const short = new Set(high.shortIds ?? []);
  const order = high.keyOrder ?? [...Object.keys(high.states), ...(high.extend.length ? ['__extend__'] : []), ...(high.exclude.length ? ['__exclude__'] : [])];
  for (const key of order) {
    if (key === '__extend__') out.__extend__ = high.extend;
    else if (key === '__exclude__') out.__exclude__ = high.exclude;
    else if (Object.hasOwn(high.states, key)) {
      const body = high.states[key] as unknown as Record<string, unknown>;
      if (short.has(key)) {
        // `id: mod.fun` becomes a plain dict: `__sls__`, `__env__`, then the module.
        const shown = { __sls__: body.__sls__, __env__: body.__env__, ...body };
        PLAIN_DICTS.add(shown);
        out[key] = shown;
      } else out[key] = saltBodyOrder(body);
    }
  }
  return out;
}

/** Salt's high data keeps the state modules first, then the injected `__sls__` and `__env__`. */
function saltBodyOrder(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) if (!k.startsWith('__')) out[k] = v;
  for (const k of ['__sls__', '__env__']) if (k in body) out[k] = body[k];
  for (const [k, v] of Object.entries(body)) if (!(k in out)) out[k] = v;
  return out;
}
