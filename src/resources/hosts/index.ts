/**
 * `hosts`: a name mapped (or not) to IP addresses in a hosts file (Salt's host.present / host.absent, with
 * the file handling of Salt's hosts module: adding or commenting rewrites the file in its normal form,
 * removing edits the lines in place). Comments are Salt 3006's.
 */
import * as v from 'valibot';
import type { ApplyOutcome, CheckOutcome } from '../../core/model.js';
import type { ResourceContext } from '../../host/types.js';
import { type Kind, type Params, parseParams, validateWith, lazySchema } from '../kind.js';
import { absolutePathSchema } from '../paths.js';

const TYPE = 'hosts';

export const hostsSchema = lazySchema(() =>
  v.strictObject({
    /** The hosts file (default /etc/hosts). */
    path: v.optional(absolutePathSchema, '/etc/hosts'),
    name: v.pipe(v.string(), v.minLength(1, 'expected a host name')),
    ip: v.pipe(v.array(v.string()), v.minLength(1, 'expected at least one IP address')),
    state: v.optional(v.picklist(['present', 'absent']), 'present'),
    /** present: the comment the address line carries. */
    comment: v.optional(v.string(), ''),
    /** present: remove the name from addresses not listed. */
    clean: v.optional(v.boolean(), false),
  }),
);
type HostsParams = v.InferOutput<typeof hostsSchema>;

function parse(params: Params): HostsParams {
  return parseParams(TYPE, hostsSchema, params);
}

interface Entry {
  aliases: string[];
  comment?: string;
}
/** Addresses in file order; comment lines under `comment-N` keys, as Salt's _list_hosts keeps them. */
type HostsMap = Map<string, Entry | string[]>;

export function parseHosts(text: string): HostsMap {
  const out: HostsMap = new Map();
  let count = 0;
  for (const raw of text.split('\n')) {
    let line = raw.trim();
    if (!line) continue;
    if (line.startsWith('#')) {
      out.set(`comment-${count++}`, [line]);
      continue;
    }
    let comment: string | undefined;
    if (line.includes('#')) {
      comment = line.slice(line.indexOf('#') + 1).replace(/^\s+/, '');
      line = line.slice(0, line.indexOf('#')).trim();
    }
    const [ip, ...names] = line.split(/\s+/) as [string, ...string[]];
    const e = (out.get(ip) as Entry | undefined) ?? { aliases: [] };
    e.aliases.push(...names);
    if (comment) e.comment = comment;
    out.set(ip, e);
  }
  return out;
}

/** Salt's _write_hosts: every entry on one line, blank lines dropped. */
export function writeHosts(hosts: HostsMap): string {
  let out = '';
  for (const [ip, info] of hosts) {
    const line = Array.isArray(info) ? info.join('') : info.comment ? `${ip}\t\t${info.aliases.join(' ')}\t\t# ${info.comment}` : `${ip}\t\t${info.aliases.join(' ')}`;
    if (line.trim()) out += `${line.trim()}\n`;
  }
  return out;
}

/** Salt's rm_host: the alias taken off the address's lines, in place. */
function removeAlias(text: string, ip: string, alias: string): string {
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  return lines
    .map((l) => {
      const t = l.trim();
      if (!t || t.startsWith('#')) return l;
      const hash = t.indexOf('#');
      const info = hash >= 0 ? t.slice(0, hash) : t;
      const comment = hash >= 0 ? t.slice(hash + 1).replace(/^\s+/, '') : undefined;
      const comps = info.split(/\s+/).filter(Boolean);
      if (comps[0] !== ip) return l;
      let next = `${ip}\t\t`;
      for (const a of comps.slice(1)) if (a !== alias) next += `${a} `;
      if (next.trim() === ip) return '';
      return comment ? `${next}# ${comment}\n` : `${next}\n`;
    })
    .join('');
}

const isIp = (s: string) => /^(\d{1,3})(\.\d{1,3}){3}$/.test(s) ? s.split('.').every((n) => Number(n) <= 255) : /^[0-9a-fA-F:]+(%\w+)?$/.test(s) && s.includes(':');

interface Plan {
  add: string[];
  comment: string[];
  remove: string[];
  notes: string[];
  invalid: boolean;
}

function planPresent(hosts: HostsMap, p: HostsParams): Plan {
  const plan: Plan = { add: p.ip.filter((a) => !hosts.has(a)), comment: [], remove: [], notes: [], invalid: false };
  if (p.comment) plan.comment.push(...plan.add);
  for (const [addr, info] of hosts) {
    if (Array.isArray(info)) continue;
    const has = info.aliases.includes(p.name);
    if (!p.ip.includes(addr)) {
      if (has && p.clean) plan.remove.push(addr);
    } else if (has) {
      if (p.comment && info.comment !== p.comment) plan.comment.push(addr);
      else plan.notes.push(`Host ${p.name} (${addr}) already present`);
    } else if (isIp(addr)) {
      plan.add.push(addr);
      if (p.comment) plan.comment.push(addr);
    } else {
      plan.invalid = true;
      plan.notes.push(`Invalid IP Address for ${p.name} (${addr})`);
    }
  }
  return plan;
}

