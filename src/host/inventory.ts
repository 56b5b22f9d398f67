/**
 * The inventory: which machines exist, how to reach them, their groups and variables. Two shapes are read
 * from the same option and told apart by their form: cairn's own YAML (`hosts:`, `groups:`, `defaults:`)
 * and a Salt roster (`ID: {host, port, user, priv, sudo}`). Problems are positioned diagnostics.
 */
import { userInfo } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, type Node as YamlNode, parseDocument } from 'yaml';
import { type Code, type Diagnostic, DiagnosticError, error, type Span } from '../core/diag.js';

export interface InventoryHost {
  readonly name: string;
  readonly address: string;
  readonly port: number;
  readonly user: string;
  /** Private key file on the controller (absolute). */
  readonly key?: string;
  readonly become: boolean;
  /** Name of the jump host (another inventory host, or `user@address:port`). */
  readonly jump?: string;
  /** `local`: the machine running cairn, no SSH. */
  readonly connection: 'ssh' | 'local';
  /** Variables: defaults, then groups (parents before children), then the host's own. */
  readonly vars: Readonly<Record<string, unknown>>;
  /** Every group the host is in, directly or through a child group. */
  readonly groups: readonly string[];
  /**
   * The connection keys the inventory left unset (its defaults included): OpenSSH's client config may give
   * them. Absent, every key was set (a Salt roster).
   */
  readonly unset?: readonly SshKey[];
  readonly span?: Span;
}

export interface InventoryGroup {
  readonly name: string;
  readonly hosts: readonly string[];
  readonly children: readonly string[];
  readonly vars: Readonly<Record<string, unknown>>;
}

export interface Inventory {
  readonly file: string;
  readonly format: 'cairn' | 'salt-roster';
  /** In file order. */
  readonly hosts: readonly InventoryHost[];
  readonly groups: ReadonlyMap<string, InventoryGroup>;
}

type Path = readonly (string | number)[];

const HOST_KEYS = ['address', 'port', 'user', 'key', 'become', 'jump', 'connection', 'vars'] as const;
const GROUP_KEYS = ['hosts', 'children', 'vars'] as const;
const ROSTER_USED = ['host', 'port', 'user', 'priv', 'sudo'];
/** Roster keys Salt knows that do not change how cairn connects. */
const ROSTER_IGNORED = ['timeout', 'minion_opts', 'thin_dir', 'tty', 'sudo_user', 'cmd_umask', 'ssh_options', 'identities_only', 'set_path'];

class Reader {
  readonly diags: Diagnostic[] = [];
  constructor(
    readonly file: string,
    private readonly doc: ReturnType<typeof parseDocument>,
    private readonly lc: LineCounter,
  ) {}

  span(path: Path, atKey = false): Span {
    let node: unknown = this.doc.contents;
    let keyNode: YamlNode | undefined;
    for (const key of path) {
      keyNode = undefined;
      if (isMap(node)) {
        const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : undefined) === String(key));
        if (!pair) break;
        keyNode = pair.key as YamlNode;
        node = pair.value;
      } else if (isSeq(node) && typeof key === 'number') node = node.items[key];
      else break;
    }
    const target = (atKey && keyNode) || ((node as YamlNode | null)?.range ? (node as YamlNode) : keyNode);
    const offset = target?.range?.[0] ?? 0;
    const pos = this.lc.linePos(offset);
    return { file: this.file, line: pos.line, col: pos.col };
  }

  fail(code: Code, message: string, path: Path, atKey = false): void {
    this.diags.push(error(code, message, { span: this.span(path, atKey) }));
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === null || v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  return `${typeof v} ${JSON.stringify(v)}`;
}

function expandKey(key: string, baseDir: string): string {
  const home = process.env.HOME ?? userInfo().homedir;
  const expanded = key === '~' ? home : key.startsWith('~/') ? `${home}${key.slice(1)}` : key;
  return isAbsolute(expanded) ? expanded : resolve(baseDir, expanded);
}

