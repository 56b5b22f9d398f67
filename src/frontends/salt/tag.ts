/** Salt's state tags: `state_|-id_|-name_|-fun`, the keys of its running dict. */

const TAG_SEP = '_|-';

/**
 * The parts of a state tag (`state_|-id_|-name_|-fun`) as `tag.split('_|-')` would give them: the first
 * three (missing ones empty) and the last, found without splitting the whole tag into a new array.
 */
export function tagParts(tag: string): { state: string; id: string; name: string; fourth: string; last: string } {
  const i1 = tag.indexOf(TAG_SEP);
  if (i1 < 0) return { state: tag, id: '', name: '', fourth: '', last: tag };
  const i2 = tag.indexOf(TAG_SEP, i1 + 3);
  const i3 = i2 < 0 ? -1 : tag.indexOf(TAG_SEP, i2 + 3);
  const i4 = i3 < 0 ? -1 : tag.indexOf(TAG_SEP, i3 + 3);
  const fourth = i3 < 0 ? '' : tag.slice(i3 + 3, i4 < 0 ? undefined : i4);
  // The separators found are every one up to i4 (one cannot overlap another): without a fourth, the last
  // found is the last, and a tag of four parts (most) has its fourth as its last.
  let last: string;
  if (i4 >= 0) last = tag.slice(tag.lastIndexOf(TAG_SEP) + 3);
  else if (i3 >= 0) last = fourth;
  else last = tag.slice((i2 >= 0 ? i2 : i1) + 3);
  return {
    state: tag.slice(0, i1),
    id: tag.slice(i1 + 3, i2 < 0 ? undefined : i2),
    name: i2 < 0 ? '' : tag.slice(i2 + 3, i3 < 0 ? undefined : i3),
    fourth,
    last,
  };
}

/** `${state}.${fourth}` of tagParts(tag), without making the other parts. */
export function tagType(tag: string): string {
  const i1 = tag.indexOf(TAG_SEP);
  if (i1 < 0) return `${tag}.`;
  const i2 = tag.indexOf(TAG_SEP, i1 + 3);
  const i3 = i2 < 0 ? -1 : tag.indexOf(TAG_SEP, i2 + 3);
  if (i3 < 0) return `${tag.slice(0, i1)}.`;
  const i4 = tag.indexOf(TAG_SEP, i3 + 3);
  return `${tag.slice(0, i1)}.${tag.slice(i3 + 3, i4 < 0 ? undefined : i4)}`;
}
