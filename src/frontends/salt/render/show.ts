/** High data back into the single dict Salt's show_highstate / show_sls return. */

import type { HighData } from '../types.js';

export function showHighstateData(high: HighData): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const order = high.keyOrder ?? [...Object.keys(high.states), ...(high.extend.length ? ['__extend__'] : []), ...(high.exclude.length ? ['__exclude__'] : [])];
  for (const key of order) {
    if (key === '__extend__') out.__extend__ = high.extend;
    else if (key === '__exclude__') out.__exclude__ = high.exclude;
    else if (Object.hasOwn(high.states, key)) out[key] = high.states[key];
  }
  return out;
}