/** The connection keys OpenSSH's client config can supply. */
export type SshKey = 'address' | 'port' | 'user' | 'key' | 'jump';

interface ConnSettings {
  address?: string;
  port?: number;
  user?: string;
  key?: string;
  become?: boolean;
  jump?: string;
  connection?: 'ssh' | 'local';
  vars?: Record<string, unknown>;
}

/** Reads the connection keys of one host (or of `defaults`), reporting each bad one where it is. */
function readSettings(r: Reader, value: unknown, path: Path, keys: readonly string[], baseDir: string): ConnSettings {
  const out: ConnSettings = {};
  if (value === null || value === undefined) return out;
  if (!isRecord(value)) {
    r.fail('INV002', `expected a mapping of ${keys.join(', ')}, found ${describe(value)}`, path);
    return out;
  }
  for (const [k, v] of Object.entries(value)) {
    const at = [...path, k];
    if (!keys.includes(k)) r.fail('INV003', `unknown key ${JSON.stringify(k)} (expected one of ${keys.join(', ')})`, at, true);
    else if (k === 'port') {
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 65535) r.fail('INV002', `port: expected a port number from 1 to 65535, found ${describe(v)}`, at);
      else out.port = v;
    } else if (k === 'become') {
      if (typeof v !== 'boolean') r.fail('INV002', `become: expected true or false, found ${describe(v)}`, at);
      else out.become = v;
    } else if (k === 'vars') {
      if (!isRecord(v)) r.fail('INV002', `vars: expected a mapping, found ${describe(v)}`, at);
      else out.vars = v;
    } else if (k === 'connection') {
      if (v !== 'ssh' && v !== 'local') r.fail('INV002', `connection: expected ssh or local, found ${describe(v)}`, at);
      else out.connection = v;
    } else if (typeof v !== 'string' || v === '') r.fail('INV002', `${k}: expected a non-empty string, found ${describe(v)}`, at);
    else if (k === 'key') out.key = expandKey(v, baseDir);
    else (out as Record<string, unknown>)[k] = v;
  }
  return out;
}

function nameList(r: Reader, value: unknown, path: Path): string[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value) || value.some((x) => typeof x !== 'string')) {
    r.fail('INV002', `expected a list of names, found ${describe(value)}`, path);
    return [];
  }
  return value as string[];
}

