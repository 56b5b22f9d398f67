/**
 * Mappings inside Salt's ordered data (high data) that Salt holds as plain dicts: the Python outputters sort
 * their keys where they keep an OrderedDict's order. Marked by the code that builds the shown data.
 */
export const PLAIN_DICTS = new WeakSet<object>();
