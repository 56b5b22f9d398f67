/** Salt's nested-key lookups (`a:b:c`) and its recursive dict merge, shared by pillar, grains and config. */

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const MISSING = Symbol('missing');

/** salt.utils.data.traverse_dict_and_list: dict keys, and list indexes where the value is a list. */
export function traverse(data: unknown, key: string, delimiter = ':'): unknown | typeof MISSING {
  let cur: unknown = data;
  for (const part of key.split(delimiter)) {
    if (Array.isArray(cur)) {
      const i = Number(part);
      if (!Number.isInteger(i) || i < 0 || i >= cur.length) return MISSING;
      cur = cur[i];
    } else if (isPlainObject(cur) && Object.hasOwn(cur, part)) {
      cur = cur[part];
    } else {
      return MISSING;
    }
  }
  return cur;
}

export function lookup(data: unknown, key: string, dflt: unknown, delimiter = ':'): unknown {
  const v = traverse(data, key, delimiter);
  return v === MISSING ? dflt : v;
}

export function has(data: unknown, key: string, delimiter = ':'): boolean {
  return traverse(data, key, delimiter) !== MISSING;
}

/** salt.utils.dictupdate.update: nested dicts merge key by key, anything else is replaced by the upper value. */
export function deepMerge(lower: Record<string, unknown>, upper: Record<string, unknown>, mergeLists = false): Record<string, unknown> {
  const out: Record<string, unknown> = { ...lower };
  for (const [k, v] of Object.entries(upper)) {
    const cur = out[k];
    if (isPlainObject(cur) && isPlainObject(v)) out[k] = deepMerge(cur, v, mergeLists);
    else if (mergeLists && Array.isArray(cur) && Array.isArray(v)) out[k] = [...cur, ...v.filter((x) => !cur.includes(x))];
    else out[k] = v;
  }
  return out;
}