function readCairn(r: Reader, data: Record<string, unknown>, baseDir: string): Omit<Inventory, 'file'> {
  for (const k of Object.keys(data)) if (!['hosts', 'groups', 'defaults'].includes(k)) r.fail('INV003', `unknown key ${JSON.stringify(k)} (expected hosts, groups, defaults)`, [k], true);
  const defaults = readSettings(r, data.defaults, ['defaults'], HOST_KEYS.filter((k) => k !== 'address'), baseDir);
  const rawHosts = data.hosts ?? {};
  const settings = new Map<string, ConnSettings>();
  if (!isRecord(rawHosts)) r.fail('INV002', `hosts: expected a mapping of host names, found ${describe(rawHosts)}`, ['hosts']);
  else for (const [name, v] of Object.entries(rawHosts)) settings.set(name, readSettings(r, v, ['hosts', name], HOST_KEYS, baseDir));
  const groups = new Map<string, InventoryGroup>();
  const rawGroups = data.groups ?? {};
  if (!isRecord(rawGroups)) r.fail('INV002', `groups: expected a mapping of group names, found ${describe(rawGroups)}`, ['groups']);
  else {
    for (const [name, v] of Object.entries(rawGroups)) {
      const at = ['groups', name];
      if (settings.has(name)) r.fail('INV008', `${JSON.stringify(name)} is both a host and a group`, at, true);
      if (v !== null && !isRecord(v)) {
        r.fail('INV002', `expected a mapping of hosts, children, vars, found ${describe(v)}`, at);
        continue;
      }
      const g = (v ?? {}) as Record<string, unknown>;
      for (const k of Object.keys(g)) if (!(GROUP_KEYS as readonly string[]).includes(k)) r.fail('INV003', `unknown key ${JSON.stringify(k)} (expected one of ${GROUP_KEYS.join(', ')})`, [...at, k], true);
      const vars = g.vars ?? {};
      if (!isRecord(vars)) r.fail('INV002', `vars: expected a mapping, found ${describe(vars)}`, [...at, 'vars']);
      groups.set(name, { name, hosts: nameList(r, g.hosts, [...at, 'hosts']), children: nameList(r, g.children, [...at, 'children']), vars: isRecord(vars) ? vars : {} });
    }
  }
  for (const g of groups.values()) {
    g.hosts.forEach((h, i) => {
      if (!settings.has(h)) r.fail('INV004', `group ${JSON.stringify(g.name)}: unknown host ${JSON.stringify(h)}`, ['groups', g.name, 'hosts', i]);
    });
    g.children.forEach((c, i) => {
      if (!groups.has(c)) r.fail('INV004', `group ${JSON.stringify(g.name)}: unknown child group ${JSON.stringify(c)}`, ['groups', g.name, 'children', i]);
    });
  }
  const cycle = findCycle(groups);
  if (cycle) r.fail('INV007', `groups contain themselves: ${cycle.join(' → ')}`, ['groups', cycle[0] ?? '']);
  const me = userInfo().username;
  const hosts: InventoryHost[] = [];
  for (const [name, s] of settings) {
    const member = cycle ? [] : groupsOf(name, groups);
    const vars = Object.assign({}, defaults.vars, ...member.map((g) => groups.get(g)?.vars ?? {}), s.vars);
    const key = s.key ?? defaults.key;
    const jump = s.jump ?? defaults.jump;
    const given = { address: s.address, port: s.port ?? defaults.port, user: s.user ?? defaults.user, key, jump };
    const unset = (Object.keys(given) as SshKey[]).filter((k) => given[k] === undefined);
    hosts.push({
      name,
      address: s.address ?? name,
      port: s.port ?? defaults.port ?? 22,
      user: s.user ?? defaults.user ?? me,
      ...(key !== undefined ? { key } : {}),
      become: s.become ?? defaults.become ?? false,
      ...(jump !== undefined ? { jump } : {}),
      connection: s.connection ?? defaults.connection ?? 'ssh',
      vars,
      groups: member,
      unset,
      span: r.span(['hosts', name], true),
    });
  }
  return { format: 'cairn', hosts, groups };
}

/** The groups a host is in, parents before children (so a child's vars win), each once. */
function groupsOf(host: string, groups: ReadonlyMap<string, InventoryGroup>): string[] {
  const depth = new Map<string, number>();
  const visit = (name: string, d: number): void => {
    if ((depth.get(name) ?? -1) >= d) return;
    depth.set(name, d);
    for (const g of groups.values()) if (g.children.includes(name)) visit(g.name, d + 1);
  };
  for (const g of groups.values()) if (g.hosts.includes(host)) visit(g.name, 0);
  return [...depth].sort((a, b) => b[1] - a[1]).map(([n]) => n);
}

function findCycle(groups: ReadonlyMap<string, InventoryGroup>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const walk = (name: string): string[] | undefined => {
    if (state.get(name) === 'done') return undefined;
    if (state.get(name) === 'open') return [...stack.slice(stack.indexOf(name)), name];
    state.set(name, 'open');
    stack.push(name);
    for (const c of groups.get(name)?.children ?? []) {
      const found = walk(c);
      if (found) return found;
    }
    stack.pop();
    state.set(name, 'done');
    return undefined;
  };
  for (const name of groups.keys()) {
    const found = walk(name);
    if (found) return found;
  }
  return undefined;
}