async function read(ctx: ResourceContext, path: string): Promise<string> {
  const st = await ctx.host.stat(path);
  return st ? (await ctx.host.readFile(path)).toString('utf8') : '';
}

function changesOf(plan: Plan, p: HostsParams): Record<string, unknown> {
  const changes: Record<string, Record<string, string[]>> = {};
  const put = (key: string, addr: string, v: string) => ((changes[key] ??= {})[addr] ??= []).push(v);
  for (const a of plan.add) put('added', a, p.name);
  for (const a of plan.comment) put('comment_added', a, p.comment);
  for (const a of plan.remove) put('removed', a, p.name);
  return changes;
}

async function check(ctx: ResourceContext, p: HostsParams): Promise<CheckOutcome> {
  const hosts = parseHosts(await read(ctx, p.path));
  if (p.state === 'absent') {
    const notes = p.ip.map((a) => {
      const e = hosts.get(a);
      return !Array.isArray(e) && e?.aliases.includes(p.name) ? `Host ${p.name} (${a}) needs to be removed` : `Host ${p.name} (${a}) already absent`;
    });
    const todo = notes.some((n) => n.endsWith('needs to be removed'));
    return { inSync: !todo, comment: notes.join('\n'), changes: {}, state: hosts };
  }
  const plan = planPresent(hosts, p);
  if (plan.invalid) throw new Error(plan.notes.join('\n'));
  const notes = [...plan.notes, ...plan.add.map((a) => `Host ${p.name} (${a}) would be added`), ...plan.comment.map((a) => `Comment for ${a} (${p.comment}) would be added`), ...plan.remove.map((a) => `Host ${p.name} (${a}) would be removed`)];
  const changes = changesOf(plan, p);
  return { inSync: Object.keys(changes).length === 0, comment: notes.join('\n'), changes, state: plan };
}

async function apply(ctx: ResourceContext, p: HostsParams, checked: CheckOutcome): Promise<ApplyOutcome> {
  if (checked.inSync) return { ok: true, changes: {}, comment: checked.comment ?? '' };
  const { host } = ctx;
  if (p.state === 'absent') {
    const notes: string[] = [];
    let changed = false;
    for (const a of p.ip) {
      const text = await read(ctx, p.path);
      const e = parseHosts(text).get(a);
      if (Array.isArray(e) || !e?.aliases.includes(p.name)) {
        notes.push(`Host ${p.name} (${a}) already absent`);
        continue;
      }
      await host.writeFileAtomic(p.path, removeAlias(text, a, p.name));
      changed = true;
      notes.push(`Removed host ${p.name} (${a})`);
    }
    return { ok: true, changes: changed ? { host: p.name } : {}, comment: notes.join('\n') };
  }
  const plan = checked.state as Plan;
  const notes = [...plan.notes];
  for (const a of plan.add) {
    const hosts = parseHosts(await read(ctx, p.path));
    const e = hosts.get(a);
    if (Array.isArray(e) || !e?.aliases.includes(p.name)) {
      const entry = (Array.isArray(e) ? undefined : e) ?? { aliases: [] };
      entry.aliases.push(p.name);
      hosts.set(a, entry);
      await host.writeFileAtomic(p.path, writeHosts(hosts));
    }
    notes.push(`Added host ${p.name} (${a})`);
  }
  for (const a of plan.comment) {
    const hosts = parseHosts(await read(ctx, p.path));
    const e = hosts.get(a);
    if (e && !Array.isArray(e) && e.comment !== p.comment) {
      e.comment = p.comment;
      await host.writeFileAtomic(p.path, writeHosts(hosts));
    }
    notes.push(`Set comment for host ${a} (${p.comment})`);
  }
  for (const a of plan.remove) {
    await host.writeFileAtomic(p.path, removeAlias(await read(ctx, p.path), a, p.name));
    notes.push(`Removed host ${p.name} (${a})`);
  }
  return { ok: true, changes: changesOf(plan, p), comment: notes.join('\n') };
}

export const kind: Kind = {
  type: TYPE,
  validate: (params, node) => validateWith(TYPE, hostsSchema, params, node),
  schema: hostsSchema,
  check: (ctx, params) => check(ctx, parse(params)),
  apply: (ctx, params, checked) => apply(ctx, parse(params), checked),
};
