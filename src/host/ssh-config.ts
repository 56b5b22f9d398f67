/**
 * OpenSSH's client config (~/.ssh/config), read for what cairn connects with: HostName, User, Port,
 * IdentityFile and ProxyJump. As ssh_config(5) has it: keywords are case-insensitive, `Key value` or
 * `Key=value`, options before the first Host apply to every host, a Host line holds glob patterns (`*`,
 * `?`, `!negated`), the first value obtained for a keyword wins, and Include reads other files in place.
 * Match blocks are not evaluated: their options never apply.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { userHome } from '../core/home.js';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { DiagnosticError, error } from '../core/diag.js';
import type { InventoryHost } from './inventory.js';

interface Option {
  readonly key: string;
  readonly value: string;
}

interface Block {
  /** Host patterns; undefined before the first Host line (every host); null for a Match block (none). */
  readonly patterns: readonly string[] | undefined | null;
  readonly options: Option[];
}

/** What the config says about one host; a value is absent when no block set it. */
export interface SshConfigValues {
  readonly hostName?: string;
  readonly user?: string;
  readonly port?: number;
  readonly identityFile?: string;
  /** `none` already removed. */
  readonly proxyJump?: string;
}

const USED = new Set(['hostname', 'user', 'port', 'identityfile', 'proxyjump']);

/** Splits a line into words as ssh does: whitespace, or `=` after the keyword; double quotes group. */
function words(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  let has = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (c === '"') {
      quoted = !quoted;
      has = true;
    } else if (!quoted && (c === ' ' || c === '\t' || (c === '=' && out.length === 0))) {
      if (has) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += c;
      has = true;
    }
  }
  if (has) out.push(cur);
  return out;
}

function globMatch(glob: string, text: string): boolean {
  const re = glob.replace(/[.+^${}()|[\]\\/]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${re}$`, 'i').test(text);
}

function hostMatches(patterns: readonly string[], host: string): boolean {
  let matched = false;
  for (const p of patterns.flatMap((x) => x.split(','))) {
    if (p.startsWith('!')) {
      if (globMatch(p.slice(1), host)) return false;
    } else if (globMatch(p, host)) matched = true;
  }
  return matched;
}

/** The files an Include names: relative to ~/.ssh, a `*` in the last part matching file names. */
function includeFiles(spec: string, home: string): string[] {
  const path = spec.startsWith('~/') ? join(home, spec.slice(2)) : isAbsolute(spec) ? spec : join(home, '.ssh', spec);
  if (!/[*?]/.test(basename(path))) return existsSync(path) ? [path] : [];
  try {
    return readdirSync(dirname(path))
      .filter((f) => globMatch(basename(path), f))
      .sort()
      .map((f) => join(dirname(path), f));
  } catch {
    return [];
  }
}

export class SshConfig {
  private readonly blocks: Block[] = [];

  /** Reads a config file; a file that does not exist is an empty config. */
  static read(file: string, home = userHome()): SshConfig {
    const config = new SshConfig();
    if (existsSync(file)) config.load(file, home, 0, undefined);
    return config;
  }

  static parse(text: string, file = 'ssh_config', home = userHome()): SshConfig {
    const config = new SshConfig();
    config.loadText(text, file, home, 0, undefined);
    return config;
  }

  private load(file: string, home: string, depth: number, inside: Block | undefined): void {
    this.loadText(readFileSync(file, 'utf8'), file, home, depth, inside);
  }

  private loadText(text: string, file: string, home: string, depth: number, inside: Block | undefined): void {
    let block = inside ?? { patterns: undefined, options: [] };
    if (!inside) this.blocks.push(block);
    text.split(/\r?\n/).forEach((raw, i) => {
      const line = raw.trim();
      if (line === '' || line.startsWith('#')) return;
      const [keyword = '', ...args] = words(line);
      const key = keyword.toLowerCase();
      const col = raw.indexOf(keyword) + 1;
      const fail = (message: string): never => {
        throw new DiagnosticError([error('INV010', message, { span: { file, line: i + 1, col, endLine: i + 1, endCol: raw.length + 1 } })]);
      };
      if (key === 'host') {
        if (args.length === 0) fail('Host needs at least one pattern');
        block = { patterns: args, options: [] };
        this.blocks.push(block);
      } else if (key === 'match') {
        block = { patterns: null, options: [] };
        this.blocks.push(block);
      } else if (key === 'include') {
        if (depth >= 16) fail('Include nested too deeply');
        for (const spec of args) for (const f of includeFiles(spec, home)) this.load(f, home, depth + 1, block);
      } else if (USED.has(key)) {
        if (args.length === 0) fail(`${keyword} needs a value`);
        const value = args[0] as string;
        if (key === 'port' && !(/^\d+$/.test(value) && Number(value) >= 1 && Number(value) <= 65535)) fail(`Port: expected a port number from 1 to 65535, found ${JSON.stringify(value)}`);
        block.options.push({ key, value });
      }
    });
  }

  /** The values for `host` (the name ssh would be given), with %h, %d, %u, %r and ~ expanded. */
  lookup(host: string, home = userHome()): SshConfigValues {
    const found = new Map<string, string>();
    for (const b of this.blocks) {
      if (b.patterns === null || (b.patterns !== undefined && !hostMatches(b.patterns, host))) continue;
      for (const o of b.options) if (!found.has(o.key)) found.set(o.key, o.value);
    }
    const hostName = found.get('hostname')?.replace(/%(.)/g, (m, c: string) => (c === 'h' ? host : c === '%' ? '%' : m));
    const remote = hostName ?? host;
    const user = found.get('user');
    const tokens = (s: string): string =>
      s.replace(/^~(?=\/|$)/, home).replace(/%(.)/g, (m, c: string) => ({ h: remote, d: home, u: userInfo().username, r: user ?? userInfo().username, '%': '%' })[c] ?? m);
    const port = found.get('port');
    const identity = found.get('identityfile');
    const jump = found.get('proxyjump');
    return {
      ...(hostName !== undefined ? { hostName } : {}),
      ...(user !== undefined ? { user } : {}),
      ...(port !== undefined ? { port: Number(port) } : {}),
      ...(identity !== undefined ? { identityFile: tokens(identity) } : {}),
      ...(jump !== undefined && jump.toLowerCase() !== 'none' ? { proxyJump: jump } : {}),
    };
  }
}

/** The config a run reads: `file`, else ~/.ssh/config; null reads none. */
export function loadSshConfig(file?: string | null): SshConfig {
  if (file === null) return SshConfig.parse('');
  return SshConfig.read(file ?? join(userHome(), '.ssh', 'config'));
}

/** The inventory host with what OpenSSH's client config says where the inventory said nothing. */
export function withSshConfig(h: InventoryHost, config: SshConfig): InventoryHost {
  if (h.connection === 'local' || h.unset === undefined || h.unset.length === 0) return h;
  // ssh is given the address (the host's name when the inventory has none) and matches Host lines on it.
  const c = config.lookup(h.address);
  const unset = new Set(h.unset);
  return {
    ...h,
    ...(unset.has('address') && c.hostName !== undefined ? { address: c.hostName } : {}),
    ...(unset.has('port') && c.port !== undefined ? { port: c.port } : {}),
    ...(unset.has('user') && c.user !== undefined ? { user: c.user } : {}),
    ...(unset.has('key') && c.identityFile !== undefined ? { key: c.identityFile } : {}),
    ...(unset.has('jump') && c.proxyJump !== undefined ? { jump: c.proxyJump } : {}),
  };
}