function readRoster(r: Reader, data: Record<string, unknown>, baseDir: string): Omit<Inventory, 'file'> {
  const hosts: InventoryHost[] = [];
  for (const [id, v] of Object.entries(data)) {
    const e = v as Record<string, unknown>;
    const at = [id];
    const ok = (k: string, test: (x: unknown) => boolean, want: string): boolean => {
      if (e[k] === undefined || test(e[k])) return true;
      r.fail('INV002', `${k}: expected ${want}, found ${describe(e[k])}`, [...at, k]);
      return false;
    };
    for (const k of Object.keys(e)) {
      if (k === 'passwd' || k === 'priv_passwd') r.fail('INV006', `${k}: cairn does not log in with passwords or decrypt keys; use a key file or ssh-agent`, [...at, k], true);
      else if (!ROSTER_USED.includes(k) && !ROSTER_IGNORED.includes(k)) r.fail('INV003', `unknown roster key ${JSON.stringify(k)} (expected one of ${ROSTER_USED.join(', ')})`, [...at, k], true);
    }
    ok('host', (x) => typeof x === 'string' && x !== '', 'a host name or address');
    ok('port', (x) => typeof x === 'number' && Number.isInteger(x) && x > 0 && x < 65536, 'a port number from 1 to 65535');
    ok('user', (x) => typeof x === 'string' && x !== '', 'a user name');
    ok('priv', (x) => typeof x === 'string' && x !== '', 'a key file');
    ok('sudo', (x) => typeof x === 'boolean', 'true or false');
    const priv = typeof e.priv === 'string' && e.priv !== '' && e.priv !== 'agent-forwarding' ? expandKey(e.priv, baseDir) : undefined;
    hosts.push({
      name: id,
      address: String(e.host),
      port: typeof e.port === 'number' ? e.port : 22,
      // Salt's roster logs in as root unless told otherwise.
      user: typeof e.user === 'string' ? e.user : 'root',
      ...(priv !== undefined ? { key: priv } : {}),
      become: e.sudo === true,
      connection: 'ssh',
      vars: {},
      groups: [],
      span: r.span(at, true),
    });
  }
  return { format: 'salt-roster', hosts, groups: new Map() };
}

function looksLikeRoster(data: Record<string, unknown>): boolean {
  const values = Object.values(data);
  return values.length > 0 && !('hosts' in data || 'groups' in data || 'defaults' in data) && values.every((v) => isRecord(v) && 'host' in v);
}

/** Parses inventory text; throws DiagnosticError with every problem found. */
export function parseInventory(file: string, text: string): Inventory {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, version: '1.1', uniqueKeys: true, prettyErrors: false });
  const r = new Reader(file, doc, lc);
  if (doc.errors.length > 0) {
    throw new DiagnosticError(
      doc.errors.map((e) => {
        const pos = lc.linePos(e.pos[0]);
        return error('INV005', `invalid YAML: ${e.message.split('\n')[0] ?? e.message}`, { span: { file, line: pos.line, col: pos.col } });
      }),
    );
  }
  const data: unknown = doc.toJS();
  const baseDir = resolve(file, '..');
  let body: Omit<Inventory, 'file'> | undefined;
  if (!isRecord(data)) r.fail('INV001', `not an inventory: expected a mapping with hosts: (cairn) or ID: {host: …} entries (Salt roster), found ${describe(data)}`, []);
  else if (looksLikeRoster(data)) body = readRoster(r, data, baseDir);
  else if ('hosts' in data || 'groups' in data || 'defaults' in data) body = readCairn(r, data, baseDir);
  else {
    const first = Object.keys(data)[0] ?? '';
    r.fail('INV001', 'not an inventory: expected hosts: (cairn inventory) or ID: {host: …} entries with a host each (Salt roster)', [first], true);
  }
  if (r.diags.length > 0 || !body) throw new DiagnosticError(r.diags);
  return { file, ...body };
}
