/**
 * Host patterns, as Ansible users write them: `web1`, `web*`, a group name, `all`/`*`, joined by commas;
 * `!x` removes, `&x` keeps only what x also selects. Unions apply first, then intersections, then
 * exclusions; the result keeps inventory order. A name that is neither a host nor a group is an error.
 */
import type { Inventory, InventoryHost } from './inventory.js';

export class PatternError extends Error {
  readonly isUserError = true;
}

function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*') out += '.*';
    else if (c === '?') out += '.';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) out += '\\[';
      else {
        const body = glob.slice(i + 1, end);
        out += `[${body.startsWith('!') ? `^${body.slice(1)}` : body}]`;
        i = end;
      }
    } else out += c.replace(/[.+^${}()|\\/]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/** Hosts of a group and of its child groups, recursively. */
function hostsOfGroup(inv: Inventory, group: string, seen = new Set<string>()): Set<string> {
  const out = new Set<string>();
  if (seen.has(group)) return out;
  seen.add(group);
  const g = inv.groups.get(group);
  if (!g) return out;
  for (const h of g.hosts) out.add(h);
  for (const c of g.children) for (const h of hostsOfGroup(inv, c, seen)) out.add(h);
  return out;
}

function select(inv: Inventory, term: string): Set<string> {
  if (term === 'all' || term === '*') return new Set(inv.hosts.map((h) => h.name));
  const byName = inv.hosts.find((h) => h.name === term);
  if (byName) return new Set([term]);
  if (inv.groups.has(term)) return hostsOfGroup(inv, term);
  if (/[*?[]/.test(term)) {
    const re = globToRegExp(term);
    const out = new Set(inv.hosts.filter((h) => re.test(h.name)).map((h) => h.name));
    for (const g of inv.groups.keys()) if (re.test(g)) for (const h of hostsOfGroup(inv, g)) out.add(h);
    if (out.size === 0) throw new PatternError(`pattern ${JSON.stringify(term)} matches no host or group in ${inv.file}`);
    return out;
  }
  const names = [...inv.hosts.map((h) => h.name), ...inv.groups.keys()];
  throw new PatternError(`unknown host or group ${JSON.stringify(term)} in ${inv.file} (it has ${names.length > 8 ? `${names.slice(0, 8).join(', ')}, …` : names.join(', ') || 'none'})`);
}

/** The hosts a pattern selects, in inventory order. */
export function selectHosts(inv: Inventory, pattern: string): InventoryHost[] {
  const terms = pattern
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  if (terms.length === 0) throw new PatternError('empty host pattern');
  const unions = terms.filter((t) => !t.startsWith('!') && !t.startsWith('&'));
  let chosen = new Set<string>();
  for (const t of unions.length > 0 ? unions : ['all']) for (const h of select(inv, t)) chosen.add(h);
  for (const t of terms.filter((x) => x.startsWith('&'))) {
    const keep = select(inv, t.slice(1));
    chosen = new Set([...chosen].filter((h) => keep.has(h)));
  }
  for (const t of terms.filter((x) => x.startsWith('!'))) for (const h of select(inv, t.slice(1))) chosen.delete(h);
  return inv.hosts.filter((h) => chosen.has(h.name));
}
