/**
 * `cron`: a job (or an environment variable) in a user's crontab, read and written with crontab(1)
 * through host.exec (Salt's cron.present / absent / env_present and its cron module: the managed part
 * follows Salt's marker line, each job under a `# SALT_CRON_IDENTIFIER:id` comment).
 */
import * as v from 'valibot';
import type { ApplyOutcome, CheckOutcome } from '../../core/model.js';
import type { ResourceContext } from '../../host/types.js';
import { type Kind, type Params, parseParams, validateWith, lazySchema } from '../kind.js';

const TYPE = 'cron';
const TAG = '# Lines below here are managed by Salt, do not edit';
const ID = 'SALT_CRON_IDENTIFIER';

const field = v.optional(v.string(), '*');
export const cronSchema = lazySchema(() =>
  v.strictObject({
    user: v.optional(v.pipe(v.string(), v.minLength(1)), 'root'),
    state: v.picklist(['present', 'absent', 'env_present', 'env_absent']),
    /** The command, or the variable name for env_*. */
    name: v.pipe(v.string(), v.minLength(1, 'expected a command')),
    minute: field,
    hour: field,
    daymonth: field,
    month: field,
    dayweek: field,
    comment: v.optional(v.nullable(v.string())),
    commented: v.optional(v.boolean(), false),
    identifier: v.optional(v.nullable(v.string())),
    /** env_present: the value. */
    value: v.optional(v.nullable(v.string())),
  }),
);
type CronParams = v.InferOutput<typeof cronSchema>;

function parse(params: Params): CronParams {
  return parseParams(TYPE, cronSchema, params);
}

interface Job {
  minute: string;
  hour: string;
  daymonth: string;
  month: string;
  dayweek: string;
  cmd: string;
  comment: string | null;
  identifier: string | null;
  commented: boolean;
}
interface Tab {
  pre: string[];
  env: Array<{ name: string; value: string }>;
  crons: Job[];
  other: string[];
}

/** Salt's list_tab (specials are kept as they are). */
export function parseTab(text: string): Tab {
  const tab: Tab = { pre: [], env: [], crons: [], other: [] };
  let managed = false;
  let comment: string | null = null;
  let identifier: string | null = null;
  for (let line of text.split(/\r?\n/)) {
    if (line === TAG) {
      managed = true;
      continue;
    }
    if (!managed) {
      tab.pre.push(line);
      continue;
    }
    let commented = false;
    if (line.startsWith('#DISABLED#')) {
      line = line.slice(10);
      commented = true;
    }
    if (line.startsWith('@')) tab.other.push(line);
    else if (line.startsWith('#')) {
      let c = line.replace(/^[# ]+/, '');
      if (c.includes(ID)) {
        const parts = c.split(ID);
        c = (parts[0] as string).trimEnd();
        if ((parts[1] as string).length > 1) identifier = (parts[1] as string).slice(1);
      }
      comment = comment === null ? c : `${comment}\n${c}`;
    } else if (line.indexOf('=') > 0 && (!line.includes(' ') || line.indexOf('=') < line.indexOf(' '))) {
      const i = line.indexOf('=');
      tab.env.push({ name: line.slice(0, i), value: line.slice(i + 1) });
    } else if (line.split(' ').length > 5) {
      const c = line.split(' ');
      tab.crons.push({ minute: c[0] as string, hour: c[1] as string, daymonth: c[2] as string, month: c[3] as string, dayweek: c[4] as string, cmd: c.slice(5).join(' '), comment, identifier, commented });
      comment = null;
      identifier = null;
    }
  }
  // The text ends with a newline: the last split element is not a line.
  if (tab.pre.length > 0 && tab.pre[tab.pre.length - 1] === '' && !text.includes(TAG)) tab.pre.pop();
  return tab;
}

/** Salt's _render_tab. */
export function renderTab(tab: Tab): string {
  let out = tab.pre.map((l) => `${l}\n`).join('');
  out += `${TAG}\n`;
  for (const e of tab.env) out += e.value === '' ? `${e.name}=""\n` : `${e.name}=${e.value}\n`;
  for (const c of tab.crons) {
    if (c.comment !== null || c.identifier !== null) {
      let line = '#';
      if (c.comment) line += ` ${c.comment.replace(/\n/g, '\n# ')}`;
      if (c.identifier) line += ` ${ID}:${c.identifier}`;
      out += `${line}\n`;
    }
    out += `${c.commented ? '#DISABLED#' : ''}${c.minute} ${c.hour} ${c.daymonth} ${c.month} ${c.dayweek} ${c.cmd}\n`;
  }
  for (const o of tab.other) out += `${o}\n`;
  return out;
}

async function readTab(ctx: ResourceContext, user: string): Promise<Tab> {
  const r = await ctx.host.exec(['crontab', '-u', user, '-l'], { readOnly: true });
  const tab = parseTab(r.code === 0 ? r.stdout : '');
  // Lines before the marker, without the empty one a final newline leaves.
  while (tab.pre.length > 0 && tab.pre[tab.pre.length - 1] === '') tab.pre.pop();
  return tab;
}

async function writeTab(ctx: ResourceContext, user: string, tab: Tab): Promise<string | undefined> {
  const r = await ctx.host.exec(['crontab', '-u', user, '-'], { stdin: renderTab(tab) });
  return r.code === 0 ? undefined : r.stderr;
}

function idOf(p: CronParams): string {
  return p.identifier === undefined ? p.name : (p.identifier ?? '');
}

function matched(c: Job, p: CronParams): boolean {
  const id = idOf(p);
  if (c.identifier !== null) return c.identifier === id || (c.cmd === p.name && !id);
  return c.cmd === p.name;
}

const needsChange = (old: unknown, next: unknown) => old !== next && next !== null && next !== undefined;

function jobStatus(tab: Tab, p: CronParams): { status: 'absent' | 'present' | 'update'; index: number } {
  const index = tab.crons.findIndex((c) => matched(c, p));
  if (index < 0) return { status: 'absent', index };
  const c = tab.crons[index] as Job;
  const pairs: Array<[unknown, unknown]> = [[c.minute, p.minute], [c.hour, p.hour], [c.daymonth, p.daymonth], [c.month, p.month], [c.dayweek, p.dayweek], [c.identifier, idOf(p) || null], [c.cmd, p.name], [c.comment, p.comment], [c.commented, p.commented]];
  return { status: pairs.some(([o, n]) => needsChange(o, n)) ? 'update' : 'present', index };
}

async function check(ctx: ResourceContext, p: CronParams): Promise<CheckOutcome> {
  const tab = await readTab(ctx, p.user);
  if (p.state === 'env_present' || p.state === 'env_absent') {
    const e = tab.env.find((x) => x.name === p.name);
    if (p.state === 'env_absent') return e ? { inSync: false, comment: `Cron env ${p.name} is set to be removed`, state: tab } : { inSync: true, comment: `Cron env ${p.name} is absent` };
    if (!e) return { inSync: false, comment: `Cron env ${p.name} is set to be added`, state: tab };
    return e.value === (p.value ?? '') ? { inSync: true, comment: `Cron env ${p.name} already present` } : { inSync: false, comment: `Cron env ${p.name} is set to be updated`, state: tab };
  }
  const { status } = jobStatus(tab, p);
  if (p.state === 'absent') return status === 'absent' ? { inSync: true, comment: `Cron ${p.name} is absent` } : { inSync: false, comment: `Cron ${p.name} is set to be removed`, state: tab };
  if (status === 'present') return { inSync: true, comment: `Cron ${p.name} already present` };
  return { inSync: false, comment: status === 'absent' ? `Cron ${p.name} is set to be added` : `Cron ${p.name} is set to be updated`, state: tab };
}

async function apply(ctx: ResourceContext, p: CronParams, checked: CheckOutcome): Promise<ApplyOutcome> {
  if (checked.inSync) return { ok: true, changes: {}, comment: (checked.comment ?? '').replace(/ is absent$/, ' already absent') };
  const tab = checked.state as Tab;
  const changes = { [p.user]: p.name };
  const fail = (err: string, sep: string) => ({ ok: false, changes: {}, comment: `Cron ${p.state.startsWith('env') ? 'env ' : ''}${p.name} for user ${p.user} failed to commit with error${sep}${err}` });
  if (p.state === 'env_present' || p.state === 'env_absent') {
    const i = tab.env.findIndex((x) => x.name === p.name);
    if (i >= 0) tab.env.splice(i, 1);
    if (p.state === 'env_present') tab.env.push({ name: p.name, value: p.value ?? '' });
    const err = await writeTab(ctx, p.user, tab);
    if (err !== undefined) return fail(err, ' \n');
    const verb = p.state === 'env_absent' ? `removed from ${p.user}'s crontab` : i >= 0 ? 'updated' : `added to ${p.user}'s crontab`;
    return { ok: true, changes, comment: `Cron env ${p.name} ${verb}` };
  }
  const { index } = jobStatus(tab, p);
  const old = index >= 0 ? (tab.crons.splice(index, 1)[0] as Job) : undefined;
  if (p.state === 'absent') {
    const err = await writeTab(ctx, p.user, tab);
    if (err !== undefined) return fail(err, ' ');
    return { ok: true, changes, comment: `Cron ${p.name} removed from ${p.user}'s crontab` };
  }
  tab.crons.push({
    minute: p.minute,
    hour: p.hour,
    daymonth: p.daymonth,
    month: p.month,
    dayweek: p.dayweek,
    cmd: p.name,
    comment: p.comment ?? old?.comment ?? null,
    identifier: idOf(p) || null,
    commented: p.commented,
  });
  const err = await writeTab(ctx, p.user, tab);
  if (err !== undefined) return fail(err, ' \n');
  return { ok: true, changes, comment: old ? `Cron ${p.name} updated` : `Cron ${p.name} added to ${p.user}'s crontab` };
}

export const kind: Kind = {
  type: TYPE,
  validate: (params, node) => validateWith(TYPE, cronSchema, params, node),
  schema: cronSchema,
  check: (ctx, params) => check(ctx, parse(params)),
  apply: (ctx, params, checked) => apply(ctx, parse(params), checked),
};
